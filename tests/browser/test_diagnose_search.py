"""Search that accepts error text: the signature matcher runs first and its exact hits sit on
top of the theme's full-text results (javascripts/search-signatures.js).

A pasted signature line with `: ( ) 0x…` finds its entry first; every entry's real example line
finds its entry; text that lunr's query parser chokes on (`: ^ ~ * + -`, quotes) raises no error;
and the home page's search box shows the same exact hits.
"""

from __future__ import annotations

import pytest

from generator.catalog import Catalog
from generator.diagnose.index import SignatureIndex, build_index

pytestmark = pytest.mark.browser

XID31 = (
    "[Sat Jan 30 00:05:20 2021] NVRM: Xid (PCI:0000:db:00): 31, pid=14323, Ch 00000008, intr "
    "00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_10 faulted @ 0x7efe_ba290000. Fault is of "
    "type FAULT_PDE ACCESS_TYPE_VIRT_READ"
)
HITS = ".md-search-result .tw-sig-hits"


def open_search(page, site_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{site_url}/")
    assert page.locator('script[src$="search-signatures.js"]').count() == 1
    page.click(".md-search__input")


def hit_ids(page, selector: str = HITS) -> list[str]:  # type: ignore[no-untyped-def]
    ids: list[str] = page.eval_on_selector_all(
        f"{selector} li[data-entry-id]", "ls => ls.map(l => l.dataset.entryId)"
    )
    return ids


def wait_for_hit(page, entry_id: str, selector: str = HITS) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_selector(f'{selector}:not([hidden]) li[data-entry-id="{entry_id}"]')


def test_a_pasted_signature_line_finds_its_entry_first(browser, site_url: str) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    open_search(page, site_url)
    page.evaluate("text => navigator.clipboard.writeText(text)", XID31)
    page.keyboard.press("Control+V")
    wait_for_hit(page, "xid-31-mmu-page-fault")
    assert hit_ids(page)[0] == "xid-31-mmu-page-fault"
    link = page.locator(f"{HITS} li a").first
    assert link.get_attribute("href") == f"{site_url}/failures/xid-31-mmu-page-fault/"
    # The exact hits come first, above the full-text results, which still arrive.
    page.wait_for_selector(".md-search-result__list li")
    order = page.evaluate(
        """() => {
          const box = document.querySelector('.md-search-result .tw-sig-hits');
          const list = document.querySelector('.md-search-result__list');
          return box.compareDocumentPosition(list) & Node.DOCUMENT_POSITION_FOLLOWING;
        }"""
    )
    assert order
    # A traceback pasted whole is matched line by line (a one-line box drops the breaks).
    traceback = 'Traceback (most recent call last):\n  File "train.py", line 9\n' + XID31
    page.fill(".md-search__input", "")
    page.evaluate("text => navigator.clipboard.writeText(text)", traceback)
    page.keyboard.press("Control+V")
    page.wait_for_function(
        """(selector) => {
          const why = document.querySelector(selector);
          return why && why.textContent === "Its error signature matches line 3.";
        }""",
        arg=f'{HITS} li[data-entry-id="xid-31-mmu-page-fault"] .tw-sig-why',
    )
    assert errors == []
    context.close()


def test_every_entrys_example_line_finds_its_entry(
    page,  # type: ignore[no-untyped-def]
    site_url: str,
    catalog: Catalog,
) -> None:
    index = SignatureIndex(build_index(catalog.entries))
    open_search(page, site_url)
    # An entry that only the numbers in progress lines show has no line of its own to paste.
    for entry in (e for e in catalog.entries if e.signatures):
        line = next(
            line
            for x in entry.examples
            for line in x.log.splitlines()
            if any(
                s.entry == entry.id
                and s.role in ("defining", "harmless")
                and s.matcher.search(line)
                for s in index.signatures
            )
        )
        page.fill(".md-search__input", line)
        wait_for_hit(page, entry.id)
    assert page.errors == []


@pytest.mark.parametrize(
    "query",
    [
        'NVRM: Xid (PCI:0000:3b:00): 79, pid=1234 ^2 ~1 *x +y -z "quoted',
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed",
        "::::~~~^^^***+++---\"\"\"''' 0x7f3a 0000:3b:00.0",
    ],
)
def test_text_that_lunr_chokes_on_raises_no_error(page, site_url: str, query: str) -> None:  # type: ignore[no-untyped-def]
    open_search(page, site_url)
    page.fill(".md-search__input", query)
    page.wait_for_timeout(400)
    page.wait_for_function(
        "() => !/Initializing/.test(document.querySelector('.md-search-result__meta').textContent)"
    )
    if query.startswith("NVRM"):
        wait_for_hit(page, "xid-79-gpu-fallen-off-bus")
    assert page.errors == []


def test_the_home_search_box_shows_exact_hits(page, site_url: str) -> None:  # type: ignore[no-untyped-def]
    open_search(page, site_url)
    page.keyboard.press("Escape")
    page.fill("#tw-q", XID31)
    wait_for_hit(page, "xid-31-mmu-page-fault", ".tw-search-hits")
    assert hit_ids(page, ".tw-search-hits")[0] == "xid-31-mmu-page-fault"
    page.fill("#tw-q", "loss")
    page.wait_for_selector(".tw-search-hits", state="hidden")
    assert page.errors == []
