"""The compiled signature index: one versioned JSON file that both engines read.

The site publishes it at `/signatures.json`; `trainwreck diagnose` builds the same data from
`entries/` (or reads a file given with `--index`). It holds only portable definitions: each
signature's pattern in the dialect of `pattern.py`, its role and owner, and for each entry what a
diagnosis shows (title, severity, one-line fix, page path) and the relations triage follows.

    {"version": 1,
     "max_line_bytes": 65536,
     "entries": {"<id>": {"title", "category", "severity", "quick_fix", "path",
                          "related": [...], "collateral": [...], "refines": id | null}},
     "signatures": [{"entry", "pattern", "role": "defining" | "context" | "harmless",
                     "seen_in"}]}

Line rules both engines follow: a line ends at LF or at a lone CR (CRLF is one break); only
the first `max_line_bytes` bytes of a line, as they are in the file, are matched; ANSI escape
sequences (ESC [ ... final byte) among them are removed; the bytes are decoded as UTF-8 with
U+FFFD for invalid sequences.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.diagnose.pattern import Matcher, PatternError
from generator.model.entry import Entry
from generator.model.inline import inline_plain

INDEX_VERSION = 1
MAX_LINE_BYTES = 65536


def entry_path(entry_id: str) -> str:
    """Where an entry's page lives on the site (kept equal to the renderer's by a test)."""
    return f"failures/{entry_id}/"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class IndexEntry(_Model):
    title: str
    category: str
    severity: str
    quick_fix: str
    path: str
    related: tuple[str, ...] = ()
    collateral: tuple[str, ...] = ()
    refines: str | None = None


class IndexSignature(_Model):
    entry: str
    pattern: str
    role: Literal["defining", "context", "harmless"]
    seen_in: str


class IndexFile(_Model):
    version: Literal[1]
    max_line_bytes: int = Field(ge=256, le=1 << 24)
    entries: dict[str, IndexEntry]
    signatures: tuple[IndexSignature, ...]


class IndexFormatError(ValueError):
    """The data is not a signature index this version can read."""


def build_index(entries: Iterable[Entry]) -> IndexFile:
    """The index of a validated catalog: entries by id, signatures in entry then file order."""
    ordered = sorted(entries, key=lambda e: e.id)
    ids = [e.id for e in ordered]
    if len(set(ids)) != len(ids):
        raise ValueError("entry ids must be unique to build an index")
    return IndexFile(
        version=INDEX_VERSION,
        max_line_bytes=MAX_LINE_BYTES,
        entries={
            e.id: IndexEntry(
                title=e.title,
                category=e.category.value,
                severity=e.severity.value,
                quick_fix=inline_plain(e.quick_fix),
                path=entry_path(e.id),
                related=e.related,
                collateral=e.collateral,
                refines=e.refines,
            )
            for e in ordered
        },
        signatures=tuple(
            IndexSignature(entry=e.id, pattern=s.pattern, role=s.role.value, seen_in=s.seen_in)
            for e in ordered
            for s in e.signatures
        ),
    )


def index_json(index: IndexFile) -> str:
    return json.dumps(index.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n"


@dataclass(frozen=True)
class CompiledSignature:
    number: int  # position in the index's signature list
    entry: str
    role: str
    pattern: str
    matcher: Matcher


class SignatureIndex:
    """An index ready to scan with: patterns compiled, anchors grouped for the prefilter."""

    def __init__(self, data: IndexFile) -> None:
        self.data = data
        self.entries = data.entries
        self.max_line_bytes = data.max_line_bytes
        compiled: list[CompiledSignature] = []
        for i, sig in enumerate(data.signatures):
            if sig.entry not in data.entries:
                raise IndexFormatError(f"signatures[{i}]: unknown entry {sig.entry!r}")
            try:
                matcher = Matcher(sig.pattern)
            except PatternError as exc:
                raise IndexFormatError(f"signatures[{i}].pattern: {exc}") from None
            compiled.append(CompiledSignature(i, sig.entry, sig.role, sig.pattern, matcher))
        self.signatures = tuple(compiled)
        by_anchor: dict[bytes, list[int]] = {}
        for done in compiled:
            by_anchor.setdefault(done.matcher.anchor.encode(), []).append(done.number)
        self.anchors = tuple(by_anchor)
        self.by_anchor = tuple(tuple(numbers) for numbers in by_anchor.values())


def compile_index(data: IndexFile) -> SignatureIndex:
    return SignatureIndex(data)


def load_index(raw: bytes) -> SignatureIndex:
    """Parse and compile an index file, or raise IndexFormatError saying what is wrong."""
    try:
        data: Any = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexFormatError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or "version" not in data:
        raise IndexFormatError("not a signature index (no version)")
    if data["version"] != INDEX_VERSION:
        raise IndexFormatError(
            f"index version {data['version']!r} is not supported; "
            f"this trainwreck reads version {INDEX_VERSION}"
        )
    try:
        parsed = IndexFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise IndexFormatError(f"{where}: {first['msg']}") from None
    return SignatureIndex(parsed)
