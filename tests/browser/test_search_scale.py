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

sys.path.insert(0, str(REPO / "bench"))
from synth import write_catalog

pytestmark = pytest.mark.browser

ENTRY = "xid-31-mmu-page-fault-c3"
HITS = ".md-search-result .tw-sig-hits"


@pytest.fixture(scope="session")
def synthetic_1k(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    project = tmp_path_factory.mktemp("synthetic-1k")
    # Whole copies of the real catalog, as many as reach 1,000 entries.
    real = len(list((REPO / "entries").glob("*/*.yaml")))
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
