"""Every entry page, as a reader's browser sees it: findable, linkable, usable on a phone and on
paper, a copy button on every command, its badges.

Chromium visits each entry page once, at phone width, reads what the tests below need, and
prints it to PDF in A4 and Letter; each test then checks one promise over every entry and
reports every entry that breaks it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

import pytest

from generator.catalog import Catalog
from generator.render.markdown import plain_text
from generator.render.pages import unique_slugs
from tests.browser.test_reader_findable import HEAD, JSON_LD, check_head

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
RUNBOOK_SECTIONS = ["summary", "confirm", "fix"]

READ = """() => {
  const entry = document.querySelector('.tw-entry');
  const heading = (h) => ({
    id: h.id,
    // The heading's words as a reader sees them: code spans included, the permalink left out.
    text: [...h.childNodes].filter(n => !(n.classList && n.classList.contains('headerlink')))
      .map(n => n.textContent).join(''),
    link: (h.querySelector('a.headerlink') || {getAttribute: () => null}).getAttribute('href'),
  });
  return {
    ids: [...document.querySelectorAll('[id]')].map(e => e.id),
    sections: [...entry.querySelectorAll('h2')].map(heading),
    faq: [...entry.querySelectorAll('.tw-faq h3')].map(h => {
      const answer = [];
      for (let n = h.nextElementSibling; n && n.tagName !== 'H3'; n = n.nextElementSibling) {
        answer.push(n.innerText);
      }
      return {...heading(h), answer: answer.join(' ')};
    }),
    blocks: [...entry.querySelectorAll('pre')].map(pre => {
      const buttons = [...pre.querySelectorAll('button.md-code__button[data-md-type=copy]')];
      const target = buttons.length
        ? document.querySelector(buttons[0].dataset.clipboardTarget)
        : null;
      return {
        kind: pre.className,
        text: pre.querySelector('code').textContent,
        copy: buttons.length,
        copies_itself: target === pre.querySelector('code'),
        label: buttons.length ? (buttons[0].getAttribute('aria-label') || buttons[0].title) : '',
      };
    }),
    severity: [...entry.querySelectorAll('.tw-meta .tw-sev')]
      .map(b => [b.dataset.severity, b.textContent]),
    meta_root: entry.querySelectorAll('.tw-meta .tw-root').length,
    // What a reader reads outside code: a Markdown mark left in it shows as typed.
    prose: (() => {
      const copy = entry.cloneNode(true);
      copy.querySelectorAll('pre, code, .headerlink').forEach(n => n.remove());
      return copy.textContent;
    })(),
    steps: [...entry.querySelectorAll('.tw-checklist > li')].map(li => ({
      root: [...li.querySelectorAll('.tw-root')].map(b => b.textContent),
      command: li.querySelector('pre code').textContent,
    })),
  };
}"""

# Whatever sticks out of the viewport sideways, or scrolls sideways, other than a code block.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const bad = [];
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (typeof e.className === 'string' && e.className
      ? '.' + e.className.trim().split(/\\s+/).join('.')
      : '');
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('pre, .md-sidebar, .md-search, .md-dialog, .md-header__title')) continue;
    const style = getComputedStyle(e);
    const box = e.getBoundingClientRect();
    if (style.visibility === 'hidden' || box.width === 0 || box.height === 0) continue;
    if (box.right > width + 1 || box.left < -1) {
      bad.push(`${name(e)} spans ${Math.round(box.left)}..${Math.round(box.right)}px`);
    }
    if (['auto', 'scroll'].includes(style.overflowX) && e.scrollWidth > e.clientWidth + 1) {
      bad.push(`${name(e)} scrolls sideways`);
    }
  }
  const page = document.documentElement.scrollWidth;
  if (page > width) bad.push(`the page is ${page}px wide`);
  return bad;
}"""

PRINTED = """() => ({
  sections: [...document.querySelectorAll('.tw-entry h2')]
    .filter(h => h.getClientRects().length).map(h => h.id),
  note: (document.querySelector('.tw-print-only') || {}).innerText || '',
  colour: getComputedStyle(document.querySelector('.tw-entry h1')).color,
})"""


@dataclass
class Visit:
    head: dict[str, Any]
    json_ld: list[dict[str, Any]]
    dom: dict[str, Any]
    overflow: list[str]
    printed: dict[str, Any]
    pdf_pages: dict[str, int]


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


