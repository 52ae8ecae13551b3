"""Inline marks: the code spans and emphasis that one-line fields may carry.

`quick_fix`, `symptoms[].symptom`, `confirm[].look_for`, `faq[].q` and `affected_systems[]` are
short text, but authors write backticks and asterisks in them as they do in prose. They take
exactly three inline rules, code spans, emphasis and backslash escapes, and nothing else: no
links, no HTML, no entities, so every other character shows as written. Text with a mark left
over (an unclosed backtick, emphasis that did not close) would show it literally, so validate
refuses it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token


def _parser() -> MarkdownIt:
    md = MarkdownIt("zero", {"html": False, "linkify": False, "typographer": False})
    md.enable(["backticks", "emphasis", "escape"])
    return md


INLINE = _parser()
# What would show as a Markdown mark: any backtick, or asterisks wrapped round a word the way
# emphasis is written (`*x*`, `**x**`). A lone asterisk (`2 * 3`, `cu*`, Slurm's `*** JOB`)
# is ordinary text.
_MARKS = re.compile(r"`|(?<![\w*])\*{1,2}[^\s*][^*\n]*?(?<!\s)\*{1,2}(?![\w*])")


@lru_cache(maxsize=1 << 14)
def inline_tokens(text: str) -> tuple[Token, ...]:
    tokens = INLINE.parseInline(text, {})
    return tuple(tokens[0].children or ()) if tokens else ()


@lru_cache(maxsize=1 << 14)
def inline_plain(text: str) -> str:
    """The text a reader sees, marks removed: for terminals, JSON-LD, anchors and the index."""
    out = []
    for token in inline_tokens(text):
        if token.type in ("text", "code_inline"):
            out.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return re.sub(r"\s+", " ", "".join(out)).strip()


def leftover_mark(text: str) -> str | None:
    """The first mark that would show literally (outside code spans), or None."""
    for token in inline_tokens(text):
        if token.type == "text":
            found = _MARKS.search(token.content)
            if found:
                return found.group()[0]
    return None


def has_marks(text: str) -> bool:
    """Whether plain text (a title) carries what reads as a Markdown mark."""
    return _MARKS.search(text) is not None
