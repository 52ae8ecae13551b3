"""Linkable: a link to a section or to one FAQ question opens the page at that heading.

That every entry has the anchors is checked in test_reader_entry_pages.py; here Chromium
follows such links and the permalinks beside the headings.
"""

from __future__ import annotations

import pytest

from generator.catalog import Catalog
from generator.render.pages import unique_slugs

pytestmark = pytest.mark.browser

ENTRY = "xid-79-gpu-fallen-off-bus"

WHERE = """(id) => {
  const target = document.getElementById(id);
  const box = target.getBoundingClientRect();
  const header = document.querySelector('.md-header').getBoundingClientRect();
  return {
    target: document.querySelector(':target') === target,
    below_header: box.top >= header.bottom - 1,
    near_top: box.top < header.bottom + 80,
    text: target.firstChild.textContent,
  };
}"""


def test_a_link_to_a_section_or_a_question_opens_the_page_at_that_heading(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    entry = catalog.by_id[ENTRY]
    questions = unique_slugs([item.q for item in entry.faq], "faq-")
    anchors = {
        "symptoms": "Symptoms",
        "confirm": "How to confirm",
        "fix": "How to fix",
        "faq": "FAQ",
        questions[-1]: entry.faq[-1].q,
    }
    for anchor, text in anchors.items():
        page.goto("about:blank")
        page.goto(f"{site_url}/failures/{ENTRY}/#{anchor}")
        assert page.evaluate(WHERE, anchor) == {
            "target": True,
            "below_header": True,
            "near_top": True,
            "text": text,
        }, anchor
    assert page.errors == []


def test_the_permalink_beside_a_question_is_its_address(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    entry = catalog.by_id[ENTRY]
    anchor = unique_slugs([item.q for item in entry.faq], "faq-")[1]
    page.goto(f"{site_url}/failures/{ENTRY}/")
    link = page.locator(f"h3#{anchor} a.headerlink")
    assert link.get_attribute("aria-label") == "Permanent link"
    assert link.evaluate("a => getComputedStyle(a).opacity") == "0"  # until it is needed
    link.focus()
    page.wait_for_function(  # shown when focused (it fades in)
        "a => getComputedStyle(a).opacity === '1'", arg=link.element_handle()
    )
    page.keyboard.press("Enter")
    assert page.url == f"{site_url}/failures/{ENTRY}/#{anchor}"
    assert page.evaluate(WHERE, anchor)["below_header"]


def test_a_link_to_an_xid_row_opens_the_table_at_that_code(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
) -> None:
    page.goto(f"{site_url}/failures/{ENTRY}/")
    with page.expect_navigation(url=f"{site_url}/xid/#xid-79"):
        page.locator("dl.tw-codes a", has_text="79").click()
    page.wait_for_load_state("load")
    assert page.evaluate("document.querySelector(':target').id") == "xid-79"
