"""The site's machine-readable files: the JSON API, its JSON Schemas, the Atom feed, robots.txt.

`data_files(catalog, site_url)` is a pure function: it returns every file as text, keyed by its
path under the site root, and the site engine writes them beside the pages. Every URL in them is
absolute, built on `site_url` (mkdocs.yml's `site_url`), because a script or a feed reader reads
them without a page to resolve a relative link against.

The JSON files are produced through small pydantic models declared here (or `Entry` itself), so
each file and its published schema come from one definition and cannot drift apart.
"""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.catalog import Catalog
from generator.model.entry import Codes, Entry, Severity, XidAction
from generator.model.inline import inline_plain
from generator.render.markdown import plain_text

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ATOM = "http://www.w3.org/2005/Atom"
SITE_NAME = "Trainwreck"

# Paths under the site root. The /api/ page (templates/pages/api.html.j2) links to all of them.
INDEX_PATH = "api/entries.json"
ENTRY_DIR = "api/entries"
XID_DIR = "api/xid"
ENTRY_SCHEMA_PATH = "api/entry.schema.json"
INDEX_SCHEMA_PATH = "api/entries.schema.json"
XID_SCHEMA_PATH = "api/xid.schema.json"
FEED_PATH = "feed.xml"
ROBOTS_PATH = "robots.txt"
SITEMAP_PATH = "sitemap.xml"  # written by the site engine itself


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class IndexRow(_Out):
    """One entry in /api/entries.json."""

    id: str = Field(description="The entry's id; its full record is at `api`.")
    title: str
    category: str
    tags: tuple[str, ...]
    severity: Severity
    codes: Codes = Field(description="Xid numbers, NCCL result codes and CUDA error names.")
    url: str = Field(description="The entry's page on the site.")
    api: str = Field(description="The entry's full record, /api/entries/<id>.json.")
    updated: dt.date = Field(description="When the entry was last reviewed (`last_reviewed`).")


class EntryIndex(_Out):
    """/api/entries.json: every entry, sorted by id."""

    count: int
    entries: tuple[IndexRow, ...]


class EntryRef(_Out):
    id: str
    title: str
    url: str = Field(description="The entry's page on the site.")
    api: str = Field(description="The entry's full record, /api/entries/<id>.json.")


class XidPointer(_Out):
    """/api/xid/<code>.json: what one NVIDIA Xid code means, its action bucket, and the
    entries that cover it."""

    xid: int
    url: str = Field(description="The code's row in the site's Xid table.")
    meaning: str = Field(description="What the code means, in NVIDIA's catalog's terms.")
    action: XidAction = Field(description="The catalog's immediate action, as a bucket.")
    catalog_resolution: str | None = Field(
        description="The catalog's own resolution words, immediate / investigatory."
    )
    by_generation: str | None = Field(
        description="How the action differs by GPU generation, where it does."
    )
    entries: tuple[EntryRef, ...] = Field(
        min_length=1, description="The entries for this code; the first is the closest match."
    )


def _schema(model: type[BaseModel], title: str) -> dict[str, Any]:
    schema = model.model_json_schema(mode="serialization")
    return {"$schema": JSON_SCHEMA_DIALECT, **schema, "title": title}


def entry_json_schema() -> dict[str, Any]:
    """The JSON Schema of one entry, as /api/entries/<id>.json serialises it."""
    return _schema(Entry, "Trainwreck entry")


def index_json_schema() -> dict[str, Any]:
    return _schema(EntryIndex, "Trainwreck entry index")


def xid_json_schema() -> dict[str, Any]:
    return _schema(XidPointer, "Trainwreck Xid pointer")


def check_site_url(site_url: str) -> str:
    """The site's absolute base URL, always ending in a slash."""
    if not site_url.startswith(("https://", "http://")) or any(c in site_url for c in " <>\"'"):
        raise ValueError(
            f"site_url must be an absolute http(s) URL (mkdocs.yml site_url), got {site_url!r}"
        )
    return site_url if site_url.endswith("/") else site_url + "/"


def entry_url(site_url: str, entry_id: str) -> str:
    return f"{site_url}failures/{entry_id}/"


