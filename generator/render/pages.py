"""Entries and the catalog rendered into page bodies, through the Jinja2 templates.

Every page is produced here as finished HTML plus its table of contents; the site engine only
wraps it in the theme. Templates run with autoescape on, so every value from an entry is
escaped unless it went through `render_markdown`, which escapes on its own terms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from generator.catalog import Catalog
from generator.model.entry import Entry
from generator.model.inline import inline_plain
from generator.model.invisible import show_invisible
from generator.render import data_files
from generator.render.markdown import (
    plain_text,
    render_inline_marks,
    render_markdown,
    render_markdown_at,
)
from generator.render.structured_data import entry_structured_data, script_json

# The engines of /api/rules/<engine>.json (generator/fleet/site.py writes them).
QUERY_TARGETS = ("loki", "elasticsearch", "splunk", "sqlite", "duckdb", "spark")


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    title: str


def entry_uri(entry_id: str) -> str:
    return f"failures/{entry_id}/index.md"


def category_uri(category: str) -> str:
    return f"categories/{category}/index.md"


def tag_uri(tag: str) -> str:
    return f"tags/{tag}/index.md"


@dataclass(frozen=True)
class RenderedPage:
    src_uri: str  # e.g. "failures/nan-loss/index.md"; served at /failures/nan-loss/
    title: str  # plain text; the site engine escapes it
    description: str
    html: str
    toc: tuple[Heading, ...]
    # False for pages that only list entries: in the full-text search they would repeat every
    # entry's title and summary as extra results.
    searchable: bool = True


@dataclass(frozen=True)
class PlannedPage:
    src_uri: str
    render: Callable[[], RenderedPage]


def slug(text: str, limit: int = 60) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:limit].rstrip("-") or "item"


def unique_slugs(texts: list[str], prefix: str) -> list[str]:
    """One anchor per text, `prefix` + its slug; a repeated slug gets -2, -3, ..."""
    seen: set[str] = set()
    out: list[str] = []
    for text in texts:
        base = prefix + slug(text)
        anchor, n = base, 1
        while anchor in seen:
            n += 1
            anchor = f"{base}-{n}"
        seen.add(anchor)
        out.append(anchor)
    return out


def _root(src_uri: str) -> str:
    depth = src_uri.count("/")
    # index.md at the top sits at the root; "x/index.md" is one level down.
    return "../" * depth


_HEADING = re.compile(r'<h([23]) id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.S)
_TAG = re.compile(r"<[^>]+>")


def _toc(html: str) -> tuple[Heading, ...]:
    from html import unescape

    return tuple(
        Heading(int(level), anchor, unescape(_TAG.sub("", _HEADERLINK.sub("", inner))).strip())
        for level, anchor, inner in _HEADING.findall(html)
    )


@dataclass(frozen=True)
class Benchmark:
    """What the benchmark page shows: `score` is corpus/real/score.json (realeval/scorefile.py
    writes it), `baseline` corpus/real/baseline.json, each as read, or None."""

    score: dict[str, Any]
    baseline: dict[str, Any] | None = None


def benchmark_context(benchmark: Benchmark | None) -> dict[str, Any]:
    """The benchmark page's values, the score's groups in their file order."""
    if benchmark is None:
        return {"score": None}
    score = benchmark.score
    figures = score["figures"]
    base = benchmark.baseline
    return {
        "score": score,
        "baseline": base,
        "total": sum(g["cases"] for g in figures["groups"].values()),
        "groups": [*figures["groups"].items(), ("all failing", figures["failing"])],
        "frameworks": sorted(
            figures["frameworks"].items(), key=lambda kv: (-kv[1]["cases"], kv[0])
        ),
        "now": figures["groups"].get("unbiased", figures["failing"]),
        "before": (base["figures"]["groups"].get("unbiased") if base else None),
        "misses": list(score["misses"].items()),
        "miss_words": score.get("miss_kinds", {}),
        "unnamed": score.get("unnamed", []),
    }


class Renderer:
    """Renders pages from `templates_dir`. `site_url` (mkdocs.yml's, absolute, ending in "/")
    is needed for the absolute URLs of the JSON-LD and the /api/ page's examples; without it
    entry pages carry no JSON-LD."""

    def __init__(
        self,
        templates_dir: Path,
        site_url: str = "",
        monitor: Callable[[Entry], Sequence[tuple[str, str, str, str | None]]] | None = None,
        benchmark: Benchmark | None = None,
    ) -> None:
        self.site_url = data_files.check_site_url(site_url) if site_url else ""
        # The real-failure benchmark's score and baseline (corpus/real/), for its page.
        self.benchmark = benchmark
        # An entry's (engine, label, query, note) rows for its "Monitor it" section (fleet/site.py).
        self.monitor = monitor
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
        self.env.filters["marks"] = render_inline_marks

    def _page(
        self,
        template: str,
        src_uri: str,
        title: str,
        description: str,
        *,
        searchable: bool = True,
        **context: object,
    ) -> RenderedPage:
        root = _root(src_uri)

        def md(text: str) -> Markup:
            return render_markdown(text, root)

        def md_inline(text: str) -> Markup:
            return render_markdown(text, root, inline=True)

        page_path = src_uri.removesuffix("index.md")
        html = self.env.get_template(template).render(
            root=root,
            md=md,
            md_inline=md_inline,
            page_url=self.site_url + page_path if self.site_url else "",
            **context,
        )
        # Bidi controls and zero-width characters that prose may hold are shown, not obeyed.
        html, title, description = map(show_invisible, (html, title, description))
        return RenderedPage(src_uri, title, description, html, _toc(html), searchable)

    def entry(self, entry: Entry, catalog: Catalog) -> RenderedPage:
        faq_ids = unique_slugs([inline_plain(item.q) for item in entry.faq], "faq-")
        src_uri = entry_uri(entry.id)
        # Each answer is parsed once for the page (links relative) and the JSON-LD (absolute).
        roots = (_root(src_uri), self.site_url) if self.site_url else (_root(src_uri),)
        answers = [render_markdown_at(item.a, roots) for item in entry.faq]
        structured = (
            [
                script_json(d)
                for d in entry_structured_data(
                    entry,
                    self.site_url,
                    faq_ids,
                    catalog.category(entry.category).title,
                    answers=[absolute for _, absolute in answers],
                )
            ]
            if self.site_url
            else []
        )
        return self._page(
            "entry.html.j2",
            src_uri,
            entry.title,
            plain_text(entry.summary),
            entry=entry,
            catalog=catalog,
            referenced_by=catalog.referenced_by(entry.id),
            faq=list(zip(faq_ids, entry.faq, [a[0] for a in answers], strict=True)),
            structured_data=structured,
            monitor=list(self.monitor(entry)) if self.monitor else [],
        )

    def all_pages(self, catalog: Catalog) -> list[RenderedPage]:
        return [page.render() for page in self.plan(catalog)]

    def plan(self, catalog: Catalog) -> list[PlannedPage]:
        """Every page of the site, each rendered only when asked: the preview renders just
        the pages an edit can change and reuses the others."""
        pages = [
            PlannedPage(entry_uri(e.id), partial(self.entry, e, catalog)) for e in catalog.entries
        ]

        def add(
            template: str,
            src_uri: str,
            title: str,
            description: str,
            *,
            searchable: bool = True,
            **context: object,
        ) -> None:
            page = partial(
                self._page,
                template,
                src_uri,
                title,
                description,
                searchable=searchable,
                **context,
            )
            pages.append(PlannedPage(src_uri, page))

        tags = catalog.tags()
        add(
            "home.html.j2",
            "index.md",
            "Trainwreck",
            "An open encyclopedia of ML training failures, with a log diagnoser.",
            catalog=catalog,
            tags=tags,
        )
        add(
            "categories.html.j2",
            "categories/index.md",
            "Categories",
            "Every category of training failure.",
            catalog=catalog,
        )
        for category, _count in catalog.categories():
            add(
                "category.html.j2",
                category_uri(category.id),
                category.title,
                category.blurb,
                category=category,
                entries=catalog.in_category(category),
                searchable=False,
            )
        add(
            "severity.html.j2",
            "severity/index.md",
            "By severity",
            "Every training failure by how badly it hurts a run, critical first.",
            groups=catalog.by_severity(),
            searchable=False,
        )
        add("tags.html.j2", "tags/index.md", "Tags", "Every tag.", tags=tags)
        for tag, entries in tags.items():
            add(
                "tag.html.j2",
                tag_uri(tag),
                f"Tag: {tag}",
                f"Training failures tagged {tag}.",
                tag=tag,
                entries=entries,
                searchable=False,
            )
        add(
            "xid.html.j2",
            "xid/index.md",
            "Xid errors compared",
            "Every NVIDIA Xid error in the encyclopedia, side by side.",
            rows=catalog.xid_rows(),
        )
        pages.append(PlannedPage("api/index.md", partial(self._api_page, catalog)))
        add(
            "diagnose.html.j2",
            "diagnose/index.md",
            "Diagnose a log",
            "Paste a training log and get the failure, the first failed rank and the fix; "
            "the log never leaves your browser.",
        )
        add(
            "benchmark.html.j2",
            "benchmark/index.md",
            "How well does it diagnose?",
            "The diagnosis scored on real training failures from public issue threads: the "
            "method, the figures by group and framework, and what it cannot do yet.",
            **benchmark_context(self.benchmark),
        )
        return pages

    def _api_page(self, catalog: Catalog) -> RenderedPage:
        pointers = {p.xid: p for p in data_files.xid_pointers(catalog, self.site_url or "/")}
        codes = list(pointers)
        example_xid = 79 if 79 in pointers else (codes[0] if codes else None)
        example_entry = (
            catalog.by_id[pointers[example_xid].entries[0].id]
            if example_xid is not None
            else (catalog.entries[0] if catalog.entries else None)
        )
        return self._page(
            "api.html.j2",
            "api/index.md",
            "API and feed",
            "The encyclopedia as JSON for scripts, its JSON Schemas, and the Atom feed.",
            catalog=catalog,
            xid_codes=codes,
            example_xid=example_xid,
            example_entry=example_entry,
            base=self.site_url or "https://your-site.example/",
            rules=list(QUERY_TARGETS) if self.monitor and self.site_url else [],
            paths={
                "index": data_files.INDEX_PATH,
                "entry_dir": data_files.ENTRY_DIR,
                "xid_dir": data_files.XID_DIR,
                "entry_schema": data_files.ENTRY_SCHEMA_PATH,
                "index_schema": data_files.INDEX_SCHEMA_PATH,
                "xid_schema": data_files.XID_SCHEMA_PATH,
                "feed": data_files.FEED_PATH,
                "sitemap": data_files.SITEMAP_PATH,
                "robots": data_files.ROBOTS_PATH,
            },
        )
