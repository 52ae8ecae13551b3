"""Entries and the catalog rendered into page bodies, through the Jinja2 templates.

Every page is produced here as finished HTML plus its table of contents; the site engine only
wraps it in the theme. Templates run with autoescape on, so every value from an entry is
escaped unless it went through `render_markdown`, which escapes on its own terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from generator.catalog import Catalog
from generator.model.categories import CATEGORIES
from generator.model.entry import Entry
from generator.render.markdown import plain_text, render_markdown


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    title: str


@dataclass(frozen=True)
class RenderedPage:
    src_uri: str  # e.g. "failures/nan-loss/index.md"; served at /failures/nan-loss/
    title: str  # plain text; the site engine escapes it
    description: str
    html: str
    toc: tuple[Heading, ...]


def slug(text: str, limit: int = 60) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:limit].rstrip("-") or "item"


def _root(src_uri: str) -> str:
    depth = src_uri.count("/")
    # index.md at the top sits at the root; "x/index.md" is one level down.
    return "../" * depth


_HEADING = re.compile(r'<h([23]) id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)
_TAG = re.compile(r"<[^>]+>")


def _toc(html: str) -> tuple[Heading, ...]:
    from html import unescape

    return tuple(
        Heading(int(level), anchor, unescape(_TAG.sub("", inner)).strip())
        for level, anchor, inner in _HEADING.findall(html)
    )


class Renderer:
    def __init__(self, templates_dir: Path) -> None:
        self.env = Environment(
            loader=FileSystemLoader(str(templates_dir / "pages")),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self.env.filters["slug"] = slug
        self.env.filters["plain"] = plain_text

    def _page(
        self, template: str, src_uri: str, title: str, description: str, **context: object
    ) -> RenderedPage:
        root = _root(src_uri)

        def md(text: str) -> Markup:
            return render_markdown(text, root)

        def md_inline(text: str) -> Markup:
            return render_markdown(text, root, inline=True)

        html = self.env.get_template(template).render(
            root=root, md=md, md_inline=md_inline, categories=CATEGORIES, **context
        )
        return RenderedPage(src_uri, title, description, html, _toc(html))

    def entry(self, entry: Entry, catalog: Catalog) -> RenderedPage:
        return self._page(
            "entry.html.j2",
            f"failures/{entry.id}/index.md",
            entry.title,
            plain_text(entry.summary),
            entry=entry,
            catalog=catalog,
            referenced_by=catalog.referenced_by(entry.id),
        )

    def all_pages(self, catalog: Catalog) -> list[RenderedPage]:
        pages = [self.entry(e, catalog) for e in catalog.entries]
        pages.append(
            self._page(
                "home.html.j2",
                "index.md",
                "Trainwreck",
                "An open encyclopedia of ML training failures, with a log diagnoser.",
                catalog=catalog,
            )
        )
        pages.append(
            self._page(
                "categories.html.j2",
                "categories/index.md",
                "Categories",
                "Every category of training failure.",
                catalog=catalog,
            )
        )
        for category, _count in catalog.categories():
            pages.append(
                self._page(
                    "category.html.j2",
                    f"categories/{category.id.value}/index.md",
                    category.title,
                    category.blurb,
                    category=category,
                    entries=catalog.in_category(category),
                )
            )
        tags = catalog.tags()
        pages.append(self._page("tags.html.j2", "tags/index.md", "Tags", "Every tag.", tags=tags))
        for tag, entries in tags.items():
            pages.append(
                self._page(
                    "tag.html.j2",
                    f"tags/{tag}/index.md",
                    f"Tag: {tag}",
                    f"Training failures tagged {tag}.",
                    tag=tag,
                    entries=entries,
                )
            )
        pages.append(
            self._page(
                "xid.html.j2",
                "xid/index.md",
                "Xid errors compared",
                "Every NVIDIA Xid error in the encyclopedia, side by side.",
                rows=catalog.xid_rows(),
            )
        )
        return pages