@pytest.fixture(scope="module")
def visits(browser, site_url: str, catalog: Catalog) -> dict[str, Visit]:  # type: ignore[no-untyped-def]
    # A phone in dark mode: the print must still come out black on white.
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, color_scheme="dark"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    found: dict[str, Visit] = {}
    for entry in catalog.entries:
        page.emulate_media(media="screen")
        page.goto(f"{site_url}/failures/{entry.id}/")
        # The theme adds the copy buttons once the page has loaded.
        page.wait_for_function(
            """() => document.querySelectorAll('.tw-entry pre').length ===
                     document.querySelectorAll('.tw-entry pre button[data-md-type=copy]').length"""
        )
        head, json_ld, dom = page.evaluate(HEAD), page.evaluate(JSON_LD), page.evaluate(READ)
        overflow = page.evaluate(OVERFLOW)
        page.emulate_media(media="print")
        printed = page.evaluate(PRINTED)
        pages = {size: pdf_pages(page.pdf(format=size)) for size in ("A4", "Letter")}
        found[entry.id] = Visit(head, json_ld, dom, overflow, printed, pages)
    context.close()
    assert errors == []
    return found


def failures(catalog: Catalog, check) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Run `check(entry)` for every entry; {id: what went wrong} for those that fail."""
    found = {}
    for entry in catalog.entries:
        try:
            check(entry)
        except AssertionError as exc:
            found[entry.id] = str(exc) or repr(exc)
    return found


# Readable

# A backtick, or a word wrapped in asterisks or underscores the way Markdown writes emphasis:
# marks that only mean something to Markdown, so on a page they are a rendering mistake. A
# lone asterisk (`2 * 3`, Slurm's `*** JOB`) is text.
LITERAL_MARK = re.compile(
    r"`"
    r"|(?<![\w*])\*{1,2}[^\s*][^*\n]*?(?<!\s)\*{1,2}(?![\w*])"
    r"|(?<![\w_])_{1,2}[^\s_][^_\n]*?(?<!\s)_{1,2}(?![\w_])"
)


def test_no_entry_page_shows_a_literal_markdown_mark(
    visits: dict[str, Visit], catalog: Catalog
) -> None:
    def check(entry):  # type: ignore[no-untyped-def]
        prose = visits[entry.id].dom["prose"]
        found = [
            prose[max(0, m.start() - 30) : m.end() + 30].replace("\n", " ")
            for m in LITERAL_MARK.finditer(prose)
        ]
        assert found == []

    assert failures(catalog, check) == {}


# Findable


def test_every_entry_page_has_its_canonical_url_summary_social_card_and_feed_link(
    visits: dict[str, Visit], catalog: Catalog, site_url: str
) -> None:
    def check(entry):  # type: ignore[no-untyped-def]
        head = visits[entry.id].head
        check_head(head, site_url, f"{site_url}/failures/{entry.id}/", kind="article")
        assert head["meta"]["description"] == plain_text(entry.summary)
        assert head["meta"]["og:title"] == entry.title
        assert head["title"] == f"{entry.title} - Trainwreck"

    assert failures(catalog, check) == {}


ARTICLE_REQUIRED = {
    "@context",
    "@type",
    "headline",
    "description",
    "url",
    "mainEntityOfPage",
    "image",
    "dateModified",
    "author",
    "publisher",
}


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


def test_every_entry_page_passes_a_rich_results_style_check_of_its_json_ld(
    visits: dict[str, Visit], catalog: Catalog, site_url: str
) -> None:
    """In the spirit of Google's Rich Results test: valid JSON (Chromium parsed it), the types
    it knows, the properties it requires or recommends, and FAQ content that is on the page."""

    def check(entry):  # type: ignore[no-untyped-def]
        url = f"{site_url}/failures/{entry.id}/"
        blocks = visits[entry.id].json_ld
        assert [b["@type"] for b in blocks] == ["TechArticle", "FAQPage"]
        article, faq = blocks
        assert all(b["@context"] == "https://schema.org" for b in blocks)
        assert set(article) >= ARTICLE_REQUIRED, ARTICLE_REQUIRED - set(article)
        assert isinstance(article["headline"], str) and 0 < len(article["headline"]) <= 110
        assert article["url"] == article["mainEntityOfPage"] == url
        assert article["dateModified"] == entry.last_reviewed.isoformat()
        assert article["image"] == f"{site_url}/images/social-card.png"
        assert article["author"]["@type"] == "Organization" and article["author"]["name"]
        assert article["publisher"]["@type"] == "Organization" and article["publisher"]["name"]
        assert article["description"] == plain_text(entry.summary)

        questions = faq["mainEntity"]
        shown = visits[entry.id].dom["faq"]
        assert isinstance(questions, list) and len(questions) == len(shown) == len(entry.faq)
        for question, visible in zip(questions, shown, strict=True):
            assert question["@type"] == "Question"
            assert question["name"] == visible["text"]
            assert question["url"] == f"{url}#{visible['id']}"
            answer = question["acceptedAnswer"]
            assert answer["@type"] == "Answer" and answer["text"].strip()
            # The answer a search engine gets is the one a reader sees.
            assert _text(answer["text"]) == re.sub(r"\s+", " ", visible["answer"]).strip()

    assert failures(catalog, check) == {}


# Linkable


def test_every_section_and_every_question_has_a_stable_anchor_and_a_permalink(
    visits: dict[str, Visit], catalog: Catalog
) -> None:
    def check(entry):  # type: ignore[no-untyped-def]
        dom = visits[entry.id].dom
        sections = {s["id"]: s for s in dom["sections"]}
        for anchor, title in [
            ("symptoms", "Symptoms"),
            ("confirm", "How to confirm"),
            ("fix", "How to fix"),
            ("faq", "FAQ"),
        ]:
            assert sections[anchor]["text"] == title
        for heading in [*dom["sections"], *dom["faq"]]:
            assert heading["link"] == f"#{heading['id']}", heading
        # A question's anchor is made from its text, so it stays while the question does.
        assert [q["id"] for q in dom["faq"]] == unique_slugs([i.q for i in entry.faq], "faq-")
        repeated = sorted({i for i in dom["ids"] if dom["ids"].count(i) > 1})
        assert repeated == [], f"ids used twice: {repeated}"

    assert failures(catalog, check) == {}


# Usable during an incident


def test_every_command_and_code_block_has_a_copy_button_that_copies_that_block(
    visits: dict[str, Visit], catalog: Catalog
) -> None:
    def check(entry):  # type: ignore[no-untyped-def]
        blocks = visits[entry.id].dom["blocks"]
        commands = [c for step in entry.fix for c in step.commands]
        commands += [step.command for step in entry.confirm]
        shown = [b["text"] for b in blocks if b["kind"] == "tw-command"]
        assert sorted(shown) == sorted(commands)
        assert [b for b in blocks if b["copy"] != 1 or not b["copies_itself"]] == []
        assert {b["label"] for b in blocks} == {"Copy to clipboard"}

    assert failures(catalog, check) == {}


def test_badges_show_the_severity_and_which_checks_need_root(
    visits: dict[str, Visit], catalog: Catalog
) -> None:
    def check(entry):  # type: ignore[no-untyped-def]
        dom = visits[entry.id].dom
        assert dom["severity"] == [[entry.severity.value, f"Severity: {entry.severity.value}"]]
        assert [s["command"] for s in dom["steps"]] == [s.command for s in entry.confirm]
        assert [s["root"] for s in dom["steps"]] == [
            ["needs root"] if s.needs_root else [] for s in entry.confirm
        ]
        assert dom["meta_root"] == (1 if any(s.needs_root for s in entry.confirm) else 0)

    assert failures(catalog, check) == {}
    # The catalog has both kinds of step, so both branches above were exercised.
    steps = [s for e in catalog.entries for s in e.confirm]
    assert {s.needs_root for s in steps} == {True, False}


def test_no_entry_page_scrolls_sideways_on_a_390px_phone_outside_code_blocks(
    visits: dict[str, Visit],
) -> None:
    assert {i: v.overflow for i, v in visits.items() if v.overflow} == {}


def test_every_entry_prints_as_a_one_page_runbook_in_a4_and_letter(
    visits: dict[str, Visit], site_url: str
) -> None:
    one_page = {"A4": 1, "Letter": 1}
    assert {i: v.pdf_pages for i, v in visits.items() if v.pdf_pages != one_page} == {}
    for entry_id, visit in visits.items():
        assert visit.printed["sections"] == RUNBOOK_SECTIONS, entry_id
        assert f"{site_url}/failures/{entry_id}/" in visit.printed["note"]
        # Printed from a dark screen, the text is still black on white paper.
        assert visit.printed["colour"] == "rgb(0, 0, 0)"
