"""Benchmark a reader's first search in headless Chromium: time to first result and bytes.

    python bench/search_browser.py                    # 1k synthetic entries (bench/synth.py)
    python bench/search_browser.py --entries 10000
    python bench/search_browser.py --site /tmp/x/site # a site built already

For each query, in a fresh browser context (empty cache): load the home page, wait for the
network to go quiet, then type the query into the header search box (words key by key, 100 ms
apart, as a person types; a pasted error line with Control+V) and time, from the last
key, until the first result is on screen: a full-text result for words, the exact signature
hit for a pasted error line. Bytes are everything the page fetched from the query on, each
counted as a server that gzips would send it (min of raw and gzipped; Pagefind's shards are
gzipped already). Target (issue 18): at most 300 KB for a first search at 10k entries. The
page's own load is printed too, as the baseline the search adds to.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests"))

from chromium import launch  # noqa: E402
from synth import write_catalog  # noqa: E402

WORDS = "fallen off the bus"
ERROR = (
    "cp3x [Sat Jan 30 00:05:20 2021] NVRM: Xid (PCI:0000:db:00): 31, pid=14323, Ch 00000008, "
    "intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_10 faulted @ 0x7efe_ba290000. "
    "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"
)


def _wire(body: bytes) -> int:
    return min(len(body), len(gzip.compress(body, 6)))


def first_search(browser: Any, url: str, query: str, done: str) -> dict[str, Any]:
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page = context.new_page()
    fetched: list[tuple[str, int]] = []
    recording = [False]

    def on_response(response: Any) -> None:
        try:
            body = response.body()
        except Exception:  # a redirect or an aborted request has no body
            return
        fetched.append((response.url, _wire(body)))

    page.on("response", on_response)
    page.goto(f"{url}/")
    page.wait_for_load_state("networkidle")
    load = sum(size for _, size in fetched)
    fetched.clear()
    recording[0] = True
    page.click(".md-search__input")
    box = page.locator(".md-search__input")
    # Key events for words: the theme reads the box on keyboard input. The last key starts
    # the clock. A pasted line arrives in one input event, as fill() sends it.
    if "\n" in query or len(query) > 40:
        page.evaluate("text => navigator.clipboard.writeText(text)", query)
        started = time.perf_counter()
        page.keyboard.press("Control+V")
    else:
        box.press_sequentially(query[:-1], delay=100)
        started = time.perf_counter()
        box.press(query[-1])
    page.wait_for_selector(done, timeout=120_000)
    seconds = time.perf_counter() - started
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)
    by_kind: dict[str, int] = {}
    for address, size in fetched:
        path = address.removeprefix(url)
        kind = (
            "pagefind"
            if path.startswith("/pagefind/")
            else "signatures.json"
            if path.startswith("/signatures.json")
            else "engine js"
            if "/javascripts/" in path
            else "other"
        )
        by_kind[kind] = by_kind.get(kind, 0) + size
    if os.environ.get("TW_BENCH_VERBOSE"):
        for address, size in fetched:
            print(f"  {size:>8} {address.removeprefix(url)}", file=sys.stderr)
    context.close()
    return {"seconds": seconds, "bytes": sum(by_kind.values()), "by_kind": by_kind, "load": load}


def build(count: int, work: Path) -> tuple[Path, int]:
    from generator.mkdocs_glue import build_site

    project = work / f"catalog-{count}"
    made = write_catalog(project, count)
    out = project / "site"
    build_site(project / "mkdocs.yml", out)
    return out, made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--site", type=Path, help="a built site to serve instead")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import serve_dir

    with tempfile.TemporaryDirectory(prefix="tw-search-bench-") as tmp:
        if args.site:
            site, made = args.site.resolve(), 0
        else:
            os.environ.pop("TRAINWRECK_SITE_URL", None)
            site, made = build(args.entries, Path(tmp))
        server, url = serve_dir(site)
        rows = []
        with sync_playwright() as p:
            browser = launch(p)
            for name, query, done in [
                ("words", WORDS, ".md-search-result__item"),
                ("error line", ERROR, ".tw-sig-hits:not([hidden]) li"),
            ]:
                rows.append((name, first_search(browser, url, query, done)))
            browser.close()
        server.shutdown()
    print(f"entries: {made or 'as built'}")
    print("| query | first result s | first search KB (gz) | of which | page load KB (gz) |")
    print("|---|---:|---:|---|---:|")
    for name, r in rows:
        parts = ", ".join(f"{k} {v // 1000:,}" for k, v in sorted(r["by_kind"].items()))
        print(
            f"| {name} | {r['seconds']:.2f} | {r['bytes'] // 1000:,} | {parts} "
            f"| {r['load'] // 1000:,} |"
        )


if __name__ == "__main__":
    main()
