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
_SECTION = re.compile(r'<section class="tw-section">\s*<h2 id="monitor".*?</section>', re.S)


def test_entry_page_shows_the_three_queries(corpus: Corpus) -> None:
    by_id = {e.id: e for e in corpus.entries}
    entry = by_id["cuda-misaligned-address"]
    catalog = Catalog.of(list(corpus.entries))
    page = Renderer(TEMPLATES, site_url=SITE, monitor=site.monitor).entry(entry, catalog).html
    (section,) = _SECTION.findall(page)
    shown = [
        (t, html.unescape(q))
        for t, q in re.findall(
            r'<figure class="tw-monitor" data-target="(\w+)">.*?<code>(.*?)</code>', section, re.S
        )
    ]
    expected = [
        (t, convert([entry], SITE, t).queries[0].query) for t in ("loki", "elasticsearch", "splunk")
    ]
    assert shown == expected
    # A noise entry has no rule, so no section; without the extra no entry has one.
    quiet = by_id["nccl-net-plugin-not-found-noise"]
    assert _SECTION.findall(Renderer(TEMPLATES, SITE, site.monitor).entry(quiet, catalog).html) == []
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
        assert {s["entry"] for s in document["skipped"]} == {e.id for e in corpus.entries} - exported
