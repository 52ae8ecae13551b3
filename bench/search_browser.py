"""Benchmark a reader's first search in headless Chromium: time to first result and bytes.

    python bench/search_browser.py                    # 1k and 10k entries (bench/synth.py)
    python bench/search_browser.py --entries 1000 --work /tmp/tw-search --keep
    python bench/search_browser.py --site /tmp/x/site # a site built already

For each query, in a fresh browser context (empty cache): load the home page, wait for the
network to go quiet, then type the query into the header search box (words key by key, 100 ms
apart, as a person types; a pasted error line with Control+V) and time, from the last
key, until the first result is on screen: a full-text result for words, the exact signature
hit for a pasted error line. Bytes are everything the page fetched from the query on, each
counted as a server that gzips would send it (min of raw and gzipped; Pagefind's shards are
gzipped already), by kind: Pagefind's files, the signature shards of the search box
(/signatures/search/, generator/diagnose/search_shards.py), the engine's scripts, and
/signatures.json whole (which the box loaded before the shards; it should be 0 now). Target
(issue 18): at most 300 KB for a first search at 10k entries. The page's own load is printed
too, as the baseline the search adds to. A 10k site takes about 15 minutes to write and build
on a quiet 2-core machine, and 2.6 GB of memory.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
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


def _site_file(site: Path, url: str, address: str) -> bytes | None:
    """The file of the built site that the server sent for `address`, if it is one."""
    if not address.startswith(url + "/"):
        return None
    target = site / address[len(url) + 1 :].split("?")[0].split("#")[0]
    return target.read_bytes() if target.is_file() else None


def first_search(
    browser: Any, site: Path, url: str, query: str, done: str, viewport: tuple[int, int]
) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page = context.new_page()
    # Each response is counted by when its request was made: a response of the page's load
    # may arrive (and its body be read) after the search has begun.
    loaded: list[int] = []
    fetched: list[tuple[str, int]] = []
    searching: set[Any] = set()
    recording = [False]

    def on_request(request: Any) -> None:
        if recording[0]:
            searching.add(request)

    def on_response(response: Any) -> None:
        try:
            body = response.body()
        except Exception:
            # A redirect or an aborted request has no body, and Chromium keeps no body over
            # 10 MB for the debugger (/signatures.json at 10k entries is 16 MB): read the
            # site's own file.
            body = _site_file(site, url, response.url)
            if body is None:
                return
        if response.request in searching:
            fetched.append((response.url, _wire(body)))
        else:
            loaded.append(_wire(body))

    page.on("request", on_request)
    page.on("response", on_response)
    page.goto(f"{url}/")
    page.wait_for_load_state("networkidle")
    recording[0] = True
    if viewport[0] < 960:  # the theme's breakpoint: a phone's search is behind a button
        page.click('label.md-header__button[for="__search"]')
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
            else "signature shards"
            if path.startswith("/signatures/search/")
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
    load = sum(loaded)
    return {"seconds": seconds, "bytes": sum(by_kind.values()), "by_kind": by_kind, "load": load}


def build(count: int, work: Path) -> tuple[Path, int]:
    from generator.mkdocs_glue import build_site

    project = work / f"catalog-{count}"
    made = write_catalog(project, count)
    out = project / "site"
    build_site(project / "mkdocs.yml", out)
    return out, made


def measure(site: Path, viewport: tuple[int, int]) -> list[tuple[str, dict[str, Any]]]:
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import serve_dir

    server, url = serve_dir(site)
    rows = []
    try:
        with sync_playwright() as p:
            browser = launch(p)
            for name, query, done in [
                ("words", WORDS, ".md-search-result__item"),
                ("error line", ERROR, ".tw-sig-hits:not([hidden]) li"),
            ]:
                rows.append((name, first_search(browser, site, url, query, done, viewport)))
            browser.close()
    finally:
        server.shutdown()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--site", type=Path, help="a built site to serve instead")
    parser.add_argument("--work", type=Path, help="build the catalogs here (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the built sites in --work")
    parser.add_argument(
        "--viewport",
        default="1280x720",
        help="the window, WIDTHxHEIGHT: the results a search fetches fragments for first are "
        "the five the panel has, or all ten if the fifth is in view (default: 1280x720)",
    )
    args = parser.parse_args()
    os.environ.pop("TRAINWRECK_SITE_URL", None)
    width, height = args.viewport.lower().split("x")
    viewport = (int(width), int(height))
    results: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = []
    with tempfile.TemporaryDirectory(prefix="tw-search-bench-") as tmp:
        if args.site:
            results.append(("as built", measure(args.site.resolve(), viewport)))
        else:
            work = args.work or Path(tmp)
            for count in args.entries:
                started = time.perf_counter()
                site, made = build(count, work)
                built = time.perf_counter() - started
                print(f"{made:,} entries: written and built in {built:.0f} s", file=sys.stderr)
                results.append((f"{made:,}", measure(site, viewport)))
                if not args.keep:
                    shutil.rmtree(work / f"catalog-{count}")
    print(
        "| entries | query | first result s | first search KB (gz) | of which | page load KB (gz) |"
    )
    print("|---:|---|---:|---:|---|---:|")
    for made, rows in results:
        for name, r in rows:
            parts = ", ".join(f"{k} {v / 1000:,.1f}" for k, v in sorted(r["by_kind"].items()))
            print(
                f"| {made} | {name} | {r['seconds']:.2f} | {r['bytes'] / 1000:,.0f} | {parts} "
                f"| {r['load'] / 1000:,.0f} |"
            )


if __name__ == "__main__":
    main()
