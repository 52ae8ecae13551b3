"""Which of an anchor's signatures a candidate line matches: the automaton, then compiled.

The prefilter says which anchors a line holds; each of those anchors' signatures must then
match the whole line. pattern.py's automaton does that in pure Python, about 100 us for a
200-character line, which is nothing for a log with a few failures and everything for a storm
of distinct lines (a watchdog line per rank, each with its own time and sequence number).

So an anchor whose signatures have been checked `COMPILE_AFTER` times gets a Hyperscan database
of their full patterns (`to_bytes_regex`), and its later lines are checked by that in a few
microseconds. Hyperscan is an automaton too, so the no-backtracking guarantee holds. Most
anchors of a log are seen a handful of times and never pay the compile; an anchor of a storm
pays it once, a few milliseconds.

The compiled form is used only on ASCII lines, where its byte classes are exactly the
dialect's character classes (a `{token}` is any non-space character, and on ASCII text the
spaces are the ten characters of `str.isspace`). Lines with other bytes go through the
automaton as before, so both forms give the same answer on every line; the tests check the two
against each other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from generator.diagnose.pattern import Gap, Lit, Matcher, Run

COMPILE_AFTER = 64  # lines an anchor's signatures are checked by the automaton before compiling

# The dialect's classes over ASCII bytes (pattern.CLASSES). `{token}` leaves out exactly the
# ASCII characters that str.isspace() calls spaces.
_ASCII_SPACES = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
_BYTE_CLASSES = {
    "int": "[0-9]",
    "num": "[0-9.\\-]",
    "hex": "[0-9a-fA-Fx]",
    "pci": "[0-9a-fA-F:.]",
    "word": "[0-9A-Za-z_]",
    "token": "[^" + "".join(f"\\x{ord(c):02x}" for c in _ASCII_SPACES) + "]",
}


def to_bytes_regex(matcher: Matcher) -> bytes:
    """The pattern as a Hyperscan expression over one line's bytes, exact on ASCII lines.

    Every literal byte is written as an escape, so no character of a pattern can be read as
    regex syntax. A gap is any bytes: the line is scanned alone, so nothing crosses a break."""
    parts: list[str] = []
    for token in matcher.tokens:
        if isinstance(token, Lit):
            parts.append("".join(f"\\x{b:02x}" for b in token.text.encode()))
        elif isinstance(token, Run):
            parts.append(_BYTE_CLASSES[token.cls.name] + "+")
        else:
            assert isinstance(token, Gap)
            parts.append("[\\x00-\\xff]*")
    return "".join(parts).encode()


class _Compiled:
    """One Hyperscan database of some signatures' full patterns, one report per line."""

    def __init__(self, numbers: Sequence[int], matchers: Sequence[Matcher]) -> None:
        import hyperscan

        self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self._db.compile(
            expressions=[to_bytes_regex(m) for m in matchers],
            ids=list(numbers),
            elements=len(numbers),
            flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(numbers),
        )

    def matching(self, line: bytes) -> list[int]:
        found: list[int] = []

        def on_match(number: int, start: int, end: int, flags: int, context: object) -> None:
            found.append(number)

        self._db.scan(line, match_event_handler=on_match)
        return found


class Verifier:
    """The signatures of the anchors a line holds that match it, by either form."""

    def __init__(self, by_anchor: Sequence[Sequence[int]], matchers: Sequence[Matcher]) -> None:
        self._by_anchor = by_anchor
        self._matchers = matchers
        self._checked = [0] * len(by_anchor)
        self._compiled: dict[int, _Compiled | None] = {}  # None: Hyperscan is not there
        self.automaton_checks = 0  # lines checked by the automaton, for the tests

    def matching(self, anchor: int, raw: bytes, text: str) -> list[int]:
        """The numbers of `anchor`'s signatures that match the line (`raw` decoded is `text`)."""
        numbers = self._by_anchor[anchor]
        if raw.isascii():
            compiled = self._compiled.get(anchor)
            if compiled is None and anchor not in self._compiled:
                self._checked[anchor] += 1
                if self._checked[anchor] > COMPILE_AFTER:
                    compiled = self._compile(anchor)
            if compiled is not None:
                return compiled.matching(raw)
        self.automaton_checks += 1
        matchers = self._matchers
        return [n for n in numbers if matchers[n].search(text)]

    def _compile(self, anchor: int) -> _Compiled | None:
        numbers = self._by_anchor[anchor]
        compiled: _Compiled | None = None
        try:
            import hyperscan
        except ImportError:
            pass  # no wheel for this platform: the automaton does it all
        else:
            # A database Hyperscan will not build leaves the automaton to answer.
            with contextlib.suppress(hyperscan.HyperscanError):
                compiled = _Compiled(numbers, [self._matchers[n] for n in numbers])
        self._compiled[anchor] = compiled
        return compiled
