"""Accessible: axe-core in Chromium finds nothing serious or critical, and an entry page works
from the keyboard alone.

axe-core comes from the npm registry (`make axe`, part of `make test`) into node_modules/,
which git ignores; the test injects its axe.min.js into each page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
ENTRY = "xid-79-gpu-fallen-off-bus"
BLOCKING = {"serious", "critical"}

PAGES = {
    "home": "/",
    "entry": f"/failures/{ENTRY}/",
    "category": "/categories/gpu-hardware/",
    "xid": "/xid/",
    "diagnose": "/diagnose/",
    "benchmark": "/benchmark/",
    "404": "/404.html",
    "api": "/api/",
    "tags": "/tags/",
}

RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map(n => n.target.join(' ')),
  }));
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        pytest.fail(f"{AXE.relative_to(REPO)} is missing: run `make axe` (npm install axe-core)")
    return AXE.read_text()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", list(PAGES))
def test_axe_finds_no_serious_or_critical_violation(
    browser,  # type: ignore[no-untyped-def]
    site_url: str,
    axe_source: str,
    artifacts: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    scheme: str,
) -> None:
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    response = page.goto(site_url + PAGES[name])
    assert response is not None and response.status == 200
    page.add_script_tag(content=axe_source)
    violations = page.evaluate(RUN_AXE)
    context.close()
    report = artifacts / "axe"
    report.mkdir(exist_ok=True)
    (report / f"{name}-{scheme}.json").write_text(json.dumps(violations, indent=2) + "\n")
    others = [v for v in violations if v["impact"] not in BLOCKING]
    if others:
        with capsys.disabled():
            print(f"\naxe, {PAGES[name]} ({scheme}), below serious:")
            for v in others:
                print(f"  {v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])}x)")
    assert [v for v in violations if v["impact"] in BLOCKING] == []


# Keyboard

FOCUSABLE = """() => [...document.querySelectorAll(
    '.tw-entry a[href], .tw-entry button, .tw-entry input, .tw-entry [tabindex]')]
  .filter(e => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length)
  .map((e, i) => { e.dataset.kb = String(i); return i; })"""

ACTIVE = """async () => {
  const e = document.activeElement;
  const box = e.getBoundingClientRect();
  const header = document.querySelector('.md-header').getBoundingClientRect();
  const x = Math.min(Math.max(box.left + box.width / 2, 0), window.innerWidth - 1);
  const y = Math.min(Math.max(box.top + Math.min(box.height, 20) / 2, 0), window.innerHeight - 1);
  let hit = document.elementFromPoint(x, y);
  if (hit && hit.closest('.md-search')) {
    // Focus just left the search box: the theme fades its overlay out over 250 ms.
    await new Promise(done => setTimeout(done, 400));
    hit = document.elementFromPoint(x, y);
  }
  const style = getComputedStyle(e);
  return {
    kb: e.dataset.kb === undefined ? null : Number(e.dataset.kb),
    tag: e.tagName,
    text: (e.getAttribute('aria-label') || e.title || e.innerText || '').trim().slice(0, 40),
    outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
    visible: box.bottom > header.bottom && box.top < window.innerHeight,
    on_top: !!hit && (hit === e || e.contains(hit) || hit.contains(e)),
  };
}"""


def tab_through(page, key: str, limit: int = 600) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """Press `key` until focus leaves the page or comes round to the entry again: every stop."""
    stops: list[dict[str, object]] = []
    for _ in range(limit):
        page.keyboard.press(key)
        stop = page.evaluate(ACTIVE)
        if stop["tag"] == "BODY" or (
            stop["kb"] is not None and any(s["kb"] == stop["kb"] for s in stops)
        ):
            break
        stops.append(stop)
    return stops


def test_tab_reaches_every_link_and_button_of_an_entry_in_order_and_shows_where_it_is(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
) -> None:
    page.goto(f"{site_url}/failures/{ENTRY}/")
    page.wait_for_selector(".tw-entry pre button[data-md-type=copy]")
    expected = page.evaluate(FOCUSABLE)
    assert len(expected) > 20
    forward = [s for s in tab_through(page, "Tab") if s["kb"] is not None]
    assert [s["kb"] for s in forward] == expected
    kinds = {s["tag"] for s in forward}
    assert {"A", "BUTTON"} <= kinds
    hidden = [s for s in forward if not (s["outline"] and s["visible"] and s["on_top"])]
    assert hidden == []
    # And backwards: nothing lands under the sticky header.
    backward = [s for s in tab_through(page, "Shift+Tab") if s["kb"] is not None]
    assert [s["kb"] for s in backward] == expected[::-1]
    assert [s for s in backward if not (s["visible"] and s["on_top"])] == []
    assert page.errors == []


def test_the_skip_link_jumps_to_the_quick_answer(site_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{site_url}/failures/{ENTRY}/")
    page.keyboard.press("Tab")
    skip = page.evaluate("() => [document.activeElement.className, document.activeElement.text]")
    assert "md-skip" in skip[0] and skip[1].strip() == "Skip to content"
    page.keyboard.press("Enter")
    assert page.url.endswith("#summary")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "#summary"


@pytest.mark.parametrize("key", ["Enter", "Space"])
def test_copy_buttons_work_from_the_keyboard(browser, site_url: str, key: str) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url)
    page = context.new_page()
    page.goto(f"{site_url}/failures/{ENTRY}/")
    page.wait_for_selector(".tw-entry pre button[data-md-type=copy]")
    copied = []
    # Tab to each command's copy button in turn, as a keyboard user would, and press it.
    commands = page.eval_on_selector_all(
        ".tw-entry pre.tw-command code", "codes => codes.map(c => c.textContent)"
    )
    for _ in range(600):
        page.keyboard.press("Tab")
        on_copy = page.evaluate(
            "() => document.activeElement.matches('pre.tw-command button[data-md-type=copy]')"
        )
        if on_copy:
            page.keyboard.press(key)
            copied.append(page.evaluate("navigator.clipboard.readText()"))
        if len(copied) == len(commands):
            break
    assert copied == commands
    context.close()
