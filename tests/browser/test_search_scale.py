"""Search on a catalog of 1,000 entries (bench/synth.py): a pasted error line still finds its
entry first, from the few signature shards its words name, full-text results come from
Pagefind's shards, and nothing is fetched from anywhere but the site. Built once per session;
bench/search_browser.py times the same steps.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.diagnose.index import index_from_data
from generator.diagnose.pattern import Matcher
from generator.diagnose.search_shards import layout
from generator.mkdocs_glue import build_site

from .conftest import REPO, serve_dir
from .searching import search

sys.path.insert(0, str(REPO / "bench"))
from synth import write_catalog

pytestmark = pytest.mark.browser

ENTRY = "xid-31-mmu-page-fault-c3"
HITS = ".md-search-result .tw-sig-hits"


@pytest.fixture(scope="session")
def synthetic_1k(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    project = tmp_path_factory.mktemp("synthetic-1k")
    # Whole copies of the real catalog, as many as reach 1,000 entries: of the entries with
    # signatures (bench/synth.py leaves out those only progress lines' numbers show).
    real = sum(1 for p in (REPO / "entries").glob("*/*.yaml") if "\nsignatures:" in p.read_text())
    assert write_catalog(project, 1000) == real * -(-1000 // real)
    out = project / "site"
    out.mkdir()
    server, url = serve_dir(out)
    saved = os.environ.get("TRAINWRECK_SITE_URL")
    os.environ["TRAINWRECK_SITE_URL"] = url + "/"
    try:
        build_site(project / "mkdocs.yml", out)
    finally:
        if saved is None:
            del os.environ["TRAINWRECK_SITE_URL"]
        else:
            os.environ["TRAINWRECK_SITE_URL"] = saved
    yield project, url
    server.shutdown()


def xid_line(project: Path) -> str:
    """The Xid line of ENTRY's first copy's examples, as a reader would paste it."""
    entry = yaml.safe_load((project / "entries" / "gpu-hardware" / f"{ENTRY}.yaml").read_text())
    return next(
        line
        for example in entry["examples"]
        for line in example["log"].splitlines()
        if line.startswith("cp3x ") and "Xid" in line
    )


def paste_into_search(page: Any, url: str, line: str) -> list[str]:
    """Paste `line` into the home page's search box; the entry ids of the signature hits."""
    page.goto(f"{url}/")
    page.click(".md-search__input")
    page.evaluate("text => navigator.clipboard.writeText(text)", line)
    page.keyboard.press("Control+V")
    page.wait_for_selector(f'{HITS}:not([hidden]) li[data-entry-id="{ENTRY}"]')
    ids: list[str] = page.eval_on_selector_all(
        f"{HITS} li[data-entry-id]", "ls => ls.map(l => l.dataset.entryId)"
    )
    return ids


def test_a_pasted_error_line_finds_its_entry_among_1000(browser, synthetic_1k) -> None:  # type: ignore[no-untyped-def]
    project, url = synthetic_1k
    line = xid_line(project)
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    ids = paste_into_search(page, url, line)
    assert ids[0] == ENTRY
    # The full-text results arrive too, below the exact hits, from Pagefind's shards.
    page.wait_for_selector(".md-search-result__list li")
    assert [r for r in requests if not r.startswith(url + "/")] == []
    assert [r for r in requests if "/pagefind/" in r and "/index/" in r]
    assert errors == []
    context.close()


def test_a_pasted_line_fetches_only_the_signature_shards_its_words_name(  # type: ignore[no-untyped-def]
    browser, synthetic_1k
) -> None:
    project, url = synthetic_1k
    site = project / "site"
    index = index_from_data(json.loads((site / "signatures.json").read_text()))
    plan = layout(index)
    line = xid_line(project)
    # What the whole index says of the line: the box must show the same entries, in the
    # engine's order (matchText: an entry a defining signature names first, then index order).
    first: dict[str, int] = {}
    defining: set[str] = set()
    for n, sig in enumerate(index.signatures):
        if Matcher(sig.pattern).search(line):
            first.setdefault(sig.entry, n)
            if sig.role == "defining":
                defining.add(sig.entry)
    whole = sorted(first, key=lambda e: (e not in defining, first[e]))
    assert whole[0] == ENTRY
    expected = {f"{url}/signatures/search/index.json"} | {
        f"{url}/signatures/search/{n}.json?v={index.catalog}" for n in plan.shards_for(line)
    }
    # A few of the 1,060 entries' shards, not all of them.
    assert plan.shards >= 32 and 1 <= len(expected) - 1 <= 8
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    ids = paste_into_search(page, url, line)
    assert ids == whole
    page.wait_for_load_state("networkidle")
    assert {r for r in requests if "/signatures" in r} == expected
    context.close()


# Pagefind's own answer for a query: the pages of its first ten results, in order.
PAGEFIND_TOP_TEN = """async (words) => {
  const pf = await import("/pagefind/pagefind.js");
  await pf.options({ baseUrl: "/", excerptLength: 24 });
  await pf.init();
  const found = await pf.search(words);
  const data = await Promise.all(found.results.slice(0, 10).map((r) => r.data()));
  return data.map((d) => [d.url, d.meta.title]);
}"""

# What the header search shows: per result, its page (path), title and highlighted words.
SHOWN = """() => [...document.querySelectorAll(".md-search-result__list > li")].map((li) => {
  const link = new URL(li.querySelector("a").href);
  return [link.pathname, li.querySelector("h1").textContent, li.querySelectorAll("mark").length];
})"""


