"""Trojan Source: characters that change how text displays without showing themselves.

Bidi controls reorder what an editor, a terminal or a browser shows, so a command can read
as one thing and run as another; zero-width characters hide inside ids and patterns (a
signature of U+200B alone would pass the 8-character literal rule). They are refused in the
fields that are run, matched or compared; in prose the renderer shows them as visible marks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from generator.checks.base import Check, EntryDoc, register
from generator.loading.yaml_source import Path
from generator.model.invisible import INVISIBLE, NAMES
from generator.problems import Level, Problem

# The fields whose text is run, matched or compared, by the name of the key holding them.
STRICT_KEYS = frozenset(
    {
        "id",
        "aliases",
        "related",
        "collateral",
        "tags",
        "title",
        "command",
        "commands",
        "code",
        "pattern",
    }
)


def _strings(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*path, index))


def _field(path: Path) -> str | None:
    return next((part for part in reversed(path) if isinstance(part, str)), None)


@register
class InvisibleCharacter(Check):
    """No bidi controls or zero-width characters in ids, titles, commands, code and patterns.

    Fails: `command: "rm -rf /tmp/x\u202e"`, or a pattern of U+200B characters. In prose they
    are allowed, and shown on the page as `[U+202E]`.
    """

    id = "invisible-character"

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        for path, text in _strings(doc.source.data, ()):
            if _field(path) not in STRICT_KEYS:
                continue
            found = INVISIBLE.search(text)
            if found is None:
                continue
            char = found.group()
            line, col = _place(doc, path, char)
            yield Problem(
                doc.path,
                line,
                col,
                Level.ERROR,
                self.id,
                f"{_field(path)}: character U+{ord(char):04X} ({NAMES[char]}) changes how the "
                "text displays without showing itself; remove it",
            )


def _place(doc: EntryDoc, path: Path, char: str) -> tuple[int, int]:
    """The character itself when it is on the value's lines, else the value's start."""
    line, col = doc.source.position(path)
    lines = doc.source.lines
    for number in range(line - 1, len(lines)):
        start = col - 1 if number == line - 1 else 0
        at = lines[number].find(char, start)
        if at >= 0:
            return number + 1, at + 1
    return line, col
