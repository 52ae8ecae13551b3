"""The only module that talks to the site engine (MkDocs with Material).

A MkDocs plugin, listed in mkdocs.yml, that validates the entries, injects every rendered page
as a generated file (no staging copy on disk) and swaps each page's body for the HTML the
renderer produced. Engines that read the same mkdocs.yml (Zensical, ProperDocs) need only a
new version of this module.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import html
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.config_options import ExtraScriptValue
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.toc import get_toc
from watchdog.observers.polling import PollingObserver

from generator.catalog import Catalog
from generator.diagnose.index import build_index, index_json
from generator.diagnose.search_shards import shard_files
from generator.fleet import site as fleet_site
from generator.loading.discovery import (
    containing,
    find_entry_files,
    read_categories,
    read_sources,
)
from generator.model.categories import CATEGORIES, CategoryInfo
from generator.model.entry import Entry
from generator.preview_cache import (
    PageCache,
    PreviewValidator,
    Skeletons,
    ThemeBytecode,
    page_fingerprint,
)
from generator.problems import Level, Problem, format_problems, has_errors
from generator.render.data_files import data_files
from generator.render.pages import Benchmark, RenderedPage, Renderer, benchmark_context
from generator.render.redirects import redirect_files
from generator.site_search import SearchIndexError, index_site
from generator.validation import SourceFile, ValidationResult, validate_sources

log = logging.getLogger("mkdocs.plugins.trainwreck")
SIGNATURES_URI = "signatures.json"
# Served only by the preview: the error banner's script and the problems it shows.
PREVIEW_SCRIPT_URI = "_trainwreck/preview.js"
PREVIEW_PROBLEMS_URI = "_trainwreck/problems.json"
PREVIEW_POLL_SECONDS = 0.2
# The catalog folders a build or preview reads (os.pathsep between them), set by the CLI.
ENTRIES_ENV = "TRAINWRECK_ENTRIES"


class TrainwreckConfig(base.Config):
    entries_dir = c.Type(str, default="entries")
    templates_dir = c.Type(str, default="templates")
    # "pagefind": a sharded index under /pagefind/ (generator/site_search.py), and Material's
    # own index left empty so no page downloads it; "material": Material's lunr index alone.
    # The preview always keeps Material's, so a save does not wait for a Pagefind run.
    search_index = c.Choice(("pagefind", "material"), default="pagefind")


class TrainwreckPlugin(BasePlugin[TrainwreckConfig]):
    def __init__(self) -> None:
        self.pages: dict[str, RenderedPage] = {}
        self.extra_files: dict[str, str] = {}
        self.serving = False
        # Problems that the preview shows as a banner while it keeps the last good pages.
        self.problems: list[Problem] = []
        # The incremental preview (`serve` with a dirty build): see generator/preview_cache.py.
        self.incremental = False
        self.validator = PreviewValidator()
        self.page_cache = PageCache()
        self.renderer: Renderer | None = None
        self.templates_stamp = b""
        self.theme_stamp = b""
        self.skeletons: Skeletons | None = None
        self.theme_bytecode = ThemeBytecode()
        self.frozen = False
        # What the last preview build generated: pages by src_uri, data files by path.
        self.generated: set[str] = set()
        self.rendered: set[str] = set()  # src_uris re-rendered by the last build
        # Material's search index, kept per page: a dirty build indexes only the pages it
        # rebuilt, so the entries of the others are carried over from earlier builds.
        self.search_docs: dict[str, list[dict[str, Any]]] = {}
        self.search_mark = 0
        self.doc_uris: list[str] = []
        self.categories: tuple[CategoryInfo, ...] = CATEGORIES
        # `trainwreck build` has validated the catalog already (with the benign corpus):
        # (its folders, categories, result), used once instead of validating it again.
        self.prevalidated: (
            tuple[tuple[Path, ...], tuple[CategoryInfo, ...], ValidationResult] | None
        ) = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Defining on_startup also keeps this instance across the rebuilds of one `serve`,
        # which is what lets a broken save fall back to the last good pages.
        self.serving = command == "serve"
        self.incremental = self.serving and dirty
        if self.incremental:
            self.skeletons = Skeletons(Path(tempfile.mkdtemp(prefix="trainwreck-preview-")))

    def on_shutdown(self) -> None:
        if self.skeletons is not None:
            shutil.rmtree(self.skeletons.folder, ignore_errors=True)

    def on_serve(self, server: Any, /, *, config: Any, builder: Any) -> Any:
        # MkDocs polls what it watches every 0.5 s: on average a quarter of a second added to
        # each save. Poll the paths it has watched so far (the rest are added after this
        # event) at PREVIEW_POLL_SECONDS instead; a scan of 1,000 entries takes about 5 ms.
        watched = [p for p in (config.docs_dir, config.config_file_path) if p]
        for path in watched:
            server.unwatch(path)
        server.observer = PollingObserver(timeout=PREVIEW_POLL_SECONDS)
        for path in watched:
            server.watch(path)
        refuse_nul_paths(server)
        return server

    def _base(self, config: Any) -> Path:
        return Path(config.config_file_path or ".").resolve().parent

    def on_config(self, config: Any) -> Any:
        if self.serving and PREVIEW_SCRIPT_URI not in map(str, config.extra_javascript):
            config.extra_javascript.append(ExtraScriptValue(PREVIEW_SCRIPT_URI))
        return config

    def entry_folders(self, base_dir: Path) -> list[Path]:
        """The catalog folders: $TRAINWRECK_ENTRIES (set by `trainwreck build|serve --entries`,
        os.pathsep between folders) or the plugin's entries_dir."""
        chosen = os.environ.get(ENTRIES_ENV)
        names = chosen.split(os.pathsep) if chosen else [self.config.entries_dir]
        return [base_dir / name for name in names]

    def on_files(self, files: Files, /, *, config: Any) -> Files:
        base_dir = self._base(config)
        folders = self.entry_folders(base_dir)
        handed, self.prevalidated = self.prevalidated, None
        if handed is not None and handed[0] == tuple(f.resolve() for f in folders):
            _, categories, result = handed
            problems = list(result.problems)
        else:
            categories, problems = read_categories(folders, base_dir)
            sources: list[SourceFile] = []
            for folder in folders:
                inside = containing(folder, base_dir)
                found, unreadable = read_sources(find_entry_files(folder), base_dir, inside=inside)
                sources.extend(found)
                problems.extend(unreadable)
            result = (
                self.validator.validate(sources, categories)
                if self.incremental
                else validate_sources(sources, categories=categories)
            )
            problems = [*problems, *result.problems]
        self.categories = categories
        if has_errors(problems):
            report = format_problems(problems, "text")
            if not self.serving:
                raise PluginError("entries failed validation:\n" + report)
            # A preview keeps serving the last good pages, with the problems on top of each.
            log.error("entries failed validation; showing the last good build:\n%s", report)
            self.problems = [p for p in problems if p.level is Level.ERROR]
            if not self.pages:
                # The preview's first build: show the entries that load, so an editor can
                # start the server before a new entry is finished.
                self._render(result.entries, base_dir, config)
        else:
            self.problems = []
            self._render(result.entries, base_dir, config)
        extra_files = dict(self.extra_files)
        if self.serving:
            script = base_dir / self.config.templates_dir / "preview" / "banner.js"
            extra_files[PREVIEW_SCRIPT_URI] = script.read_text()
            texts = [p.text() for p in self.problems]
            extra_files[PREVIEW_PROBLEMS_URI] = json.dumps({"problems": texts}, indent=2) + "\n"
        if self.skeletons is not None:
            # The theme wraps every page, so an edit to it (or to mkdocs.yml) must rebuild them all.
            custom = config.theme.custom_dir
            theme_files = _files_under(Path(custom)) if custom else []
            self.theme_stamp = _stamp([config.config_file_path or "", *theme_files])
        for src_uri, page in self.pages.items():
            _remove(files, src_uri)
            if self.skeletons is None:
                files.append(File.generated(config, src_uri, content="<!-- trainwreck -->\n"))
            else:
                skeleton = self.skeletons.path(
                    src_uri,
                    page_fingerprint(page, self.theme_stamp),
                    partial(_page_dest, src_uri, config),
                )
                files.append(File.generated(config, src_uri, abs_src_path=skeleton))
        for path, content in extra_files.items():
            _remove(files, path)
            if self.skeletons is None:
                files.append(File.generated(config, path, content=content))
            else:
                skeleton = self.skeletons.path(
                    path, content.encode(), partial(os.path.join, config.site_dir, path)
                )
                files.append(File.generated(config, path, abs_src_path=skeleton))
        if self.skeletons is not None:
            generated = {*self.pages, *extra_files}
            _remove_outputs(self.generated - generated, config)
            self.generated = generated
        self.search_mark = 0
        self.doc_uris = [f.src_uri for f in files if f.is_documentation_page()]
        return files

    def _render(self, entries: Sequence[Entry], base_dir: Path, config: Any) -> None:
        catalog = Catalog.of(entries, self.categories)
        site_url = config.site_url or ""
        templates = base_dir / self.config.templates_dir
        monitor = fleet_site.monitor_for()
        if monitor is None:
            log.info(
                "trainwreck: no 'Monitor it' sections or /api/rules/: "
                "the fleet extra is not installed"
            )
        # The full rule sets take seconds to convert: a build writes them, a preview does not.
        # The pages' "Monitor it" rows are read from the same conversion.
        rules = None
        if monitor is not None and not self.incremental and site_url:
            rules = fleet_site.site_rules(entries, site_url)
            monitor = rules.monitor
        if self.incremental:
            # One renderer while the page templates stay as they are: it keeps Jinja's
            # compiled templates, and the page cache reuses only pages that it rendered.
            stamp = _stamp(_files_under(templates / "pages"))
            if self.renderer is None or stamp != self.templates_stamp:
                self.renderer = Renderer(
                    templates, site_url=site_url, monitor=monitor, benchmark=_benchmark(base_dir)
                )
                self.templates_stamp = stamp
            self.pages, self.rendered = self.page_cache.update(self.renderer, catalog)
        else:
            renderer = Renderer(
                templates, site_url=site_url, monitor=monitor, benchmark=_benchmark(base_dir)
            )
            self.pages = {p.src_uri: p for p in renderer.all_pages(catalog)}
        # Files served as they are: the signature index for the browser diagnoser and
        # tools, the same cut into shards for the search box, redirects from renamed entries'
        # old URLs, and the API, feed and robots.txt.
        index = build_index(entries)
        self.extra_files = {
            SIGNATURES_URI: index_json(index),
            **shard_files(index),
            **redirect_files(catalog),
            **data_files(catalog, site_url),
        }
        if rules is not None:
            self.extra_files.update(rules.files)
        log.info(
            "trainwreck: %d entries, %d pages, %d rendered",
            len(catalog.entries),
            len(self.pages),
            len(self.rendered) if self.incremental else len(self.pages),
        )

    def on_env(self, env: Any, /, *, config: Any, files: Files) -> Any:
        if self.incremental:
            env.bytecode_cache = self.theme_bytecode
        return env

    def on_page_markdown(self, markdown: str, /, *, page: Any, config: Any, files: Files) -> str:
        rendered = self.pages.get(page.file.src_uri)
        if rendered is not None:
            # The theme writes these into the page without escaping them.
            page.meta["title"] = html.escape(rendered.title)
            page.meta["description"] = html.escape(rendered.description)
            pagefind = self.config.search_index == "pagefind" and not self.serving
            # Pagefind indexes the pages main.html marks; Material's search then indexes none,
            # since its index is emptied anyway and parsing every page for it cost CPU time.
            page.meta["pagefind"] = pagefind and rendered.searchable
            if pagefind or not rendered.searchable:
                page.meta["search"] = {"exclude": True}  # Material's search skips the page
            # The page's body is ours (on_page_content): MkDocs need not convert its
            # placeholder, with a Markdown instance of its own for each page.
            page.render = partial(_placeholder_render, page)
        return markdown

    @event_priority(-100)  # after the search plugin has indexed the page
    def on_page_context(self, context: Any, /, *, page: Any, config: Any, nav: Any) -> Any:
        rendered = self.pages.get(page.file.src_uri)
        if rendered is not None and _search_excluded(page):
            page.content = _material_search_strip(rendered.html, config)
        search = self._search(config)
        if search is not None:
            entries = search.search_index.entries
            self.search_docs[page.file.src_uri] = entries[self.search_mark :]
            self.search_mark = len(entries)
        return context

    @event_priority(100)  # before the search plugin writes its index
    def on_post_build(self, *, config: Any) -> None:
        if self.config.search_index == "pagefind" and not self.serving:
            material = config.plugins.get("material/search") or config.plugins.get("search")
            if material is not None and hasattr(material, "search_index"):
                # The header keeps Material's search box; search-normalise.js answers its
                # queries from Pagefind instead of this index. Pages that are not ours
                # (none today) would otherwise still be in it.
                material.search_index.entries = []
            try:
                index_site(Path(config.site_dir))
            except SearchIndexError as exc:
                raise PluginError(str(exc)) from exc
        if self.incremental and not self.frozen:
            # The first build loads and renders the whole catalog, which the preview keeps
            # for the session. Freezing it keeps the collector from walking it all again in
            # each later full collection: a pause of about 0.15 s a save at 1,000 entries.
            # What the preview drops later is still freed, by reference counting.
            gc.collect()
            gc.freeze()
            self.frozen = True
        search = self._search(config)
        if search is None:
            return
        # Pages in this build's order; a page that is gone takes its entries with it.
        self.search_docs = {
            uri: self.search_docs[uri] for uri in self.doc_uris if uri in self.search_docs
        }
        search.search_index.entries = [e for docs in self.search_docs.values() for e in docs]
        search.search_index_prev = None  # the entries are already complete

    def _search(self, config: Any) -> Any:
        if not self.incremental:
            return None
        search = config.plugins.get("material/search") or config.plugins.get("search")
        return search if search is not None and hasattr(search, "search_index") else None

    def on_page_content(self, content: str, /, *, page: Any, config: Any, files: Files) -> str:
        rendered = self.pages.get(page.file.src_uri)
        if rendered is None:
            return content
        page.toc = get_toc(
            [
                {"level": h.level, "id": h.id, "name": html.escape(h.title), "children": []}
                for h in rendered.toc
                if h.level == 2
            ]
        )
        # A page that Material's search does not index gets its body after the search plugin's
        # page event (on_page_context), which would otherwise run a regex over every byte
        # of it to strip attributes ours do not have: about 0.45 s of CPU at 1,090 entries.
        return "" if _search_excluded(page) else rendered.html


