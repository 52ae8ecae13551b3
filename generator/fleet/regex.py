"""A signature as a regular expression in each engine's dialect, meaning exactly the same lines.

`pattern.to_regex` is written for Python. The engines that run alerts read regexes in other
dialects: RE2 (Loki, DuckDB), Java (Spark `rlike`), PCRE (Splunk), Python (the sqlite REGEXP
function) and Lucene (Elasticsearch). The portable form below is read the same way by the
first four: it escapes only characters that are special in all of them, writes control
characters and the invisible Latin-1 ones as `\\xHH` (all four read that as the code point;
other spaces are written as themselves, as no escape above U+00FF is common to all four), and
spells `{token}`'s "non-space" as the exact set that Python's `str.isspace` calls space: `\\s` is
a different set in each engine (RE2 leaves out \\v, Java the non-ASCII spaces).

Lucene's regexes are another language: they match the whole value (so a search in a line is
`.*X.*`), have no `\\x` escapes and treat `"#@&<>~` as operators, so they get their own writer.
Its one inexact point is `{token}` (LUCENE_TOKEN_EXTRA), which `backends` reports per entry.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from generator.diagnose.pattern import CharClass, Gap, Lit, Run, Token, parse

Dialect = Literal["portable", "lucene"]

# Special somewhere among Python, RE2, Java and PCRE outside a class; escaping any of them with
# a backslash is a plain literal in all four.
_PORTABLE_SPECIAL = frozenset("\\.^$|?*+()[]{}")
_LUCENE_SPECIAL = frozenset('\\.^$|?*+()[]{}"#@&<>~')


def _spaces() -> tuple[tuple[int, int], ...]:
    """Python's whitespace code points as ranges: what `{token}` excludes."""
    points = [c for c in range(0x110000) if chr(c).isspace()]
    ranges: list[tuple[int, int]] = []
    for c in points:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1] = (ranges[-1][0], c)
        else:
            ranges.append((c, c))
    return tuple(ranges)


SPACES = _spaces()


def _portable_char(code: int) -> str:
    ch = chr(code)
    if code <= 0x20 or 0x7F <= code <= 0xA0:
        return f"\\x{code:02x}"
    if ch in _PORTABLE_SPECIAL or ch == "-":
        return "\\" + ch
    return ch


def _lucene_char(code: int) -> str:
    ch = chr(code)
    if ch in _LUCENE_SPECIAL or ch == "-":
        return "\\" + ch
    return ch


# What Lucene's `{token}` leaves out of the spaces: LF and CR never occur inside a line, and
# VT, FF and U+001C-U+001F have no escape in Lucene and would have to be pasted as raw control
# characters, which do not survive copying a query; so there `{token}` also takes those six.
LUCENE_TOKEN_EXTRA = frozenset({0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F})
_NEVER_IN_A_LINE = frozenset({0x0A, 0x0D})


def _lucene_spaces() -> tuple[tuple[int, int], ...]:
    return tuple(
        (c, c)
        for a, b in SPACES
        for c in range(a, b + 1)
        if c not in LUCENE_TOKEN_EXTRA | _NEVER_IN_A_LINE
    )


def _class(cls: CharClass, char: Callable[[int], str]) -> str:
    if cls.non_ascii == "non-space":
        spaces = _lucene_spaces() if char is _lucene_char else SPACES
        parts = [char(a) if a == b else f"{char(a)}-{char(b)}" for a, b in spaces]
        return "[^" + "".join(parts) + "]"
    members = sorted(ord(c) for c in cls.ascii_members)
    ranges: list[tuple[int, int]] = []
    for c in members:
        # Ranges only within digits and letters, where every dialect agrees and a reader sees it.
        if ranges and ranges[-1][1] == c - 1 and chr(c).isalnum() and chr(c - 1).isalnum():
            ranges[-1] = (ranges[-1][0], c)
        else:
            ranges.append((c, c))
    parts = [char(a) if a == b else f"{char(a)}-{char(b)}" for a, b in ranges]
    return "[" + "".join(parts) + "]"


def _literal(text: str, dialect: Dialect) -> str:
    if dialect == "lucene":
        return "".join(_lucene_char(ord(c)) for c in text)
    out = []
    for c in text:
        if c in _PORTABLE_SPECIAL:
            out.append("\\" + c)
        elif ord(c) < 0x20 or 0x7F <= ord(c) <= 0xA0:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(c)
    return "".join(out)


def tokens_regex(tokens: tuple[Token, ...], dialect: Dialect) -> str:
    char = _lucene_char if dialect == "lucene" else _portable_char
    parts: list[str] = []
    for t in tokens:
        if isinstance(t, Lit):
            parts.append(_literal(t.text, dialect))
        elif isinstance(t, Run):
            parts.append(_class(t.cls, char) + "+")
        elif isinstance(t, Gap):
            # Inside one line there is no line break; Lucene has no escape for one.
            parts.append(".*" if dialect == "lucene" else "[^\\n]*")
    body = "".join(parts)
    return f".*{body}.*" if dialect == "lucene" else body


# Memoised: a build writes each entry's rule once for each of the six engines and once for
# sigma.yml, seven times the same two regexes of every signature. Bounded to a few signatures
# of each entry of a 10,000-entry catalog, in both dialects.
@lru_cache(maxsize=1 << 16)
def signature_regex(pattern: str, dialect: Dialect = "portable") -> str:
    """`pattern` as a regex: found anywhere in a line (portable), or the whole line (lucene)."""
    return tokens_regex(parse(pattern), dialect)