def _dump(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _with_id(schema: dict[str, Any], site_url: str, path: str) -> dict[str, Any]:
    return {"$schema": schema["$schema"], "$id": site_url + path, **schema}


def _ref(site_url: str, entry: Entry) -> EntryRef:
    return EntryRef(
        id=entry.id,
        title=entry.title,
        url=entry_url(site_url, entry.id),
        api=f"{site_url}{ENTRY_DIR}/{entry.id}.json",
    )


def entry_index(catalog: Catalog, site_url: str) -> EntryIndex:
    rows = tuple(
        IndexRow(
            id=e.id,
            title=e.title,
            category=e.category,
            tags=e.tags,
            severity=e.severity,
            codes=e.codes,
            url=entry_url(site_url, e.id),
            api=f"{site_url}{ENTRY_DIR}/{e.id}.json",
            updated=e.last_reviewed,
        )
        for e in catalog.entries
    )
    return EntryIndex(count=len(rows), entries=rows)


def xid_pointers(catalog: Catalog, site_url: str) -> list[XidPointer]:
    return [
        XidPointer(
            xid=row.code,
            url=f"{site_url}xid/#xid-{row.code}",
            meaning=row.info.meaning,
            action=row.info.action,
            catalog_resolution=row.info.catalog_resolution,
            by_generation=inline_plain(row.info.by_generation) if row.info.by_generation else None,
            entries=tuple(_ref(site_url, e) for e in row.entries),
        )
        for row in catalog.xid_rows()
        if row.info is not None  # validation guarantees a row for every code it publishes
    ]


def _stamp(day: dt.date) -> str:
    return f"{day.isoformat()}T00:00:00Z"


def atom_feed(catalog: Catalog, site_url: str) -> str:
    """An Atom feed (RFC 4287) of every entry, newest `last_reviewed` first."""
    titles = {c.id: c.title for c in catalog.category_list}
    entries: Sequence[Entry] = sorted(
        catalog.entries, key=lambda e: (e.last_reviewed, e.id), reverse=True
    )

    def el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        node = ET.SubElement(parent, tag, attrs)
        node.text = text
        return node

    # Unqualified names under a literal default namespace: ElementTree's own namespace
    # handling would prefix every element ("ns0:entry"), which feed readers accept but people
    # reading the file do not expect.
    feed = ET.Element("feed", {"xmlns": ATOM, "xml:lang": "en"})
    el(feed, "id", site_url + FEED_PATH)
    el(feed, "title", f"{SITE_NAME}: new and updated entries")
    el(feed, "subtitle", "Training failures in the encyclopedia, newest review first.")
    el(feed, "link", rel="self", type="application/atom+xml", href=site_url + FEED_PATH)
    el(feed, "link", rel="alternate", type="text/html", href=site_url)
    el(feed, "updated", _stamp(entries[0].last_reviewed) if entries else "1970-01-01T00:00:00Z")
    author = el(feed, "author")
    el(author, "name", f"{SITE_NAME} contributors")
    el(feed, "generator", SITE_NAME)
    for e in entries:
        url = entry_url(site_url, e.id)
        item = el(feed, "entry")
        el(item, "id", url)
        el(item, "title", e.title, type="text")
        el(item, "link", rel="alternate", type="text/html", href=url)
        el(item, "updated", _stamp(e.last_reviewed))
        el(item, "summary", plain_text(e.summary), type="text")
        el(item, "category", term=e.category, label=titles[e.category])
        for tag in e.tags:
            el(item, "category", term=tag, scheme=f"{site_url}tags/")
    ET.indent(feed)
    body = ET.tostring(feed, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"


def robots_txt(site_url: str) -> str:
    return f"User-agent: *\nAllow: /\n\nSitemap: {site_url}{SITEMAP_PATH}\n"


def data_files(catalog: Catalog, site_url: str) -> dict[str, str]:
    """Every data file of the site: path under the site root -> content."""
    site_url = check_site_url(site_url)
    files: dict[str, str] = {
        INDEX_PATH: entry_index(catalog, site_url).model_dump_json(indent=2) + "\n",
        ENTRY_SCHEMA_PATH: _dump(_with_id(entry_json_schema(), site_url, ENTRY_SCHEMA_PATH)),
        INDEX_SCHEMA_PATH: _dump(_with_id(index_json_schema(), site_url, INDEX_SCHEMA_PATH)),
        XID_SCHEMA_PATH: _dump(_with_id(xid_json_schema(), site_url, XID_SCHEMA_PATH)),
    }
    for entry in catalog.entries:
        files[f"{ENTRY_DIR}/{entry.id}.json"] = entry.model_dump_json(indent=2) + "\n"
    for pointer in xid_pointers(catalog, site_url):
        files[f"{XID_DIR}/{pointer.xid}.json"] = pointer.model_dump_json(indent=2) + "\n"
    files[FEED_PATH] = atom_feed(catalog, site_url)
    files[ROBOTS_PATH] = robots_txt(site_url)
    return files
