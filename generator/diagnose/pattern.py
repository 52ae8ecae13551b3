"""The signature dialect: a log line as the software prints it, with typed placeholders.

One definition serves the Python scanner, the browser engine and validation. A pattern is
literal text in which `{int}`, `{num}`, `{hex}`, `{pci}`, `{word}`, `{token}` and `{*}` stand
for the variable parts, and `{{` / `}}` for literal braces. It matches anywhere inside one line,
case-sensitively.

Matching is a bit-parallel simulation of the pattern's automaton (Shift-And with repeatable and
sticky positions), so the cost of a line is linear in its length whatever an editor writes:
there is no backtracking to blow up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal as TypingLiteral

MAX_PATTERN_CHARS = 400
MIN_ANCHOR_CHARS = 8


@dataclass(frozen=True)
class CharClass:
    name: str
    description: str
    ascii_members: frozenset[str]
    # Non-ASCII characters belong to a class only by this rule (only {token} takes them).
    non_ascii: TypingLiteral["none", "non-space"]
    regex: str  # the same set as a regex character class, for the browser engine and docs

    def contains(self, ch: str) -> bool:
        if ord(ch) < 128:
            return ch in self.ascii_members
        return self.non_ascii == "non-space" and not ch.isspace()


_DIGITS = "0123456789"
_HEX = _DIGITS + "abcdefABCDEF"
_WORD = _DIGITS + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_ASCII = "".join(chr(i) for i in range(128))

CLASSES: dict[str, CharClass] = {
    "int": CharClass("int", "one or more digits", frozenset(_DIGITS), "none", "[0-9]"),
    "num": CharClass(
        "num", "one or more of 0-9 . -", frozenset(_DIGITS + ".-"), "none", "[0-9.\\-]"
    ),
    "hex": CharClass(
        "hex", "one or more of 0-9 a-f A-F x", frozenset(_HEX + "x"), "none", "[0-9a-fA-Fx]"
    ),
    "pci": CharClass(
        "pci", "one or more of 0-9 a-f A-F : .", frozenset(_HEX + ":."), "none", "[0-9a-fA-F:.]"
    ),
    "word": CharClass(
        "word", "one or more of A-Z a-z 0-9 _", frozenset(_WORD), "none", "[0-9A-Za-z_]"
    ),
    "token": CharClass(
        "token",
        "one or more non-space characters",
        frozenset(c for c in _ASCII if not c.isspace()),
        "non-space",
        "[^\\s]",
    ),
}
ANY = "*"
PLACEHOLDERS = (*CLASSES, ANY)


@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class Run:
    """One or more characters of a class."""

    cls: CharClass


@dataclass(frozen=True)
class Gap:
    """Any characters, possibly none."""


Token = Lit | Run | Gap


class PatternError(ValueError):
    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset


# Tried in this order at each brace: an escaped brace, a placeholder, a lone brace.
_SPECIAL = re.compile(r"\{\{|\}\}|\{[^{}]*\}|\{|\}")
# What an unclosed `{` starts: its name, up to the first space or brace.
_OPENED = re.compile(r"\{[^{} ]*")


def _cut(text: str, limit: int = 20) -> str:
    """Part of a pattern quoted in a message: at most `limit` characters."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def parse(pattern: str) -> tuple[Token, ...]:
    """Split a pattern into literal text, class runs and gaps, or raise PatternError."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(
            f"pattern is {len(pattern)} characters; the limit is {MAX_PATTERN_CHARS}"
        )
    if "\n" in pattern or "\r" in pattern:
        raise PatternError("a pattern matches one line; it cannot contain a line break")
    tokens: list[Token] = []
    literal: list[str] = []
    # Brace by brace, with the text between braces taken whole: a per-character loop made
    # compiling the catalog's ~800 patterns the largest part of diagnose's start-up.
    at = 0
    for m in _SPECIAL.finditer(pattern):
        i = m.start()
        if i > at:
            literal.append(pattern[at:i])
        at = m.end()
        found = m.group()
        if found in ("{{", "}}"):
            literal.append(found[0])
            continue
        if found == "}":
            raise PatternError("a lone } must be written }} ", i)
        if found == "{":
            opened = _OPENED.match(pattern, i)
            raise PatternError(
                f"placeholder {_cut(opened.group() if opened else '{')} is not closed; "
                "end it with } or write {{ for a literal brace",
                i,
            )
        name = found[1:-1]
        if name not in PLACEHOLDERS:
            raise PatternError(
                f"unknown placeholder {_cut(found)}; use one of "
                + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS)
                + ", or {{ for a literal brace",
                i,
            )
        if literal:
            tokens.append(Lit("".join(literal)))
            literal = []
        if name == ANY:
            if tokens and isinstance(tokens[-1], Gap):
                raise PatternError("two {*} in a row; one is enough", i)
            tokens.append(Gap())
        else:
            tokens.append(Run(CLASSES[name]))
    if at < len(pattern):
        literal.append(pattern[at:])
    if literal:
        tokens.append(Lit("".join(literal)))
    if not tokens or not isinstance(tokens[0], Lit):
        raise PatternError(
            "a pattern starts with literal text; a leading placeholder adds nothing because "
            "patterns match anywhere in a line"
        )
    if isinstance(tokens[-1], Gap):
        raise PatternError(
            "drop the trailing {*}: patterns match anywhere in a line", len(pattern) - 3
        )
    if max(len(t.text) for t in tokens if isinstance(t, Lit)) < MIN_ANCHOR_CHARS:
        raise PatternError(
            f"a pattern needs a literal run of at least {MIN_ANCHOR_CHARS} characters, "
            "so that it is specific and can be found fast"
        )
    return tuple(tokens)


def literals(tokens: tuple[Token, ...]) -> list[str]:
    return [t.text for t in tokens if isinstance(t, Lit)]


def anchor(tokens: tuple[Token, ...]) -> str:
    """The longest literal: every matching line contains it, so it is the prefilter key."""
    return max(literals(tokens), key=len)


def to_regex(tokens: tuple[Token, ...]) -> str:
    """The same language as an (unanchored) regular expression, for documentation and tests.

    Only engines without backtracking blow-up (RE2, the automaton below) may run it on logs.
    """
    parts: list[str] = []
    for t in tokens:
        if isinstance(t, Lit):
            parts.append(re.escape(t.text))
        elif isinstance(t, Run):
            parts.append(t.cls.regex + "+")
        else:
            parts.append("[^\\n]*")
    return "".join(parts)


def digit_blind(tokens: tuple[Token, ...]) -> bool:
    """Whether the pattern matches a line exactly when it matches the line with each ASCII digit
    made `0`: no literal holds an ASCII digit. Every class holds all ten digits (the tests check
    it), so a digit meets only tests that all ten pass alike; with no digit among
    the literals, changing one digit for another changes no test the automaton makes. The
    scanner then verifies a storm's lines once per shape (scan.py)."""
    return not any(isinstance(t, Lit) and any(c in _DIGITS for c in t.text) for t in tokens)


