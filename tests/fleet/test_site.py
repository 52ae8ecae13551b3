"""The site's "Monitor it" section and /api/rules/: the queries are the backends' own, escaped
on the page, and the rule files hold every exported entry."""

from __future__ import annotations

import html
import json
import re

import pytest
import yaml

from generator.catalog import Catalog
from generator.fleet import site
from generator.fleet.backends import convert
from generator.render.pages import Renderer
from tests.fleet.corpus import ROOT, SITE, Corpus

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
TEMPLATES = ROOT / "templates"
_ROW = re.compile(
    r'<div class="tw-monitor" data-target="(\w+)">.*?</strong>(.*?)</p>.*?<code>(.*?)</code>', re.S
)
_SECTION = re.compile(r'<section class="tw-section">\s*<h2 id="monitor".*?</section>', re.S)


def test_entry_page_shows_the_three_queries(corpus: Corpus) -> None:
    by_id = {e.id: e for e in corpus.entries}
    entry = by_id["cuda-misaligned-address"]
    catalog = Catalog.of(list(corpus.entries))
    page = Renderer(TEMPLATES, site_url=SITE, monitor=site.monitor).entry(entry, catalog).html
    (section,) = _SECTION.findall(page)
    shown = [(t, html.unescape(note), html.unescape(q)) for t, note, q in _ROW.findall(section)]
    expected = []
    for target in ("loki", "elasticsearch", "splunk"):
        (query,) = convert([entry], SITE, target).queries
        note = f' <span class="tw-muted">({query.note})</span>' if query.note else ""
        expected.append((target, note, query.query.strip()))
    assert shown == expected
    # Its THCudaCheck signature has a {token}, which Lucene writes less exactly: said on the page.
    assert expected[1][1] != ""
    # A noise entry has no rule, so no section; without the extra no entry has one.
    quiet = by_id["nccl-net-plugin-not-found-noise"]
    noise_page = Renderer(TEMPLATES, SITE, site.monitor).entry(quiet, catalog).html
    assert _SECTION.findall(noise_page) == []
    assert _SECTION.findall(Renderer(TEMPLATES, SITE).entry(entry, catalog).html) == []


def test_rule_files_hold_every_exported_entry(corpus: Corpus) -> None:
    from sigma.collection import SigmaCollection

    files = site.rule_files(list(corpus.entries), SITE)
    assert sorted(files) == sorted(
        ["api/rules/sigma.yml", "api/rules/loki-rules.yaml"]
        + [f"api/rules/{t}.json" for t in site.QUERY_TARGETS]
    )
    exported = {q.entry for q in convert(corpus.entries, SITE, "loki").queries}
    rules = SigmaCollection.from_yaml(files["api/rules/sigma.yml"])
    assert len(rules.rules) == len(exported)
    assert all(r.errors == [] for r in rules.rules)
    ruler = yaml.safe_load(files["api/rules/loki-rules.yaml"])
    assert {r["alert"] for r in ruler["groups"][0]["rules"]} == exported
    for target in site.QUERY_TARGETS:
        document = json.loads(files[f"api/rules/{target}.json"])
        assert {q["entry"] for q in document["queries"]} == exported
        skipped = {s["entry"] for s in document["skipped"]}
        assert skipped == {e.id for e in corpus.entries} - exported


def test_site_rules_rows_are_each_entrys_own_queries(corpus: Corpus) -> None:
    """The build reads the pages' "Monitor it" rows from the catalog's conversion: each row is
    the one `monitor` converts from the entry alone, and an entry with no rule has none."""
    rules = site.site_rules(list(corpus.entries), SITE)
    assert rules.files == site.rule_files(list(corpus.entries), SITE)
    assert {e.id: rules.monitor(e) for e in corpus.entries} == {
        e.id: site.monitor(e) for e in corpus.entries
    }
    assert any(rules.monitor(e) == () for e in corpus.entries)
