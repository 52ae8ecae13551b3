"""Machine-readable: /api/ JSON files, their JSON Schemas, the /api/ page, and the Atom feed.

Every file is fetched by Chromium from the real build, and every JSON file is validated
against the schema the site publishes beside it.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import jsonschema
import pytest

from generator.catalog import Catalog
from generator.model.entry import Entry
from generator.render.data_files import entry_json_schema

pytestmark = pytest.mark.browser

SCHEMAS = {
    "entries": "/api/entries.schema.json",
    "entry": "/api/entry.schema.json",
    "xid": "/api/xid.schema.json",
}
INDEX_FIELDS = ["id", "title", "category", "tags", "severity", "codes", "url", "api", "updated"]


def load_json(fetched: dict[str, tuple[int, str, str]]) -> dict[str, Any]:
    bad = {path: status for path, (status, _, _) in fetched.items() if status != 200}
    assert bad == {}
    return {path: json.loads(text) for path, (_, _, text) in fetched.items()}


@pytest.fixture()
def validators(fetch) -> dict[str, jsonschema.Draft202012Validator]:  # type: ignore[no-untyped-def]
    schemas = load_json(fetch(list(SCHEMAS.values())))
    found = {}
    for kind, path in SCHEMAS.items():
        schema = schemas[path]
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(schema)
        found[kind] = jsonschema.Draft202012Validator(
            schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        )
    return found


def errors(validator: jsonschema.Draft202012Validator, data: object) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]


def test_the_index_lists_every_entry_and_matches_its_schema(
    site_url: str,
    fetch,  # type: ignore[no-untyped-def]
    validators: dict[str, jsonschema.Draft202012Validator],
    catalog: Catalog,
) -> None:
    index = load_json(fetch(["/api/entries.json"]))["/api/entries.json"]
    assert errors(validators["entries"], index) == []
    assert index["count"] == len(catalog.entries)
    assert [row["id"] for row in index["entries"]] == [e.id for e in catalog.entries]
    for row in index["entries"]:
        entry = catalog.by_id[row["id"]]
        assert list(row) == INDEX_FIELDS
        assert row == {
            "id": entry.id,
            "title": entry.title,
            "category": entry.category,
            "tags": list(entry.tags),
            "severity": entry.severity.value,
            "codes": entry.codes.model_dump(mode="json"),
            "url": f"{site_url}/failures/{entry.id}/",
            "api": f"{site_url}/api/entries/{entry.id}.json",
            "updated": entry.last_reviewed.isoformat(),
        }
    # Every URL in the index answers.
    paths = [u.removeprefix(site_url) for r in index["entries"] for u in (r["url"], r["api"])]
    assert {p: s for p, (s, _, _) in fetch(paths).items() if s != 200} == {}


def test_every_entry_file_is_the_full_validated_entry_and_matches_its_schema(
    fetch,  # type: ignore[no-untyped-def]
    validators: dict[str, jsonschema.Draft202012Validator],
    catalog: Catalog,
) -> None:
    files = load_json(fetch([f"/api/entries/{e.id}.json" for e in catalog.entries]))
    problems = {path: errors(validators["entry"], data) for path, data in files.items()}
    assert {path: found for path, found in problems.items() if found} == {}
    for entry in catalog.entries:
        data = files[f"/api/entries/{entry.id}.json"]
        assert Entry.model_validate(data) == entry
        assert data == entry.model_dump(mode="json")


def test_every_xid_file_points_at_the_entries_for_that_code(
    site_url: str,
    fetch,  # type: ignore[no-untyped-def]
    validators: dict[str, jsonschema.Draft202012Validator],
    catalog: Catalog,
) -> None:
    codes = sorted({row.code for row in catalog.xid_rows()})
    assert 79 in codes
    files = load_json(fetch([f"/api/xid/{code}.json" for code in codes]))
    for code in codes:
        data = files[f"/api/xid/{code}.json"]
        assert errors(validators["xid"], data) == []
        assert data["xid"] == code
        assert data["url"] == f"{site_url}/xid/#xid-{code}"
        expected = {e.id for e in catalog.entries if code in e.codes.xid}
        assert {ref["id"] for ref in data["entries"]} == expected
        for ref in data["entries"]:
            assert ref == {
                "id": ref["id"],
                "title": catalog.by_id[ref["id"]].title,
                "url": f"{site_url}/failures/{ref['id']}/",
                "api": f"{site_url}/api/entries/{ref['id']}.json",
            }
    # A script that asks for a code with no entry gets a 404, not a page.
    assert fetch(["/api/xid/1.json"])["/api/xid/1.json"][0] == 404


def test_the_published_entry_schema_is_the_models(
    site_url: str,
    fetch,  # type: ignore[no-untyped-def]
) -> None:
    published = load_json(fetch([SCHEMAS["entry"]]))[SCHEMAS["entry"]]
    assert published == {**entry_json_schema(), "$id": f"{site_url}/api/entry.schema.json"}


def test_the_api_page_documents_every_file_and_links_the_schemas(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
    fetch,  # type: ignore[no-untyped-def]
) -> None:
    page.goto(f"{site_url}/api/")
    assert page.locator("h1").inner_text() == "API and feed"
    text = page.locator("article").inner_text()
    for documented in [
        "/api/entries.json",
        "/api/entries/<id>.json",
        "/api/xid/<code>.json",
        "/feed.xml",
        *INDEX_FIELDS,
    ]:
        assert documented in text, documented
    hrefs = page.eval_on_selector_all("article a[href]", "as => as.map(a => a.href)")
    local = sorted({h[len(site_url) :].split("#")[0] for h in hrefs if h.startswith(site_url)})
    for schema in SCHEMAS.values():
        assert schema in local
    # Every link on the page works, schemas and examples included.
    assert {p: s for p, (s, _, _) in fetch(local).items() if s != 200} == {}
    # The page is reachable from the navigation and from the home page.
    page.goto(f"{site_url}/")
    assert page.locator('a[href$="api/"]').count() >= 2
    assert page.errors == []


ATOM = {"a": "http://www.w3.org/2005/Atom"}


def test_the_atom_feed_lists_every_entry_newest_review_first(
    site_url: str,
    fetch,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    status, _, text = fetch(["/feed.xml"])["/feed.xml"]
    assert status == 200
    feed = ET.fromstring(text)
    assert feed.tag == "{http://www.w3.org/2005/Atom}feed"
    # RFC 4287: a feed has an id, a title, an updated time and an author (or one per entry).
    for required in ("a:id", "a:title", "a:updated", "a:author/a:name"):
        assert feed.findtext(required, namespaces=ATOM), required
    self_link = feed.find("a:link[@rel='self']", ATOM)
    assert self_link is not None and self_link.get("href") == f"{site_url}/feed.xml"
    entries = feed.findall("a:entry", ATOM)
    got = [
        (
            e.findtext("a:updated", namespaces=ATOM),
            e.find("a:link[@rel='alternate']", ATOM).get("href"),  # type: ignore[union-attr]
            e.findtext("a:title", namespaces=ATOM),
        )
        for e in entries
    ]
    expected = [
        (f"{e.last_reviewed.isoformat()}T00:00:00Z", f"{site_url}/failures/{e.id}/", e.title)
        for e in sorted(catalog.entries, key=lambda e: (e.last_reviewed, e.id), reverse=True)
    ]
    assert got == expected
    assert feed.findtext("a:updated", namespaces=ATOM) == expected[0][0]
    for entry in entries:
        assert entry.findtext("a:id", namespaces=ATOM)
        assert entry.findtext("a:summary", namespaces=ATOM)
