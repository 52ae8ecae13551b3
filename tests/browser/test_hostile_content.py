"""No script from content: XSS payloads in every string field of an entry stay inert text.

Two layers are attacked. The validator refuses raw HTML and script links in Markdown fields,
so a site build carries the payloads in the forms that pass it (plain-text fields as they are,
Markdown fields inside code spans and as entities); the renderer is then attacked directly with
raw payloads in every field, bypassing the validator, and its pages are loaded in Chromium too.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

import pytest
import yaml
from entry_factory import entry_yaml

from generator.catalog import Catalog
from generator.mkdocs_glue import build_site
from generator.model.entry import Entry
from generator.render.pages import Renderer

from .conftest import REPO, serve_dir
from .searching import search

pytestmark = pytest.mark.browser

PAYLOADS = [
    "<script>alert('x1')</script>",
    "<img src=x onerror=alert('x2')>",
    "<svg onload=alert('x3')><animate onbegin=alert('x3b')/></svg>",
    "\"><iframe src=javascript:alert('x4')></iframe>",
    "javascript:alert('x5')",
    "[click](javascript:alert('x6'))",
    "![pic](javascript:alert('x7'))",
    "&lt;script&gt;alert('x8')&lt;/script&gt;",
    "<a href=\"javascript:alert('x9')\">link</a>",
    "{{ 7*7 }} {% raw %}x{% endraw %} ${7*7} #{7*7}",
    "<scr<script>ipt>alert('x10')</script>",
    "<details open ontoggle=alert('x11')>",
    "</textarea></title></script><script>alert('x12')</script>",
    "<style>body{display:none}</style>",
]
ALL = " ".join(PAYLOADS)
ENTRY_ID = "xid-79-gpu-fallen-off-bus"

# What must never exist in a page built from the payloads.
FORBIDDEN_DOM = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames()) {
      if (/^on/i.test(attr)) bad.push(el.tagName + '[' + attr + ']');
    }
    const href = (el.getAttribute('href') || '') + (el.getAttribute('src') || '');
    if (/^\\s*javascript:/i.test(href)) bad.push(el.tagName + ' javascript: url');
  }
  const injected = 'iframe, svg animate, details[ontoggle], img[src="x"]';
  for (const el of document.querySelectorAll(injected)) bad.push(el.tagName);
  // JSON-LD carries entry text as escaped JSON data, which never runs.
  for (const s of document.querySelectorAll('script:not([type="application/ld+json"])'))
    if (/alert\\(/.test(s.textContent)) bad.push('script with alert');
  for (const s of document.querySelectorAll('style'))
    if (/display:\\s*none/.test(s.textContent) && /body/.test(s.textContent)) bad.push('style');
  return bad;
}"""


def hostile_entry_data() -> dict[str, object]:
    """The factory entry with payloads in every free-text place the schema lets them reach."""
    data = yaml.safe_load(entry_yaml())
    code_span = "`" + ALL.replace("`", "'") + "`"
    plain = ALL
    one_line = ALL
    data["title"] = "Xid 79 " + one_line[:150]
    data["quick_fix"] = one_line[:190]
    for field in ("summary", "symptom", "root_cause"):
        data[field] = f"Text {code_span} and {PAYLOADS[7]}"
    data["mechanism"] = {"mistaken_for": code_span, "actually": code_span}
    data["observed"] = plain
    data["symptoms"] = [{"symptom": one_line[:190], "why": code_span}]
    data["affected_systems"] = [one_line[:190]]
    data["confirm"] = [{"command": plain, "look_for": plain, "needs_root": True}]
    data["signatures"] = [
        {
            "pattern": "NVRM: Xid (PCI:{pci}{*}): 79, ",
            "role": "defining",
            "seen_in": "https://github.com/NVIDIA/open-gpu-kernel-modules",
        },
        {
            "pattern": "<script>alert('x13')</script> {{{{ 7*7 }}}}",
            "role": "context",
            "seen_in": "https://example.org/log",
        },
    ]
    data["fix"] = [
        {
            "step": code_span,
            "commands": [plain],
            "code": [{"stack": "pytorch", "language": "python", "code": plain}],
        }
    ]
    data["prevention"] = [code_span]
    data["applies_to"] = [{"component": one_line[:190], "versions": one_line[:190]}]
    data["references"] = [{"title": one_line[:190], "url": "https://example.org/ref"}]
    data["examples"] = [
        {
            "url": "https://example.org/thread",
            "log": "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n" + plain,
        }
    ]
    data["faq"] = [
        {"q": one_line[:190], "a": code_span},
        {"q": "Second " + one_line[:150], "a": PAYLOADS[7]},
        {"q": "Third " + one_line[:150], "a": code_span},
    ]
    return data


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    repo = tmp_path_factory.mktemp("hostile")
    shutil.copy(REPO / "mkdocs.yml", repo / "mkdocs.yml")
    shutil.copytree(REPO / "templates", repo / "templates")
    path = repo / f"entries/gpu-hardware/{ENTRY_ID}.yaml"
    path.parent.mkdir(parents=True)
    text = "# yaml-language-server: $schema=../../schema/entry.schema.json\n"
    path.write_text(text + yaml.safe_dump(hostile_entry_data(), sort_keys=False, width=10_000))
    out = repo / "site"
    build_site(repo / "mkdocs.yml", out)
    server, url = serve_dir(out)
    yield url
    server.shutdown()


