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
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

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


# An index is read whole and parsed by `json`, whose C parser recurses once per level and
# builds every value before anything is checked. These bound what a hostile file can cost (in
# tests/diagnose/test_hostile_index.py, the child's peak RSS): this catalog's own index is about
# 1.6 KiB an entry (335 KB for 212) and nests 4 levels; 4 MiB of the costliest JSON, empty
# objects, would be 100 MB of Python objects, hence the cap on lists and objects too.
MAX_INDEX_BYTES = 4 << 20
MAX_INDEX_DEPTH = 32
MAX_INDEX_CONTAINERS = 100_000
# Each signature costs a compiled matcher and a prefilter literal, about 0.3 ms and 5 KB; the
# catalog has 786 today.
MAX_INDEX_SIGNATURES = 10_000
MAX_INDEX_ENTRIES = 10_000
# A JSON string; the closing quote is optional so that an unclosed one is consumed once, not
# tried again from every quote inside it. Possessive: nothing is backtracked.
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"?', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
SHOWN_VALUE_CHARS = 40
_M = TypeVar("_M", bound=BaseModel)


def _clip(text: str) -> str:
    """Text from the file, for a message: never more than a few words of it."""
    if len(text) > SHOWN_VALUE_CHARS:
        return f"{text[:SHOWN_VALUE_CHARS]}… ({len(text):,} characters)"
    return text


class _Shape(_Model):
    """The top level of an index; its entries and signatures are checked one by one after."""

    version: Literal[1]
    max_line_bytes: int = Field(ge=256, le=1 << 24)
    entries: Any
    signatures: Any


def _check_structure(text: str) -> None:
    """Refuse nesting deeper than MAX_INDEX_DEPTH and more than MAX_INDEX_CONTAINERS lists and
    objects, before `json` builds (and recurses into) any of them. Brackets inside strings do
    not count; what is not JSON at all is left for `json` to name."""
    brackets = _STRING.sub("", text).encode("ascii", "ignore").translate(None, _NOT_BRACKETS)
    opens = brackets.count(b"[") + brackets.count(b"{")
    if opens > MAX_INDEX_CONTAINERS:
        raise IndexFormatError(
            f"holds {opens:,} lists and objects, more than the {MAX_INDEX_CONTAINERS:,} "
            "an index may hold"
        )
    if opens <= MAX_INDEX_DEPTH:
        return
    depth = 0
    for byte in brackets:
        if byte in b"[{":
            depth += 1
            if depth > MAX_INDEX_DEPTH:
                raise IndexFormatError(
                    f"nests deeper than {MAX_INDEX_DEPTH} levels (an index nests 4)"
                )
        else:
            depth -= 1


def _items(model: type[_M], items: Iterable[tuple[str | int, Any]], field: str) -> list[_M]:
    """Each item validated on its own, stopping at the first bad one: validated together, a
    list of a million bad items would collect millions of errors before reporting one."""
    done = []
    for key, value in items:
        try:
            done.append(model.model_validate(value))
        except ValidationError as exc:
            raise _first_error(exc, (field, key)) from None
    return done


def _first_error(exc: ValidationError, prefix: tuple[str | int, ...] = ()) -> IndexFormatError:
    first = exc.errors(include_url=False)[0]
    where = ".".join(_clip(str(part)) for part in (*prefix, *first["loc"]))
    return IndexFormatError(f"{where}: {first['msg']}")


def load_index(raw: bytes) -> SignatureIndex:
    """Parse and compile an index file, or raise IndexFormatError saying what is wrong."""
    if len(raw) > MAX_INDEX_BYTES:
        raise IndexFormatError(
            f"larger than {MAX_INDEX_BYTES >> 20} MiB, more than an index may be"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IndexFormatError(f"not JSON ({exc})") from None
    _check_structure(text)
    try:
        data: Any = json.loads(text)
    except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
        raise IndexFormatError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or "version" not in data:
        raise IndexFormatError("not a signature index (no version)")
    if data["version"] != INDEX_VERSION:
        raise IndexFormatError(
            f"index version {_clip(repr(data['version']))} is not supported; "
            f"this trainwreck reads version {INDEX_VERSION}"
        )
    try:
        shape = _Shape.model_validate(data)
    except ValidationError as exc:
        raise _first_error(exc) from None
    if not isinstance(shape.entries, dict):
        raise IndexFormatError("entries: Input should be an object")
    if not isinstance(shape.signatures, list):
        raise IndexFormatError("signatures: Input should be a list")
    for name, items, cap in (
        ("entries", shape.entries, MAX_INDEX_ENTRIES),
        ("signatures", shape.signatures, MAX_INDEX_SIGNATURES),
    ):
        if len(items) > cap:
            raise IndexFormatError(
                f"{name}: {len(items):,} items, more than the {cap:,} an index may hold"
            )
    entries = _items(IndexEntry, shape.entries.items(), "entries")
    signatures = _items(IndexSignature, enumerate(shape.signatures), "signatures")
    parsed = IndexFile(
        version=shape.version,
        max_line_bytes=shape.max_line_bytes,
        entries=dict(zip(shape.entries, entries, strict=True)),
        signatures=tuple(signatures),
    )
    return SignatureIndex(parsed)
