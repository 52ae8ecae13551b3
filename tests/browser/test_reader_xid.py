"""The /xid/ table as an on-call engineer uses it, on a phone and at a desk: one row per code,
its meaning and first action, no code number wrapping, and one jump to any code."""

from __future__ import annotations

import pytest

from generator.catalog import Catalog
from tests.browser.test_reader_entry_pages import PHONE

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
ACTION_LABELS = {
    "ignore": "No action",
    "restart-app": "Restart the application",
    "reset-gpu": "Reset the GPU",
    "reboot": "Reboot the node",
    "check-hardware": "Check power and cabling",
    "contact-support": "Contact support",
    "follow-other-xid": "Act on the other Xid",
}

# Each row as a reader sees it, and how many lines each code number takes on screen.
ROWS = """() => [...document.querySelectorAll('.tw-xid tbody tr')].map(r => {
  const code = r.querySelector('.tw-xid-code');
  const range = document.createRange();
  range.selectNodeContents(code);
  return {
    id: r.id,
    code: code.textContent.trim(),
    code_lines: range.getClientRects().length,
    meaning: r.querySelector('[data-label=Meaning]').firstChild.textContent.trim(),
    action: r.querySelector('.tw-xid-action').dataset.action,
    label: r.querySelector('.tw-xid-action').textContent.trim(),
    entry: r.querySelector('[data-label=Failure] a').getAttribute('href'),
  };
})"""
JUMPS = """() => [...document.querySelectorAll('.tw-xid-jump a')].map(a => {
  const range = document.createRange();
  range.selectNodeContents(a);
  return [a.getAttribute('href'), a.textContent.trim(), range.getClientRects().length];
})"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_every_xid_code_has_one_unwrapped_row_with_its_meaning_and_first_action(
    browser,  # type: ignore[no-untyped-def]
    site_url: str,
    catalog: Catalog,
    viewport: dict[str, int],
) -> None:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(f"{site_url}/xid/")
    rows, jumps = page.evaluate(ROWS), page.evaluate(JUMPS)
    expected = catalog.xid_rows()
    assert all(r.info is not None for r in expected)
    assert rows == [
        {
            "id": f"xid-{r.code}",
            "code": str(r.code),
            "code_lines": 1,
            "meaning": r.info.meaning,
            "action": r.info.action.value,
            "label": ACTION_LABELS[r.info.action.value],
            "entry": f"../failures/{r.entry.id}/",
        }
        for r in expected
        if r.info is not None
    ]
    assert jumps == [[f"#xid-{r.code}", str(r.code), 1] for r in expected]
    # One jump: the code's row is on screen after one tap on its number.
    code = 79 if any(r.code == 79 for r in expected) else expected[-1].code
    page.click(f".tw-xid-jump a[href='#xid-{code}']")
    assert page.evaluate(
        f"""() => {{
          const box = document.getElementById('xid-{code}').getBoundingClientRect();
          return box.top >= 0 && box.top < window.innerHeight;
        }}"""
    )
    context.close()


def test_the_severity_view_lists_every_entry_once_critical_first(
    page,  # type: ignore[no-untyped-def]
    site_url: str,
    catalog: Catalog,
) -> None:
    page.goto(f"{site_url}/severity/")
    sections = page.eval_on_selector_all(
        ".tw-section",
        "s => s.map(x => [x.querySelector('h2').id,"
        " [...x.querySelectorAll('.tw-entry-list a')].map(a => a.getAttribute('href'))])",
    )
    assert sections == [
        [severity.value, [f"../failures/{e.id}/" for e in entries]]
        for severity, entries in catalog.by_severity()
    ]
    assert [s[0] for s in sections] == ["critical", "high", "medium", "low"]