def assert_inert(page, url: str) -> None:  # type: ignore[no-untyped-def]
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    page.wait_for_load_state("networkidle")
    assert dialogs == []
    assert page.evaluate(FORBIDDEN_DOM) == []


@pytest.mark.parametrize(
    "path",
    [f"failures/{ENTRY_ID}/", "", "categories/gpu-hardware/", "tags/xid/", "xid/"],
)
def test_built_pages_carry_the_payloads_as_text(hostile_site: str, page, path: str) -> None:  # type: ignore[no-untyped-def]
    assert_inert(page, f"{hostile_site}/{path}")
    if path.startswith("failures/"):
        body = page.locator("body").inner_text()
        assert "<script>alert('x1')</script>" in body
        assert "{{ 7*7 }}" in body and "49" not in re.sub(r"\d{3,}", "", body)


def test_site_search_for_a_payload_shows_it_inert(hostile_site: str, page) -> None:  # type: ignore[no-untyped-def]
    assert_inert(page, f"{hostile_site}/")
    search(page, "fallen <img src=x onerror=alert('x2')>")
    assert page.evaluate(FORBIDDEN_DOM) == []


def test_raw_payloads_past_the_validator_are_still_escaped_by_the_renderer(page) -> None:  # type: ignore[no-untyped-def]
    data = hostile_entry_data()
    for field in ("summary", "symptom", "root_cause"):
        data[field] = ALL
    data["mechanism"] = {"mistaken_for": ALL, "actually": ALL}
    data["symptoms"] = [{"symptom": "s", "why": ALL}]
    data["fix"][0]["step"] = ALL  # type: ignore[index]
    data["prevention"] = [ALL]
    data["faq"] = [{"q": "q1", "a": ALL}, {"q": "q2", "a": ALL}, {"q": "q3", "a": ALL}]
    entry = Entry.model_validate(data)
    html = Renderer(REPO / "templates").entry(entry, Catalog.of([entry])).html
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.set_content(f"<!doctype html><html><body>{html}</body></html>")
    page.wait_for_timeout(300)
    assert dialogs == []
    assert page.evaluate(FORBIDDEN_DOM) == []
    assert page.locator("body").inner_text().count("<script>alert('x1')</script>") >= 10


def test_the_validator_refuses_raw_html_and_script_links_in_markdown() -> None:
    from generator.validation import SourceFile, validate_sources

    data = hostile_entry_data()
    data["summary"] = ALL
    # Raw HTML swallows the rest of its paragraph, so the link tricks go in a field of their own.
    data["symptom"] = f"{PAYLOADS[5]} and {PAYLOADS[6]}"
    text = "# yaml-language-server: $schema=../../schema/entry.schema.json\n" + yaml.safe_dump(
        data, sort_keys=False, width=10_000
    )
    result = validate_sources([SourceFile(f"entries/gpu-hardware/{ENTRY_ID}.yaml", text.encode())])
    kinds = {p.message.split(":")[0] for p in result.problems if p.check == "markdown"}
    assert kinds == {
        "raw HTML is not allowed",
        "images are not allowed; link to the page instead",
        'link target "javascript',
    }


def test_payloads_pasted_as_a_log_on_the_diagnose_page_stay_inert(hostile_site: str, page) -> None:  # type: ignore[no-untyped-def]
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{hostile_site}/diagnose/")
    page.wait_for_selector("[data-tw-diagnose][data-ready]", timeout=15_000)
    log = "\n".join(
        [*PAYLOADS, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.", ALL]
    )
    page.fill("#tw-dx-log", log)
    page.click("[data-dx-run]")
    page.wait_for_selector(f'.tw-dx-card[data-entry-id="{ENTRY_ID}"]')
    page.wait_for_timeout(300)
    assert dialogs == []
    assert page.evaluate(FORBIDDEN_DOM) == []
    # The card shows the entry's own payload-laden title as text.
    assert "<script>alert('x1')</script>" in page.locator(".tw-dx-card").first.inner_text()
