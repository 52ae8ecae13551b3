"""Usable during an incident: one-click copy, badges, dark mode, a 390 px phone, print.

Every entry page is checked at phone width and in print in test_reader_entry_pages.py; this
file covers copying for real, the dark mode toggle, the other pages on a phone (with
screenshots under test-artifacts/phone/) and the badges on list pages.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.catalog import Catalog
from tests.browser.test_reader_entry_pages import OVERFLOW, PHONE

pytestmark = pytest.mark.browser

ENTRY = "xid-79-gpu-fallen-off-bus"
SCHEME = """() => ({
  scheme: document.body.dataset.mdColorScheme,
  media: document.body.dataset.mdColorMedia,
  toggle: [...document.querySelectorAll('label[for^=__palette]')].filter(l => !l.hidden)
    .map(l => l.title),
})"""


@pytest.fixture()
def clipboard_page(browser, site_url: str):  # type: ignore[no-untyped-def]
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url)
    page = context.new_page()
    yield page
    context.close()


def clipboard(page) -> str:  # type: ignore[no-untyped-def]
    text: str = page.evaluate("navigator.clipboard.readText()")
    return text


def test_one_click_copies_a_command_and_a_multi_line_code_sample(
    clipboard_page,  # type: ignore[no-untyped-def]
    site_url: str,
    catalog: Catalog,
) -> None:
    page = clipboard_page
    entry = catalog.by_id[ENTRY]
    page.goto(f"{site_url}/failures/{ENTRY}/")
    command = page.locator(".tw-fix pre.tw-command").first
    command.hover()
    command.locator("button[data-md-type=copy]").click()
    assert clipboard(page) == entry.fix[0].commands[0]
    sample = next(c.code for step in entry.fix for c in step.code if "\n" in c.code.strip())
    block = page.locator("pre.tw-code", has_text=sample.splitlines()[0]).first
    block.hover()
    block.locator("button[data-md-type=copy]").click()
    assert clipboard(page).rstrip("\n") == sample.rstrip("\n")
    # The theme confirms the copy where a screen reader hears it.
    assert page.locator(".md-dialog").inner_text().strip() == "Copied to clipboard"


def test_dark_mode_follows_the_system_setting(browser, site_url: str) -> None:  # type: ignore[no-untyped-def]
    for system, scheme in (("light", "default"), ("dark", "slate")):
        context = browser.new_context(color_scheme=system)
        page = context.new_page()
        page.goto(f"{site_url}/failures/{ENTRY}/")
        assert page.evaluate(SCHEME) == {
            "scheme": scheme,
            "media": "(prefers-color-scheme)",
            "toggle": ["Switch to light mode"],
        }
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(255, 255, 255)") == (system == "light")
        context.close()


def test_the_toggle_cycles_light_dark_and_system_and_is_remembered(
    browser,  # type: ignore[no-untyped-def]
    site_url: str,
) -> None:
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(f"{site_url}/")
    toggle = page.locator("label[for^=__palette]:visible")
    seen = []
    for _ in range(3):
        toggle.click()
        seen.append(page.evaluate(SCHEME))
    assert [(s["scheme"], s["media"], s["toggle"]) for s in seen] == [
        ("default", "(prefers-color-scheme: light)", ["Switch to dark mode"]),
        ("slate", "(prefers-color-scheme: dark)", ["Switch to system preference"]),
        ("slate", "(prefers-color-scheme)", ["Switch to light mode"]),
    ]
    toggle.click()  # light, chosen by hand ...
    page.goto(f"{site_url}/failures/{ENTRY}/")  # ... and kept on the next page
    assert page.evaluate(SCHEME)["scheme"] == "default"
    # From the keyboard: the toggle is a radio group; Space picks, the arrow keys move on.
    page.focus("#__palette_0")
    media = []
    for key in ("Space", "ArrowRight", "ArrowRight"):
        page.keyboard.press(key)
        media.append(page.evaluate(SCHEME)["media"])
    assert media == [
        "(prefers-color-scheme)",
        "(prefers-color-scheme: light)",
        "(prefers-color-scheme: dark)",
    ]
    context.close()


# One page of every kind, plus one entry; every entry page is checked in test_reader_entry_pages.
PHONE_PAGES = {
    "home": "/",
    "entry": f"/failures/{ENTRY}/",
    "categories": "/categories/",
    "category": "/categories/gpu-hardware/",
    "tags": "/tags/",
    "tag": "/tags/xid/",
    "xid": "/xid/",
    "api": "/api/",
    "404": "/404.html",
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_page_scrolls_sideways_on_a_390px_phone_outside_code_blocks(
    browser,  # type: ignore[no-untyped-def]
    site_url: str,
    artifacts: Path,
    scheme: str,
) -> None:
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, color_scheme=scheme
    )
    page = context.new_page()
    shots = artifacts / "phone"
    shots.mkdir(exist_ok=True)
    problems = {}
    for name, path in PHONE_PAGES.items():
        page.goto(site_url + path)
        page.wait_for_load_state("load")
        assert page.evaluate("window.innerWidth") == 390
        overflow = page.evaluate(OVERFLOW)
        if overflow:
            problems[name] = overflow
        page.screenshot(path=shots / f"{name}-{scheme}.png", full_page=True)
        # Code blocks scroll inside themselves, and only they do.
        for code in page.locator("pre > code").all():
            assert code.evaluate("c => getComputedStyle(c).overflowX") == "auto"
    context.close()
    assert problems == {}
    assert sorted(p.name for p in shots.glob(f"*-{scheme}.png")) == sorted(
        f"{name}-{scheme}.png" for name in PHONE_PAGES
    )


def test_list_pages_show_a_severity_badge_for_every_entry(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    page.goto(f"{site_url}/xid/")
    rows = page.eval_on_selector_all(
        ".tw-xid tbody tr",
        "rows => rows.map(r => [r.querySelector('a').getAttribute('href'),"
        " r.querySelector('.tw-sev').dataset.severity])",
    )
    assert rows == [
        [f"../failures/{r.entry.id}/", r.entry.severity.value] for r in catalog.xid_rows()
    ]
    page.goto(f"{site_url}/categories/gpu-hardware/")
    items = page.eval_on_selector_all(
        ".tw-entry-list li",
        "items => items.map(i => i.querySelector('.tw-sev').textContent)",
    )
    expected = [e for e in catalog.entries if e.category == "gpu-hardware"]
    assert sorted(items) == sorted(f"Severity: {e.severity.value}" for e in expected)
    assert page.errors == []
