"""The one problem type that every check, loader and command reports, and its printers.

Every problem has a place (path, line, column, all 1-based) so that an editor, a terminal and a
CI annotation can all point at the exact spot; formats differ only in how they print it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from enum import StrEnum

from generator.model.invisible import printable


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    col: int
    level: Level
    check: str
    message: str

    def text(self) -> str:
        # A file name or a quoted value may hold ESC or a line break: shown, never sent raw.
        path, message = printable(self.path), printable(self.message)
        return f"{path}:{self.line}:{self.col}: {self.level} [{self.check}] {message}"

    def github(self) -> str:
        # GitHub workflow commands treat %, CR and LF in the message as control characters;
        # printable() has already shown every CR and LF, so one problem stays one annotation.
        message = printable(f"[{self.check}] {self.message}").replace("%", "%25")
        path = printable(self.path).replace("%", "%25").replace(",", "%2C").replace(":", "%3A")
        return f"::{self.level} file={path},line={self.line},col={self.col}::{message}"


# What a message may quote of an author's text: enough to find it, never a 10,000-digit value.
QUOTE_CHARS = 40


def quoted(value: object, limit: int = QUOTE_CHARS) -> str:
    """A value from the input, quoted in a message: whole when short, else its start and length."""
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


FORMATS = ("text", "github", "json")


def format_problems(problems: Iterable[Problem], fmt: str) -> str:
    ordered = sorted(problems)
    if fmt == "json":
        return json.dumps([asdict(p) for p in ordered], indent=2)
    if fmt == "github":
        return "\n".join(p.github() for p in ordered)
    return "\n".join(p.text() for p in ordered)


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.level is Level.ERROR for p in problems)
