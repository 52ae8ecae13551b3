"""An entry page as a reader sees it in Chromium, and the site search with pasted error text."""

from __future__ import annotations

import pytest

from .searching import search

pytestmark = pytest.mark.browser

ENTRY = "xid-74-nvlink-error"

SECTIONS = {
    "summary": "Quick answer",
    "observed": "What you will observe",
    "symptoms": "Symptoms",
    "root-cause": "Root cause",
    "mechanism": "What it looks like, and what it is",
    "affected": "Affected systems",
    "confirm": "How to confirm",
    "signatures": "Error signatures",
    # With the fleet extra, which `make test` installs (docs/fleet.md, "On the site").
    "monitor": "Monitor it",
    "fix": "How to fix",
    "prevention": "Prevention",
    "codes": "Codes",
    "examples": "Real log examples",
    "faq": "FAQ",
    "references": "References",
    "related": "Related failures",
}


def test_entry_page_shows_every_section(site_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{site_url}/failures/{ENTRY}/")
    assert page.locator("h1").first.inner_text().startswith("Xid 74")
    for anchor, title in SECTIONS.items():
        heading = page.locator(f"h2#{anchor}")
        assert heading.count() == 1, anchor
        assert heading.inner_text().strip().rstrip("¶").strip() == title
        assert heading.is_visible()
    assert page.locator("#faq ~ .tw-faq h3").count() >= 3
    assert page.locator(".tw-signature").count() >= 1
    assert page.locator(".tw-checklist li").count() >= 1
    assert page.locator(".tw-fix li").count() >= 1
    assert "xid" in page.locator(".tw-meta").inner_text().lower()
    # The page's own table of contents lists the sections.
    toc = page.locator("nav.md-nav--secondary a").all_inner_texts()
    assert [t.strip() for t in toc] == list(SECTIONS.values())
    assert page.errors == []


def test_search_finds_the_entry_from_a_pasted_signature_line(site_url: str, page) -> None:  # type: ignore[no-untyped-def]
    # The real kernel line from the entry's example: colons, parentheses, quotes, hex, PCI id.
    line = (
        "[449410.332316] NVRM: Xid (PCI:0003:00:00): 74, pid='<unknown>', name=<unknown>, "
        "NVLink: fatal error detected on link 14(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)"
    )
    page.goto(f"{site_url}/")
    first = search(page, line)
    # The theme appends ?h=<terms> for highlighting; the page is what matters.
    assert first.get_attribute("href").split("?")[0] == f"{site_url}/failures/{ENTRY}/"
    assert page.errors == []


def test_home_page_search_box_hands_the_pasted_line_to_site_search(site_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{site_url}/")
    page.fill("#tw-q", "NVRM: Xid (PCI:0003:00:00): 74, NVLink: fatal error detected on link 14")
    page.click(".tw-search button")
    first = page.locator(".md-search-result__item > a").first
    first.wait_for(timeout=15000)
    assert first.get_attribute("href").split("?")[0] == f"{site_url}/failures/{ENTRY}/"
    assert page.errors == []
