"""The benchmark page ("How well does it diagnose?") shows the committed score as a reader
reads it: the groups, the frameworks, before and after, and what is missed; and a build without
a score file still has the page, saying where the figures come from."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from entry_factory import entry_yaml

from generator.catalog import Catalog
from generator.render.pages import Benchmark, Renderer, benchmark_context
from tests.render.test_pages import TEMPLATES, entry_from

REPO = Path(__file__).resolve().parents[2]
GROUP = {"cases": 4, "named": 1, "line_shown": 3, "useful": 3, "silent": 1,
         "covered": {"named": 1, "of": 2}}  # fmt: skip
SCORE = {
    "date": "2026-12-07",
    "figures": {
        "groups": {"unbiased": GROUP, "negative": {"cases": 2, "clean": 1}},
        "failing": GROUP,
        "frameworks": {
            "trl": {**GROUP, "cases": 1, "line_shown": 1, "useful": 1, "silent": 0},
            "pytorch": GROUP,
        },
    },
    "misses": {"no-entry": 2, "not-clean": 1},
    "miss_kinds": {
        "no-entry": "the catalog has no entry for it, and the error line was not shown",
        "not-clean": "a healthy log was reported as failing",
    },
    "unnamed": [["<script>x</script>", 2, 0], ["cuda-out-of-memory", 1, 1]],
    "cases": {},
}
BASELINE = {"commit": "7f60d1e", "date": "2026-12-07", "figures": {
    "groups": {"unbiased": {**GROUP, "named": 0, "line_shown": 1, "silent": 3}}}}  # fmt: skip


def text_of(benchmark: Benchmark | None) -> list[str]:
    entry = entry_from(entry_yaml())
    pages = {
        p.src_uri: p for p in Renderer(TEMPLATES, benchmark=benchmark).plan(Catalog.of([entry]))
    }
    body = pages["benchmark/index.md"].render().html
    lines = re.sub(r"<[^>]+>", "", body).splitlines()
    return [html.unescape(" ".join(line.split())) for line in lines if line.strip()]


def test_the_figures_by_group_and_framework_before_and_after_and_the_misses() -> None:
    text = text_of(Benchmark(SCORE, BASELINE))
    start = text.index("The figures")
    assert text[start:] == [
        "The figures",
        "GroupCasesNamedLine shownUsefulSilentFirst rank rightClean",
        "Taken as they came4",
        "1 of 4 (25%)3 of 4 (75%)3 of 4 (75%)1 of 4 (25%)",
        "—",
        "—",
        "Healthy logs people asked about2",
        "————",
        "—",
        "1 of 2 (50%)",
        "All failing cases4",
        "1 of 4 (25%)3 of 4 (75%)3 of 4 (75%)1 of 4 (25%)",
        "—",
        "—",
        "Before and after, on the failures taken as they came: named 0 of 4 (0%) → 1 of 4 (25%);"
        " line shown 1 of 4 (25%) → 3 of 4 (75%); silent 3 of 4 (75%) → 1 of 4 (25%). Where the"
        " catalog has an entry for the failure, it names it for 1 of 2 (50%).",
        "By framework",
        "Failing cases only, by the training stack the run used.",
        "FrameworkCasesNamedUsefulSilent",
        "pytorch41 of 4 (25%)3 of 4 (75%)1 of 4 (25%)",
        "trl11 of 1 (100%)1 of 1 (100%)0 of 1 (0%)",
        "Where it falls short",
        "Every case that was not a full hit, by what went wrong:",
        "2 the catalog has no entry for it, and the error line was not shown.",
        "1 a healthy log was reported as failing.",
        "The failures it did not name, most often missed first (the number of cases, and whether"
        " the catalog has an entry for that failure):",
        "<script>x</script> 2",
        "cuda-out-of-memory 1 (has an entry, whose signatures missed the lines as pasted)",
        "To reproduce the figures: make realeval in a clone of the repository. The cases, their"
        " logs and the journal of how they were drawn are in corpus/real/.",
    ]


def test_a_label_from_the_cases_is_text_never_markup() -> None:
    entry = entry_from(entry_yaml())
    pages = {
        p.src_uri: p
        for p in Renderer(TEMPLATES, benchmark=Benchmark(SCORE)).plan(Catalog.of([entry]))
    }
    body = pages["benchmark/index.md"].render().html
    assert "<script>x</script>" not in body
    assert "&lt;script&gt;x&lt;/script&gt;" in body


def test_without_a_score_the_page_says_where_the_figures_come_from() -> None:
    assert text_of(None) == [
        "How well does it diagnose?",
        "This build has no score of the real-failure benchmark: its cases live in corpus/real/ of"
        " the Trainwreck repository, and make realeval writes the score the page shows.",
    ]


def test_the_committed_score_and_baseline_have_what_the_page_reads() -> None:
    score = json.loads((REPO / "corpus" / "real" / "score.json").read_text())
    baseline = json.loads((REPO / "corpus" / "real" / "baseline.json").read_text())
    context = benchmark_context(Benchmark(score, baseline))
    assert context["total"] == len(score["cases"])
    assert set(context["miss_words"]) >= set(score["misses"])