# What Material's search plugin strips from each page's body in its on_page_context, and a
# search for the same that needs no match attempt at every character.
_SEARCH_ATTRIBUTE = re.compile(r"\s?data-search-\w+=\"[^\"]+\"")
_SEARCH_ATTRIBUTE_ANYWHERE = re.compile(r"data-search-\w+=\"[^\"]+\"")


# The real-failure benchmark's files (corpus/real/README.md), read for its page when present.
BENCHMARK_SCORE = Path("corpus") / "real" / "score.json"
BENCHMARK_BASELINE = Path("corpus") / "real" / "baseline.json"
BENCHMARK_MAX_BYTES = 4 << 20


def _read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from a regular file of at most BENCHMARK_MAX_BYTES, else None (logged)."""
    if not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            raw = handle.read(BENCHMARK_MAX_BYTES + 1)
        data = json.loads(raw) if len(raw) <= BENCHMARK_MAX_BYTES else None
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict):
        log.warning("trainwreck: %s is not a score file; the benchmark page shows no figures", path)
        return None
    return data


def _benchmark(base_dir: Path) -> Benchmark | None:
    score = _read_json(base_dir / BENCHMARK_SCORE)
    if score is None:
        return None
    baseline = _read_json(base_dir / BENCHMARK_BASELINE)
    try:
        benchmark_context(Benchmark(score, baseline))
    except (KeyError, TypeError, AttributeError):
        log.warning("trainwreck: %s lacks the figures of a score file", BENCHMARK_SCORE)
        return None
    return Benchmark(score, baseline)


def _search_excluded(page: Any) -> bool:
    return bool((page.meta.get("search") or {}).get("exclude"))


def _material_search_strip(body: str, config: Any) -> str:
    """`body` as Material's search plugin leaves it when it is enabled."""
    search = config.plugins.get("material/search") or config.plugins.get("search")
    material = search is not None and type(search).__module__.startswith("material.")
    if not material or not search.config.enabled:
        return body
    if _SEARCH_ATTRIBUTE_ANYWHERE.search(body) is None:
        return body
    return _SEARCH_ATTRIBUTE.sub("", body)


