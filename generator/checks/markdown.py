"""The Markdown lint: prose fields may use Markdown, but never raw HTML, headings or odd links."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from generator.checks.base import Check, EntryDoc, register
from generator.loading.yaml_source import Path
from generator.model.entry import ID_RE
from generator.model.inline import has_marks, leftover_mark
from generator.problems import Level, Problem, quoted

# Parse with HTML enabled so that raw HTML shows up as tokens this lint can name; the
# renderer itself runs with HTML disabled and escapes whatever is left.
_PARSER = MarkdownIt("commonmark", {"html": True})
# Let every link through as a token, even javascript: ones, so that the lint can name them.
_PARSER.validateLink = lambda url: True  # type: ignore[method-assign]
_ENTRY_LINK = re.compile(ID_RE.rstrip("$") + r"(?:#[a-z0-9-]+)?$")
_WEB_LINK = re.compile(r"^https?://[^\s]+$")


def _walk(tokens: list[Token]) -> Iterable[tuple[Token, int]]:
    """Every token with the source line (0-based) of its nearest block."""
    for token in tokens:
        line = token.map[0] if token.map else 0
        yield token, line
        for child in token.children or ():
            yield child, line


# Memoised: the cross-entry pass asks for every entry's links on each preview save, and
# almost every text is the same as last time. Bounded to about 25 fields of 2,048 entries.
@lru_cache(maxsize=1 << 16)
def _lint(text: str) -> tuple[tuple[tuple[int, str], ...], tuple[str, ...]]:
    """One parse of a field: its problems (source line offset, message) and its entry links.
    The per-entry pass reads the first, the cross-entry pass the second, of the same parse."""
    problems = []
    links = []
    for token, line in _walk(_PARSER.parse(text)):
        message = _token_problem(token)
        if message:
            problems.append((line, message))
        if token.type == "link_open" and _ENTRY_LINK.match(str(token.attrs.get("href", ""))):
            links.append(str(token.attrs.get("href", "")))
    return tuple(problems), tuple(links)


def entry_links(text: str) -> tuple[str, ...]:
    return _lint(text)[1]


@register
class MarkdownLint(Check):
    """Markdown fields hold prose: no raw HTML, no headings, no images, and links only to
    http(s) URLs or to another entry by id.

    Passes: `see [the watchdog entry](nccl-watchdog-timeout)`.
    Fails: `<b>bold</b>`, `## Heading`, `[x](javascript:alert(1))`.
    """

    id = "markdown"

    def _problem(self, doc: EntryDoc, path: Path, line_offset: int, message: str) -> Problem:
        pos = doc.source.positions.get(path)
        if pos is not None and pos.style == "|":
            line = pos.value_line + 1 + line_offset
            text = doc.source.lines[line - 1] if line - 1 < len(doc.source.lines) else ""
            col = len(text) - len(text.lstrip()) + 1
            return Problem(doc.path, line, col, Level.ERROR, self.id, message)
        return doc.problem(self.id, message, path)

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        for path, text in doc.markdown:
            for line, message in _lint(text)[0]:
                yield self._problem(doc, path, line, message)

    def finalize(self, docs: Sequence[EntryDoc], failed_ids: frozenset[str]) -> Iterable[Problem]:
        known = {doc.entry.id for doc in docs}
        for doc in docs:
            for path, text in doc.markdown:
                for href in entry_links(text):
                    target = href.split("#")[0]
                    if target not in known and target not in failed_ids:
                        yield doc.problem(self.id, f"link to unknown entry {quoted(href)}", path)


@register
class InlineMarks(Check):
    """One-line fields (`quick_fix`, `symptoms[].symptom`, `confirm[].look_for`, `faq[].q`,
    `affected_systems[]`, `applies_to[]`, `references[].title`) take code spans and emphasis
    only, and every mark must close, so no backtick or asterisk shows on the page as typed.
    The `title` takes none.

    Passes: ``Run `nvidia-smi -q` and look for *Pending*``.
    Fails: ``Run `nvidia-smi -q`` (unclosed), ``files matching *.log`` (write `*.log`).
    """

    id = "inline-marks"

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        title = doc.entry.title
        if has_marks(title):
            yield doc.problem(
                self.id,
                "the title is plain text (the page heading, the browser tab, search results); "
                "write it without Markdown marks",
                ("title",),
            )
        for path, text in doc.inline_marked:
            mark = leftover_mark(text)
            if mark == "`":
                yield doc.problem(
                    self.id,
                    "a backtick is not closed, so it would show on the page; close the code "
                    "span or escape it as \\`",
                    path,
                )
            elif mark is not None:
                yield doc.problem(
                    self.id,
                    "emphasis that does not close would show its asterisks on the page; close "
                    "it, put the text in a code span, or escape each asterisk as \\*",
                    path,
                )


def _token_problem(token: Token) -> str | None:
    if token.type in ("html_block", "html_inline"):
        return f"raw HTML is not allowed: {token.content.strip()[:40]!r}"
    if token.type == "heading_open":
        return "headings are not allowed inside a field; the page template sets the headings"
    if token.type == "image":
        return "images are not allowed; link to the page instead"
    if token.type == "link_open":
        href = str(token.attrs.get("href", ""))
        if not (_WEB_LINK.match(href) or _ENTRY_LINK.match(href)):
            return f"link target {quoted(href)} must be an http(s) URL or another entry's id"
    return None