class Matcher:
    """A compiled pattern. `search(line)` is O(len(line) * bits/word) with no backtracking.

    Bit i of the state is set when the pattern up to position i matches text ending at the
    current character. A literal character is one position; a class run is one position that
    may repeat; the position before a gap is sticky, since once reached it stays reachable.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.tokens = parse(pattern)
        self.literals = literals(self.tokens)
        self.first = self.literals[0]
        self.anchor = anchor(self.tokens)
        self.digit_blind = digit_blind(self.tokens)
        self._plain = len(self.tokens) == 1
        positions: list[str | CharClass] = []
        repeat = 0
        sticky = 0
        for t in self.tokens:
            if isinstance(t, Lit):
                positions.extend(t.text)
            elif isinstance(t, Run):
                repeat |= 1 << len(positions)
                positions.append(t.cls)
            else:
                sticky |= 1 << (len(positions) - 1)
        self._positions = positions
        self._repeat = repeat
        self._sticky = sticky
        self._final = 1 << (len(positions) - 1)
        self._masks: dict[str, int] = {}

    def _mask(self, ch: str) -> int:
        mask = self._masks.get(ch)
        if mask is None:
            mask = 0
            for i, p in enumerate(self._positions):
                if (p == ch) if isinstance(p, str) else p.contains(ch):
                    mask |= 1 << i
            if len(self._masks) < 4096:
                self._masks[ch] = mask
        return mask

    def search(self, line: str) -> bool:
        start = line.find(self.first)
        if start < 0:
            return False
        if self._plain:
            return True
        for lit in self.literals:
            if lit not in line:
                return False
        state = 0
        repeat, sticky, final = self._repeat, self._sticky, self._final
        mask_of = self._mask
        for ch in line[start:] if start else line:
            b = mask_of(ch)
            state = (((state << 1) | 1) & b) | (state & repeat & b) | (state & sticky)
            if state & final:
                return True
        return False


def describe_placeholders() -> str:
    return (
        ", ".join(f"{{{c.name}}} ({c.description})" for c in CLASSES.values())
        + ", {*} (anything, possibly nothing)"
    )