def test_results_past_the_fifth_arrive_with_their_excerpts_when_scrolled_to(  # type: ignore[no-untyped-def]
    browser, synthetic_1k
) -> None:
    _, url = synthetic_1k
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    expected_page = context.new_page()
    expected_page.goto(f"{url}/")
    # The words search-normalise.js asks Pagefind for ("the" is left out).
    expected = expected_page.evaluate(PAGEFIND_TOP_TEN, "fallen off bus")
    expected_page.close()
    assert len(expected) == 10
    context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    fragments: list[str] = []
    page.on("request", lambda r: fragments.append(r.url) if "/fragment/" in r.url else None)
    page.goto(f"{url}/")
    search(page, "fallen off the bus")
    page.wait_for_load_state("networkidle")
    # The first five, complete; the panel shows three and a half of them at this size.
    shown = page.evaluate(SHOWN)
    assert [[path, title] for path, title, _ in shown] == [list(e) for e in expected[:5]]
    assert all(marks > 0 for _, _, marks in shown)
    assert len(fragments) == 5
    # The count is of the answer (ten at most, as before), not of the results shown yet.
    assert page.text_content(".md-search-result__meta") == "10 matching documents"

    # A "more on this page" the reader opened stays open when the list is drawn again.
    page.click(".md-search-result__list > li:nth-child(1) details summary")
    # Scrolling the panel brings the other five, excerpts and all.
    page.hover(".md-search-result__list")
    for _ in range(10):
        if page.locator(".md-search-result__list > li").count() == 10:
            break
        page.mouse.wheel(0, 200)
        page.wait_for_timeout(300)
    page.wait_for_function(
        "() => document.querySelectorAll('.md-search-result__list > li').length === 10"
    )
    page.wait_for_load_state("networkidle")
    shown = page.evaluate(SHOWN)
    assert [[path, title] for path, title, _ in shown] == [list(e) for e in expected]
    assert all(marks > 0 for _, _, marks in shown)
    assert len(fragments) == len(set(fragments)) == 10
    assert page.text_content(".md-search-result__meta") == "10 matching documents"
    # The list was drawn again under the reader: the panel kept its scroll offset.
    assert page.eval_on_selector(".md-search__scrollwrap", "e => e.scrollTop") > 0
    assert page.locator(".md-search-result__list > li details[open]").count() == 1
    assert page.locator(".md-search-result__list > li:nth-child(1) details[open]").count() == 1
    assert errors == []
    context.close()


def test_a_panel_with_room_for_five_gets_all_ten_at_once(browser, synthetic_1k) -> None:  # type: ignore[no-untyped-def]
    """Five results fit in a 1600 px high window: the reader would see the list end there."""
    _, url = synthetic_1k
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = context.new_page()
    fragments: list[str] = []
    page.on("request", lambda r: fragments.append(r.url) if "/fragment/" in r.url else None)
    page.goto(f"{url}/")
    search(page, "fallen off the bus")
    page.wait_for_function(
        "() => document.querySelectorAll('.md-search-result__list > li').length === 10"
    )
    page.wait_for_load_state("networkidle")
    assert page.eval_on_selector(".md-search__scrollwrap", "e => e.scrollTop") == 0
    assert len(fragments) == len(set(fragments)) == 10
    context.close()


def test_keyboard_focus_survives_the_second_five(browser, synthetic_1k) -> None:  # type: ignore[no-untyped-def]
    """Arrowing down scrolls the panel, which loads the rest and draws the list again: the
    focus stays on the result it was on, and the next keys go on down to the sixth."""
    _, url = synthetic_1k
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(f"{url}/")
    search(page, "fallen off the bus")
    page.wait_for_load_state("networkidle")
    # The position (1-based) of the result holding the focus; 0 when the focus is elsewhere.
    focused = """() => [...document.querySelectorAll(".md-search-result__list > li")]
      .findIndex((li) => li.contains(document.activeElement)) + 1"""
    seen: list[int] = []
    while page.locator(".md-search-result__list > li").count() < 10:
        assert len(seen) < 20, "the second five never came"
        page.keyboard.press("ArrowDown")
        page.wait_for_timeout(200)
        seen.append(page.evaluate(focused))
    page.wait_for_load_state("networkidle")
    at = page.evaluate(focused)
    assert at >= max(seen[:-1]) >= 2
    while at < 6:
        assert len(seen) < 40, f"the focus went {seen}"
        page.keyboard.press("ArrowDown")
        page.wait_for_timeout(100)
        seen.append(page.evaluate(focused))
        assert seen[-1] >= at, f"the focus went back: {seen}"
        at = seen[-1]
    context.close()


def test_pagefind_gets_the_first_six_words_that_are_not_on_every_page(  # type: ignore[no-untyped-def]
    browser, synthetic_1k
) -> None:
    """Each word costs an index chunk: a pasted line sends its first six, punctuation gone."""
    project, url = synthetic_1k
    page = browser.new_page()
    page.goto(f"{url}/")
    queries = {
        xid_line(project): "cp3x Fri Jan 29 23 42",
        "GPU has fallen off the bus": "GPU fallen off bus",
        "the of a": "the of a",
        'NCCL WARN "NET/IB" -> 6 (status=12)': "NCCL WARN NET IB 6 status",
    }
    got = {q: page.evaluate("q => window.trainwreckPagefindQuery(q)", q) for q in queries}
    assert got == queries
    page.close()
