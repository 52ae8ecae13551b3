"""The site's data files (JSON API, schemas, Atom feed, robots.txt) and the entry pages' JSON-LD."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from entry_factory import entry_yaml

from generator.catalog import Catalog
from generator.model.entry import Entry
from generator.render.data_files import (
    JSON_SCHEMA_DIALECT,
    check_site_url,
    data_files,
    entry_json_schema,
)
from generator.render.pages import Renderer, unique_slugs
from generator.render.structured_data import entry_structured_data, script_json

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
SITE = "https://trainwreck.test/docs/"


def entry_from(text: str) -> Entry:
    return Entry.model_validate(yaml.safe_load(text))


def xid79() -> Entry:
    return entry_from(entry_yaml())


def watchdog() -> Entry:
    text = entry_yaml("nccl-watchdog-timeout")
    text = text.replace('title: "Xid 79: GPU has fallen off the bus"', "title: NCCL watchdog")
    text = text.replace("category: gpu-hardware", "category: nccl-distributed")
    text = text.replace("tags: [xid, pcie]", "tags: [nccl]")
    text = text.replace("severity: critical", "severity: high")
    text = text.replace(
        "codes:\n  xid: [79]\n  xid_actions:\n    - code: 79\n"
        "      meaning: GPU has fallen off the bus\n      action: reboot\n",
        "codes:\n  nccl: [ncclSystemError]\n",
    )
    text = text.replace("last_reviewed: 2026-11-29", "last_reviewed: 2026-10-01")
    return entry_from(text)


def catalog() -> Catalog:
    return Catalog.of([xid79(), watchdog()])


def test_every_data_file_by_path() -> None:
    assert sorted(data_files(catalog(), SITE)) == [
        "api/entries.json",
        "api/entries.schema.json",
        "api/entries/nccl-watchdog-timeout.json",
        "api/entries/xid-79-gpu-fallen-off-bus.json",
        "api/entry.schema.json",
        "api/xid.schema.json",
        "api/xid/79.json",
        "feed.xml",
        "robots.txt",
    ]


def test_the_index_lists_every_entry_with_absolute_urls() -> None:
    index = json.loads(data_files(catalog(), SITE)["api/entries.json"])
    assert index == {
        "count": 2,
        "entries": [
            {
                "id": "nccl-watchdog-timeout",
                "title": "NCCL watchdog",
                "category": "nccl-distributed",
                "tags": ["nccl"],
                "severity": "high",
                "codes": {
                    "xid": [],
                    "xid_actions": [],
                    "nccl": ["ncclSystemError"],
                    "signal": [],
                    "cuda": [],
                    "progress": [],
                },
                "url": "https://trainwreck.test/docs/failures/nccl-watchdog-timeout/",
                "api": "https://trainwreck.test/docs/api/entries/nccl-watchdog-timeout.json",
                "updated": "2026-10-01",
            },
            {
                "id": "xid-79-gpu-fallen-off-bus",
                "title": "Xid 79: GPU has fallen off the bus",
                "category": "gpu-hardware",
                "tags": ["xid", "pcie"],
                "severity": "critical",
                "codes": {
                    "xid": [79],
                    "xid_actions": [
                        {
                            "code": 79,
                            "meaning": "GPU has fallen off the bus",
                            "action": "reboot",
                            "catalog_resolution": None,
                            "by_generation": None,
                        }
                    ],
                    "nccl": [],
                    "signal": [],
                    "cuda": [],
                    "progress": [],
                },
                "url": "https://trainwreck.test/docs/failures/xid-79-gpu-fallen-off-bus/",
                "api": "https://trainwreck.test/docs/api/entries/xid-79-gpu-fallen-off-bus.json",
                "updated": "2026-11-29",
            },
        ],
    }


def test_an_entry_file_is_the_whole_validated_entry() -> None:
    entry = xid79()
    text = data_files(catalog(), SITE)["api/entries/xid-79-gpu-fallen-off-bus.json"]
    assert json.loads(text) == entry.model_dump(mode="json")
    assert Entry.model_validate_json(text) == entry


def test_an_xid_file_gives_the_codes_row_and_the_entry_holding_it_first() -> None:
    broad = entry_from(
        entry_yaml("gpu-lost-any-xid").replace(
            "codes:\n  xid: [79]\n  xid_actions:\n    - code: 79\n"
            "      meaning: GPU has fallen off the bus\n      action: reboot\n",
            "codes:\n  xid: [48, 79]\n"
            "  xid_actions: [{code: 48, meaning: Double-bit ECC error, action: reset-gpu}]\n",
        )
    )
    files = data_files(Catalog.of([broad, xid79()]), SITE)
    assert json.loads(files["api/xid/79.json"]) == {
        "xid": 79,
        "url": "https://trainwreck.test/docs/xid/#xid-79",
        "meaning": "GPU has fallen off the bus",
        "action": "reboot",
        "catalog_resolution": None,
        "by_generation": None,
        "entries": [
            {
                "id": "xid-79-gpu-fallen-off-bus",
                "title": "Xid 79: GPU has fallen off the bus",
                "url": "https://trainwreck.test/docs/failures/xid-79-gpu-fallen-off-bus/",
                "api": "https://trainwreck.test/docs/api/entries/xid-79-gpu-fallen-off-bus.json",
            },
            {
                "id": "gpu-lost-any-xid",
                "title": "Xid 79: GPU has fallen off the bus",
                "url": "https://trainwreck.test/docs/failures/gpu-lost-any-xid/",
                "api": "https://trainwreck.test/docs/api/entries/gpu-lost-any-xid.json",
            },
        ],
    }
    assert json.loads(files["api/xid/48.json"])["entries"][0]["id"] == "gpu-lost-any-xid"


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


KINDS = {"entries": "entry", "xid": "xid"}  # api/<folder>/... -> its schema


def test_every_json_file_matches_its_published_schema() -> None:
    files = data_files(catalog(), SITE)
    schemas = {
        name: _validator(json.loads(files[f"api/{name}.schema.json"]))
        for name in ("entry", "entries", "xid")
    }
    checked = []
    for path, text in files.items():
        if not path.endswith(".json") or path.endswith(".schema.json"):
            continue
        kind = "entries" if path == "api/entries.json" else KINDS[path.split("/")[1]]
        errors = [e.message for e in schemas[kind].iter_errors(json.loads(text))]
        assert errors == [], path
        checked.append((kind, path))
    assert sorted(checked) == [
        ("entries", "api/entries.json"),
        ("entry", "api/entries/nccl-watchdog-timeout.json"),
        ("entry", "api/entries/xid-79-gpu-fallen-off-bus.json"),
        ("xid", "api/xid/79.json"),
    ]


def test_the_schemas_reject_what_the_model_rejects() -> None:
    schema = _validator(json.loads(data_files(catalog(), SITE)["api/entry.schema.json"]))
    record = xid79().model_dump(mode="json")
    assert list(schema.iter_errors({**record, "severity": "dire"}))
    assert list(schema.iter_errors({**record, "typo_field": 1}))
    assert list(schema.iter_errors({k: v for k, v in record.items() if k != "summary"}))


def test_the_entry_schema_is_generated_from_the_model() -> None:
    schema = entry_json_schema()
    assert schema == {
        "$schema": JSON_SCHEMA_DIALECT,
        **Entry.model_json_schema(mode="serialization"),
        "title": "Trainwreck entry",
    }
    published = json.loads(data_files(catalog(), SITE)["api/entry.schema.json"])
    assert published == {**schema, "$id": "https://trainwreck.test/docs/api/entry.schema.json"}


def test_the_atom_feed_lists_entries_newest_review_first() -> None:
    feed = data_files(catalog(), SITE)["feed.xml"]
    assert feed == (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">\n'
        "  <id>https://trainwreck.test/docs/feed.xml</id>\n"
        "  <title>Trainwreck: new and updated entries</title>\n"
        "  <subtitle>Training failures in the encyclopedia, newest review first.</subtitle>\n"
        '  <link rel="self" type="application/atom+xml"'
        ' href="https://trainwreck.test/docs/feed.xml" />\n'
        '  <link rel="alternate" type="text/html" href="https://trainwreck.test/docs/" />\n'
        "  <updated>2026-11-29T00:00:00Z</updated>\n"
        "  <author>\n"
        "    <name>Trainwreck contributors</name>\n"
        "  </author>\n"
        "  <generator>Trainwreck</generator>\n"
        "  <entry>\n"
        "    <id>https://trainwreck.test/docs/failures/xid-79-gpu-fallen-off-bus/</id>\n"
        '    <title type="text">Xid 79: GPU has fallen off the bus</title>\n'
        '    <link rel="alternate" type="text/html"'
        ' href="https://trainwreck.test/docs/failures/xid-79-gpu-fallen-off-bus/" />\n'
        "    <updated>2026-11-29T00:00:00Z</updated>\n"
        '    <summary type="text">The driver lost contact with the GPU over PCIe; the device is'
        " gone until a reset.</summary>\n"
        '    <category term="gpu-hardware" label="GPU hardware and driver" />\n'
        '    <category term="xid" scheme="https://trainwreck.test/docs/tags/" />\n'
        '    <category term="pcie" scheme="https://trainwreck.test/docs/tags/" />\n'
        "  </entry>\n"
        "  <entry>\n"
        "    <id>https://trainwreck.test/docs/failures/nccl-watchdog-timeout/</id>\n"
        '    <title type="text">NCCL watchdog</title>\n'
        '    <link rel="alternate" type="text/html"'
        ' href="https://trainwreck.test/docs/failures/nccl-watchdog-timeout/" />\n'
        "    <updated>2026-10-01T00:00:00Z</updated>\n"
        '    <summary type="text">The driver lost contact with the GPU over PCIe; the device is'
        " gone until a reset.</summary>\n"
        '    <category term="nccl-distributed" label="NCCL and distributed" />\n'
        '    <category term="nccl" scheme="https://trainwreck.test/docs/tags/" />\n'
        "  </entry>\n"
        "</feed>\n"
    )


def test_the_feed_escapes_what_an_author_writes() -> None:
    entry = entry_from(
        entry_yaml().replace(
            'title: "Xid 79: GPU has fallen off the bus"', "title: '</title><x>&amp; ]]>'"
        )
    )
    feed = data_files(Catalog.of([entry]), SITE)["feed.xml"]
    ns = {"a": "http://www.w3.org/2005/Atom"}
    titles = [t.text for t in ET.fromstring(feed).findall("a:entry/a:title", ns)]
    assert titles == ["</title><x>&amp; ]]>"]


def test_robots_txt_names_the_sitemap() -> None:
    assert data_files(catalog(), SITE)["robots.txt"] == (
        "User-agent: *\nAllow: /\n\nSitemap: https://trainwreck.test/docs/sitemap.xml\n"
    )


@pytest.mark.parametrize("bad", ["", "/", "trainwreck.test", "ftp://x/", "https://x/<y>"])
def test_the_site_url_must_be_absolute(bad: str) -> None:
    with pytest.raises(ValueError, match="site_url must be an absolute http"):
        data_files(catalog(), bad)


def test_the_site_url_gets_its_trailing_slash() -> None:
    assert check_site_url("https://trainwreck.test/docs") == SITE


# JSON-LD


def test_json_ld_article_and_faq_for_an_entry() -> None:
    entry = xid79()
    ids = unique_slugs([item.q for item in entry.faq], "faq-")
    page = "https://trainwreck.test/docs/failures/xid-79-gpu-fallen-off-bus/"
    assert entry_structured_data(entry, SITE, ids) == [
        {
            "@context": "https://schema.org",
            "@type": "TechArticle",
            "@id": page + "#article",
            "headline": "Xid 79: GPU has fallen off the bus",
            "name": "Xid 79: GPU has fallen off the bus",
            "description": "The driver lost contact with the GPU over PCIe; the device is gone "
            "until a reset.",
            "url": page,
            "mainEntityOfPage": page,
            "image": "https://trainwreck.test/docs/images/social-card.png",
            "dateModified": "2026-11-29",
            "inLanguage": "en",
            "articleSection": "GPU hardware and driver",
            "keywords": "xid, pcie",
            "author": {
                "@type": "Organization",
                "name": "Trainwreck contributors",
                "url": SITE,
            },
            "publisher": {"@type": "Organization", "name": "Trainwreck", "url": SITE},
            "isPartOf": {"@type": "WebSite", "name": "Trainwreck", "url": SITE},
            "citation": ["https://docs.nvidia.com/deploy/xid-errors/index.html"],
        },
        {
            "@context": "https://schema.org",
            "@type": "FAQPage",
            "@id": page + "#faq",
            "url": page + "#faq",
            "name": "Xid 79: GPU has fallen off the bus: FAQ",
            "inLanguage": "en",
            "isPartOf": {"@id": page + "#article"},
            "mainEntity": [
                {
                    "@type": "Question",
                    "@id": page + "#faq-can-i-reset-the-gpu-without-rebooting",
                    "url": page + "#faq-can-i-reset-the-gpu-without-rebooting",
                    "name": "Can I reset the GPU without rebooting?",
                    "acceptedAnswer": {
                        "@type": "Answer",
                        "text": "<p>Sometimes, with <code>nvidia-smi -r</code>, when no process "
                        "holds it.</p>",
                    },
                },
                {
                    "@type": "Question",
                    "@id": page + "#faq-is-it-always-hardware",
                    "url": page + "#faq-is-it-always-hardware",
                    "name": "Is it always hardware?",
                    "acceptedAnswer": {
                        "@type": "Answer",
                        "text": "<p>Almost always; a firmware update fixes some boards.</p>",
                    },
                },
                {
                    "@type": "Question",
                    "@id": page + "#faq-does-it-corrupt-my-checkpoint",
                    "url": page + "#faq-does-it-corrupt-my-checkpoint",
                    "name": "Does it corrupt my checkpoint?",
                    "acceptedAnswer": {
                        "@type": "Answer",
                        "text": "<p>Only a checkpoint being written at the moment of the "
                        "fault.</p>",
                    },
                },
            ],
        },
    ]


def test_script_json_cannot_close_its_script_element() -> None:
    data = {"a": "</script><script>alert(1)</script><!-- & -->", "b": ["\u2028"]}
    text = str(script_json(data))
    assert not re.search(r"[<>&]", text)
    assert json.loads(text) == data


PAYLOAD = "</script><script>alert(1)</script><!--"


def test_an_entry_page_carries_its_json_ld_and_nothing_an_author_wrote_escapes_it() -> None:
    text = entry_yaml()
    text = text.replace('title: "Xid 79: GPU has fallen off the bus"', f"title: '{PAYLOAD}'")
    text = text.replace("  - q: Is it always hardware?", f"  - q: '{PAYLOAD}'")
    text = text.replace(
        "    a: Almost always;", "    a: '`</script>` [x](xid-79-gpu-fallen-off-bus#faq)'\n#"
    )
    entry = entry_from(text)
    html = Renderer(TEMPLATES, site_url=SITE).entry(entry, Catalog.of([entry])).html
    assert html.count("<script") == 2
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert len(blocks) == 2
    article, faq = (json.loads(b) for b in blocks)
    assert article["headline"] == PAYLOAD
    question = faq["mainEntity"][1]
    assert question["name"] == PAYLOAD
    assert question["acceptedAnswer"]["text"] == (
        "<p><code>&lt;/script&gt;</code> <a href="
        '"https://trainwreck.test/docs/failures/xid-79-gpu-fallen-off-bus/#faq">x</a></p>'
    )
    # The question's anchor on the page is the one the JSON-LD names.
    anchor = question["url"].split("#")[1]
    assert f'<h3 id="{anchor}">' in html


def test_without_a_site_url_an_entry_page_has_no_json_ld() -> None:
    entry = xid79()
    html = Renderer(TEMPLATES).entry(entry, Catalog.of([entry])).html
    assert "<script" not in html


def test_repeated_questions_get_distinct_anchors() -> None:
    assert unique_slugs(["Why?", "Why!", "Other", "why"], "faq-") == [
        "faq-why",
        "faq-why-2",
        "faq-other",
        "faq-why-3",
    ]


def test_the_api_page_is_rendered_with_the_other_pages() -> None:
    pages = {p.src_uri: p for p in Renderer(TEMPLATES, site_url=SITE).all_pages(catalog())}
    api = pages["api/index.md"]
    assert api.title == "API and feed"
    for link in (
        "../api/entries.json",
        "../api/entries.schema.json",
        "../api/entry.schema.json",
        "../api/xid.schema.json",
        "../api/xid/79.json",
        "../api/entries/xid-79-gpu-fallen-off-bus.json",
        "../feed.xml",
    ):
        assert f'href="{link}"' in api.html, link
    assert "curl -fsS https://trainwreck.test/docs/api/xid/79.json" in api.html
    assert [h.id for h in api.toc] == ["files", "examples", "fields", "schemas", "feed"]
