"""The only module that talks to the site engine (MkDocs with Material).

A MkDocs plugin, listed in mkdocs.yml, that validates the entries, injects every rendered page
as a generated file (no staging copy on disk) and swaps each page's body for the HTML the
renderer produced. Engines that read the same mkdocs.yml (Zensical, ProperDocs) need only a
new version of this module.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.toc import get_toc

from generator.catalog import Catalog
from generator.diagnose.index import build_index, index_json
from generator.loading.discovery import find_entry_files, read_sources
from generator.problems import Level, Problem, format_problems, has_errors
from generator.render.data_files import data_files
from generator.render.pages import RenderedPage, Renderer
from generator.render.redirects import redirect_files
from generator.validation import validate_sources

log = logging.getLogger("mkdocs.plugins.trainwreck")
SIGNATURES_URI = "signatures.json"


class TrainwreckConfig(base.Config):
    entries_dir = c.Type(str, default="entries")
    templates_dir = c.Type(str, default="templates")


class TrainwreckPlugin(BasePlugin[TrainwreckConfig]):
    def __init__(self) -> None:
        self.pages: dict[str, RenderedPage] = {}
        self.extra_files: dict[str, str] = {}
        self.serving = False
        # Problems that the preview shows as a banner while it keeps the last good pages.
        self.problems: list[Problem] = []

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Defining on_startup also keeps this instance across the rebuilds of one `serve`,
        # which is what lets a broken save fall back to the last good pages.
        self.serving = command == "serve"

    def _base(self, config: Any) -> Path:
        return Path(config.config_file_path or ".").resolve().parent

    def on_files(self, files: Files, /, *, config: Any) -> Files:
        base_dir = self._base(config)
        entries_dir = base_dir / self.config.entries_dir
        sources, unreadable = read_sources(find_entry_files(entries_dir), base_dir)
        result = validate_sources(sources)
        problems = [*unreadable, *result.problems]
        if has_errors(problems):
            report = format_problems(problems, "text")
            if not (self.serving and self.pages):
                raise PluginError("entries failed validation:\n" + report)
            # A preview keeps serving the last good pages, with the problems on top of each.
            log.error("entries failed validation; showing the last good build:\n%s", report)
            self.problems = [p for p in problems if p.level is Level.ERROR]
        else:
            self.problems = []
            catalog = Catalog.of(result.entries)
            site_url = config.site_url or ""
            renderer = Renderer(base_dir / self.config.templates_dir, site_url=site_url)
            self.pages = {p.src_uri: p for p in renderer.all_pages(catalog)}
            # Files served as they are: the signature index for the browser diagnoser and
            # tools, redirects from renamed entries' old URLs, and the API, feed and robots.txt.
            index = index_json(build_index(result.entries))
            self.extra_files = {
                SIGNATURES_URI: index,
                **redirect_files(catalog),
                **data_files(catalog, site_url),
            }
            log.info("trainwreck: %d entries, %d pages", len(catalog.entries), len(self.pages))
        for src_uri in self.pages:
            existing = files.get_file_from_path(src_uri)
            if existing is not None:
                files.remove(existing)
            files.append(File.generated(config, src_uri, content="<!-- trainwreck -->\n"))
        for path, content in self.extra_files.items():
            existing = files.get_file_from_path(path)
            if existing is not None:
                files.remove(existing)
            files.append(File.generated(config, path, content=content))
        return files

    def on_page_markdown(self, markdown: str, /, *, page: Any, config: Any, files: Files) -> str:
        rendered = self.pages.get(page.file.src_uri)
        if rendered is not None:
            # The theme writes these into the page without escaping them.
            page.meta["title"] = html.escape(rendered.title)
            page.meta["description"] = html.escape(rendered.description)
        return markdown

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
        return _banner(self.problems) + rendered.html


def _banner(problems: list[Problem]) -> str:
    if not problems:
        return ""
    items = "\n".join(f"<li><code>{html.escape(p.text())}</code></li>" for p in problems)
    return (
        # Inline style: the banner must show even when the broken save is a stylesheet.
        '<div class="tw-build-error" role="alert" style="border: 2px solid #b71c1c; '
        'padding: 0.4em 1em; margin-bottom: 1em">'
        "<p><strong>This preview is the last good build.</strong> "
        "Fix these problems and save again:</p>"
        f"<ul>{items}</ul></div>\n"
    )


def build_site(config_file: Path, site_dir: Path) -> None:
    """Build the whole site into `site_dir` (which the caller then publishes)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(config_file), site_dir=str(site_dir))
    build(config)


def serve_site(config_file: Path, watch: list[Path], dev_addr: str) -> None:
    from mkdocs.commands.serve import serve

    serve(
        str(config_file),
        livereload=True,
        watch=[str(p) for p in watch],
        dev_addr=dev_addr,
    )
