"""What the preview (`trainwreck serve`) keeps between saves, so a save redoes only its share.

- `PreviewValidator` gives the same result as `validate_sources`, but each file's parse
  (`load_doc` is memoised) and each per-file check runs again only when that file's bytes
  changed; the cross-entry checks still see every entry.
- `affected_pages` names the pages an edit can change, from the catalogs before and after it;
  `PageCache` re-renders those and reuses every other page's HTML.
- `Skeletons` backs each generated file with a small file in a cache folder, rewritten (and its
  mtime bumped) only when that file's content changed, so a dirty MkDocs build skips the rest.
- `ThemeBytecode` keeps the theme's compiled templates: MkDocs makes a new Jinja environment for
  every build, which would otherwise compile them all again on each save.

Pure apart from `Skeletons`, which writes only inside its own folder.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

from jinja2.bccache import Bucket, BytecodeCache

from generator.catalog import Catalog
from generator.checks import EntryDoc
from generator.model.categories import CATEGORIES, CategoryInfo
from generator.model.entry import Entry
from generator.problems import Problem
from generator.render.pages import RenderedPage, Renderer, category_uri, entry_uri, tag_uri
from generator.validation import (
    SourceFile,
    ValidationResult,
    catalog_problems,
    entry_checks,
    load_doc,
)

# Pages whose content sums up the whole catalog (counts, recent entries, the tag cloud, the
# Xid table, the API examples). They are cheap, so any change to the catalog re-renders them.
SUMMARY_PAGES = frozenset(
    {
        "index.md",
        "categories/index.md",
        "severity/index.md",
        "tags/index.md",
        "xid/index.md",
        "api/index.md",
    }
)


def _links(entry: Entry) -> set[str]:
    return {*entry.related, *entry.collateral}


def affected_pages(old: Catalog, new: Catalog) -> frozenset[str]:
    """The src_uris of the pages of `new` whose HTML can differ from what `old` rendered.

    For each entry added, removed or changed: its own page, the pages of its category and
    tags (before and after), the entries it names as related or collateral (their back-links
    list it) and the entries that name it (their links show its title), before and after;
    plus the summary pages whenever anything changed. Pages that no longer exist are left out.
    """
    changed = {
        entry_id
        for entry_id in old.by_id.keys() | new.by_id.keys()
        if old.by_id.get(entry_id) != new.by_id.get(entry_id)
    }
    if not changed:
        return frozenset()
    pages = set(SUMMARY_PAGES)
    for entry_id in changed:
        for entry in (old.by_id.get(entry_id), new.by_id.get(entry_id)):
            if entry is None:
                continue
            pages.add(entry_uri(entry.id))
            pages.add(category_uri(entry.category))
            pages.update(tag_uri(tag) for tag in entry.tags)
            pages.update(entry_uri(other) for other in _links(entry))
    for catalog in (old, new):
        pages.update(entry_uri(e.id) for e in catalog.entries if _links(e) & changed)
    return frozenset(pages & _page_uris(new))


def _page_uris(catalog: Catalog) -> set[str]:
    uris = set(SUMMARY_PAGES)
    uris.update(entry_uri(e.id) for e in catalog.entries)
    uris.update(category_uri(c.id) for c, _count in catalog.categories())
    uris.update(tag_uri(tag) for tag in catalog.tags())
    return uris


class PageCache:
    """The last catalog and its rendered pages; `update` re-renders only what changed."""

    def __init__(self) -> None:
        self.catalog: Catalog | None = None
        self.renderer: Renderer | None = None
        self.pages: dict[str, RenderedPage] = {}

    def update(
        self, renderer: Renderer, catalog: Catalog
    ) -> tuple[dict[str, RenderedPage], set[str]]:
        """Every page of `catalog`, and the src_uris that were rendered for it.

        Pages are reused only from the same `renderer`: a new one (new templates) renders all.
        """
        fresh = None
        if self.catalog is not None and renderer is self.renderer:
            fresh = affected_pages(self.catalog, catalog)
        pages: dict[str, RenderedPage] = {}
        rendered: set[str] = set()
        for planned in renderer.plan(catalog):
            cached = self.pages.get(planned.src_uri)
            if cached is None or fresh is None or planned.src_uri in fresh:
                cached = planned.render()
                rendered.add(planned.src_uri)
            pages[planned.src_uri] = cached
        self.catalog = catalog
        self.renderer = renderer
        self.pages = pages
        return pages, rendered


class PreviewValidator:
    """`validate_sources(sources)` with the per-file work kept for files that did not change."""

    def __init__(self) -> None:
        self._per_doc: dict[tuple[str, bytes], list[Problem]] = {}
        self._categories: tuple[CategoryInfo, ...] = CATEGORIES

    def validate(
        self, sources: Sequence[SourceFile], categories: Sequence[CategoryInfo] = CATEGORIES
    ) -> ValidationResult:
        docs: list[EntryDoc] = []
        problems: list[Problem] = []
        if tuple(categories) != self._categories:
            # An edited categories.yaml: the category check's verdicts on every file may change.
            self._per_doc = {}
            self._categories = tuple(categories)
        checks = entry_checks(categories)
        per_doc: dict[tuple[str, bytes], list[Problem]] = {}
        for source in sources:
            doc, found = load_doc(source)
            problems.extend(found)
            if doc is None:
                continue
            docs.append(doc)
            key = (source.path, source.raw)
            cached = self._per_doc.get(key)
            if cached is None:
                cached = [p for check in checks for p in check.validate(doc)]
            per_doc[key] = cached
            problems.extend(cached)
        self._per_doc = per_doc  # only the current files: an old version is not kept
        problems.extend(catalog_problems(docs, checks, problems, None))
        return ValidationResult(tuple(docs), tuple(sorted(set(problems))))


class ThemeBytecode(BytecodeCache):
    """Jinja's compiled code for each template, kept in memory. Jinja stores a checksum of the
    template's source with it and compiles again when the source no longer matches, so an
    edit to the theme still shows."""

    def __init__(self) -> None:
        self.codes: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.codes.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.codes[bucket.key] = bucket.bytecode_to_string()


class Skeletons:
    """Small files in `folder` that stand for generated files in a dirty MkDocs build.

    MkDocs rebuilds a page (or copies a file) when its source is newer than its output, so
    each skeleton is rewritten, with an mtime past its output's, only when its content changed.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._digests: dict[str, bytes] = {}

    def path(self, src_uri: str, content: bytes, dest: Callable[[], str]) -> str:
        """The skeleton for `src_uri`; `dest` gives its output path, needed only on a change."""
        digest = hashlib.blake2b(content, digest_size=16).digest()
        target = os.path.join(self.folder, src_uri)
        if self._digests.get(src_uri) != digest or not os.path.exists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(content)
            stamp = time.time_ns()
            output = dest()
            if os.path.exists(output):
                stamp = max(stamp, os.stat(output).st_mtime_ns + 1_000_000)
            os.utime(target, ns=(stamp, stamp))
            self._digests[src_uri] = digest
        return target


# Memoised: most pages are the very objects the page cache kept from the last save.
@lru_cache(maxsize=1 << 14)
def page_fingerprint(page: RenderedPage, theme_stamp: bytes) -> bytes:
    """What a skeleton page holds: enough to change whenever the served page would, which
    is when the page's own content changes or the theme that wraps it (`theme_stamp`)."""
    text = "\0".join((page.title, page.description, page.html))
    digest = hashlib.blake2b(text.encode() + b"\0" + theme_stamp).hexdigest()
    return b"<!-- trainwreck " + digest.encode() + b" -->\n"
