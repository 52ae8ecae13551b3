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

Python, Java and PCRE backtrack: on the portable form, a signature with ten `{*}` takes minutes
on a 70-character line. They get the atomic form (`atomic_regex`), which means the same lines
and is linear in the line in all three: see its docstring, and `export_problems` for the few
shapes it cannot write, which `trainwreck validate` refuses (check `signature-export`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from generator.diagnose.pattern import CharClass, Gap, Lit, Run, Token, parse
from generator.problems import quoted

Dialect = Literal["portable", "lucene", "atomic"]

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
    if dialect == "atomic":
        return atomic_regex(tokens)
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
    """`pattern` as a regex: found anywhere in a line (portable, atomic), or the whole line
    (lucene). Raises `NotLinear` for an atomic form of a shape `export_problems` names."""
    return tokens_regex(parse(pattern), dialect)


# The atomic form. A line is read as segments between `{*}`s. A placeholder next to a `{*}`
# or at the end matches one character of its class (the gap or the search takes the rest),
# so a segment's placeholders all sit between two literals. Each of those ends at a place
# fixed by the text: where its class stops, less the characters of the next literal that the
# class also takes (a possessive run, then a lookbehind for those characters); or, when the
# next literal ends the segment and the class takes all of it, at that literal's first
# occurrence (a lazy run in an atomic group). A segment is then found at its first place
# after the previous one, in an atomic group: its end only grows with its start, so that
# place is the best one for what follows, and nothing is tried twice. The whole expression
# starts at a line's start only; `(?<![^\n])` rather than `^`, since Java's multi-line `^`
# also starts a line after CR and U+2028, where a second attempt would read the line again.
#
# Each place a run starts at is reached by one attempt only: the literal before the run ends
# with a character the class does not take, so the run starts where the class's stretch
# starts. A literal wholly inside the class may only open a segment: the segment is then
# tried at its start and at the starts of the class's stretches, and takes the literal's first
# occurrence in each (all later ones in the stretch share its end and have less room).
# Everything else is refused (`export_problems`): a run after another run, a run after such a
# literal elsewhere, a run whose next literal lies inside its class and does not end the
# segment. So each character of a line is read by a bounded number of attempts, whatever the
# line: the work is linear in the line, with a factor of the pattern's length.


class NotLinear(ValueError):
    """A signature whose atomic form could not be linear (`export_problems` says why)."""


@dataclass(frozen=True)
class _One:
    """One character of a class: a placeholder next to `{*}`, or at the end."""

    cls: CharClass


_Item = Lit | Run | _One


def _segments(tokens: tuple[Token, ...]) -> list[list[_Item]]:
    segments: list[list[_Item]] = [[]]
    for i, t in enumerate(tokens):
        if isinstance(t, Gap):
            segments.append([])
        elif isinstance(t, Run) and (
            i + 1 == len(tokens)
            or isinstance(tokens[i + 1], Gap)
            or (i > 0 and isinstance(tokens[i - 1], Gap))
        ):
            segments[-1].append(_One(t.cls))
        else:
            segments[-1].append(t)
    return segments


def _inside(text: str, cls: CharClass) -> bool:
    return all(cls.contains(c) for c in text)


def export_problems(tokens: tuple[Token, ...]) -> list[str]:
    """Why the signature's atomic form could not be linear; empty when it is."""
    found: list[str] = []
    for previous, t in itertools.pairwise(tokens):
        if isinstance(t, Run) and isinstance(previous, Run):
            found.append(
                f"{{{previous.cls.name}}}{{{t.cls.name}}}: two placeholders in a row can split "
                "a line in many ways, which a log engine that backtracks tries one by one; put "
                "literal text between them"
            )
    for segment in _segments(tokens):
        for i, item in enumerate(segment):
            if not isinstance(item, Run):
                continue
            before, after = segment[i - 1], segment[i + 1]
            name = f"{{{item.cls.name}}}"
            if isinstance(before, Lit) and i > 1 and _inside(before.text, item.cls):
                found.append(
                    f"{name} follows {quoted(before.text)}, whose every character {name} "
                    "also takes, after another placeholder: a log engine that backtracks "
                    "would read the rest of the line again from each place it could start; "
                    f"add a character {name} does not take (a space, say) to that text"
                )
            if isinstance(after, Lit) and i + 2 < len(segment) and _inside(after.text, item.cls):
                found.append(
                    f"{name} is followed by {quoted(after.text)}, whose every character "
                    f"{name} also takes, and more: a log engine that backtracks would try "
                    f"every place {name} could end; add a character {name} does not take "
                    "(a space, say) to that text, or end the pattern or put {*} right after it"
                )
    return found


@lru_cache(maxsize=1 << 16)
def pattern_export_problems(pattern: str) -> tuple[str, ...]:
    """`export_problems` of a pattern that parses: each engine's rule set asks again."""
    return tuple(export_problems(parse(pattern)))


def _first_outside(text: str, cls: CharClass) -> int | None:
    return next((k for k, c in enumerate(text) if not cls.contains(c)), None)


def _atomic_segment(segment: list[_Item]) -> str:
    parts: list[str] = []
    taken = 0  # characters of the next literal that the run before it has read
    lead = "[^\\n]*?"
    for i, item in enumerate(segment):
        if isinstance(item, Lit):
            if taken < len(item.text):
                parts.append(_literal(item.text[taken:], "portable"))
            taken = 0
        elif isinstance(item, _One):
            parts.append(_class(item.cls, _portable_char))
        else:
            before, after = segment[i - 1], segment[i + 1]
            assert isinstance(before, Lit) and isinstance(after, Lit)
            cls = _class(item.cls, _portable_char)
            if _inside(before.text, item.cls):
                # Only at a segment's start (export_problems): try the segment where it
                # starts and where each stretch of the class starts, at the literal's first
                # occurrence in the stretch.
                lead = f"(?:|[^\\n]*?(?<!{cls}))"
                parts[0] = f"(?>{cls}*?{_literal(before.text, 'portable')})"
            k = _first_outside(after.text, item.cls)
            if k is None:
                # The literal ends the segment (export_problems): its first occurrence.
                parts.append(f"(?>{cls}+?{_literal(after.text, 'portable')})")
                taken = len(after.text)
            else:
                parts.append(f"{cls}++" if k == 0 else f"{cls}{{{k + 1},}}+")
                if k:
                    parts.append(f"(?<={_literal(after.text[:k], 'portable')})")
                taken = k
    return f"(?>{lead}{''.join(parts)})"


def atomic_regex(tokens: tuple[Token, ...]) -> str:
    """The signature for Python's re, Java and PCRE: the lines the portable form matches, in
    time linear in the line. Raises NotLinear when `export_problems` finds a reason."""
    problems = export_problems(tokens)
    if problems:
        raise NotLinear(problems[0])
    return "(?<![^\\n])" + "".join(_atomic_segment(s) for s in _segments(tokens))