def _placeholder_render(page: Any, config: Any, files: Files) -> None:
    """What MkDocs' Page.render makes of a generated page's placeholder, an HTML comment with
    no heading or link: no title or anchors, no table of contents. on_page_content then
    puts the rendered body in. The conversion itself (a Python-Markdown instance with every
    extension, made for each page) was about 0.35 s of CPU at 1,090 entries."""
    page.content = ""
    page.toc = get_toc([])
    page._title_from_render = None
    page.present_anchor_ids = set()


def refuse_nul_paths(server: Any) -> None:
    """Answer a request for a path holding NUL (`GET /%00`) with MkDocs' own 404.

    MkDocs' server hands the decoded path to open(), which raises ValueError on NUL; it then
    answers 500 and logs a traceback. No file's name holds NUL, so not found is the answer.
    """
    serve = server._serve_request

    def guarded(environ: dict[str, Any], start_response: Any) -> Any:
        if "\x00" in environ.get("PATH_INFO", ""):
            return None  # MkDocs' serve_request answers None with its 404 page
        return serve(environ, start_response)

    server._serve_request = guarded


def _remove_outputs(gone: set[str], config: Any) -> None:
    """Delete what earlier builds wrote for generated files that no longer exist (an entry
    deleted during the preview): a dirty build leaves the output folder as it was."""
    for path in gone:
        if path.endswith(".md"):
            output = _page_dest(path, config)
        else:
            output = os.path.join(config.site_dir, path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(output)


def _page_dest(src_uri: str, config: Any) -> str:
    return File(src_uri, None, config.site_dir, config.use_directory_urls).abs_dest_path


def _files_under(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*") if p.is_file())


def _stamp(paths: Sequence[str]) -> bytes:
    """Changes whenever one of the files is edited, added or removed."""
    seen = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue
        seen.append(f"{path}\0{info.st_mtime_ns}\0{info.st_size}")
    return hashlib.blake2b("\n".join(seen).encode(), digest_size=16).digest()


def _remove(files: Files, src_uri: str) -> None:
    existing = files.get_file_from_path(src_uri)
    if existing is not None:
        files.remove(existing)


def build_site(
    config_file: Path,
    site_dir: Path,
    validated: tuple[Sequence[Path], tuple[CategoryInfo, ...], ValidationResult] | None = None,
) -> None:
    """Build the whole site into `site_dir` (which the caller then publishes).

    `validated`: the entry folders, their categories and the caller's result of validating
    them, so the plugin
    does not validate the same files a second time (a quarter of a build at 1k entries,
    docs/benchmarks.md).
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(config_file), site_dir=str(site_dir))
    plugin = config.plugins.get("trainwreck")
    if validated is not None and isinstance(plugin, TrainwreckPlugin):
        folders, categories, result = validated
        plugin.prevalidated = (tuple(f.resolve() for f in folders), categories, result)
    build(config)


def serve_site(config_file: Path, watch: list[Path], dev_addr: str) -> None:
    from mkdocs.commands.serve import serve

    serve(
        str(config_file),
        livereload=True,
        watch=[str(p) for p in watch],
        dev_addr=dev_addr,
        # Rebuild only the pages whose source changed; the plugin keeps its generated pages'
        # sources unchanged unless their HTML did (generator/preview_cache.py).
        build_type="dirty",
    )
