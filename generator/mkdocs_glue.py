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
from generator.problems import format_problems, has_errors
from generator.render.pages import RenderedPage, Renderer
from generator.validation import validate_sources

log = logging.getLogger("mkdocs.plugins.trainwreck")
SIGNATURES_URI = "signatures.json"


class TrainwreckConfig(base.Config):
    entries_dir = c.Type(str, default="entries")
    templates_dir = c.Type(str, default="templates")


class TrainwreckPlugin(BasePlugin[TrainwreckConfig]):
    def __init__(self) -> None:
        self.pages: dict[str, RenderedPage] = {}

    def _base(self, config: Any) -> Path:
        return Path(config.config_file_path or ".").resolve().parent

    def on_files(self, files: Files, /, *, config: Any) -> Files:
        base_dir = self._base(config)
        entries_dir = base_dir / self.config.entries_dir
        sources, unreadable = read_sources(find_entry_files(entries_dir), base_dir)
        result = validate_sources(sources)
        problems = [*unreadable, *result.problems]
        if has_errors(problems):
            raise PluginError("entries failed validation:\n" + format_problems(problems, "text"))
        catalog = Catalog.of(result.entries)
        renderer = Renderer(base_dir / self.config.templates_dir)
        self.pages = {p.src_uri: p for p in renderer.all_pages(catalog)}
        for src_uri in self.pages:
            existing = files.get_file_from_path(src_uri)
            if existing is not None:
                files.remove(existing)
            files.append(File.generated(config, src_uri, content="<!-- trainwreck -->\n"))
        # The compiled signature index, for the browser diagnoser and tools: /signatures.json.
        index = index_json(build_index(result.entries))
        existing = files.get_file_from_path(SIGNATURES_URI)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, SIGNATURES_URI, content=index))
        log.info("trainwreck: %d entries, %d pages", len(catalog.entries), len(self.pages))
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
        return rendered.html


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
