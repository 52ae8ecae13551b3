"""The compiled signature index: one versioned JSON file that both engines read.

The site publishes it at `/signatures.json`; `trainwreck diagnose` builds the same data from
`entries/`, or reads a file given with `--index`, or the copy bundled in the package
(generator/bundled/). It holds only portable definitions: each signature's pattern in the
dialect of `pattern.py`, its role and owner, and for each entry what a diagnosis shows
(title, severity, one-line fix, page path) and the relations triage follows.

    {"version": 1,
     "catalog": "2026-11-30.1f3a9c0b2e",   # the catalog's version: newest review date, digest
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

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from generator.diagnose.pattern import Matcher, PatternError

if TYPE_CHECKING:
    from generator.model.entry import Entry

INDEX_VERSION = 1
# The signals an entry's `codes.signal` may name, by number (launcher.SIGNALS says what each means).
SIGNAL_NUMBERS = {"SIGILL": 4, "SIGABRT": 6, "SIGBUS": 7, "SIGFPE": 8, "SIGKILL": 9, "SIGSEGV": 11}
MAX_LINE_BYTES = 65536
ROLES = ("defining", "context", "harmless")


def entry_path(entry_id: str) -> str:
    """Where an entry's page lives on the site (kept equal to the renderer's by a test)."""
    return f"failures/{entry_id}/"


# Plain dataclasses, not pydantic models: `trainwreck diagnose` with the bundled index starts
# without importing pydantic (bench/startup.py). Files from elsewhere are checked by
# index_schema.py before they become these.
@dataclass(frozen=True)
class IndexEntry:
    title: str
    category: str
    severity: str
    quick_fix: str
    path: str
    related: tuple[str, ...] = ()
    collateral: tuple[str, ...] = ()
    refines: str | None = None
    kind: str = "failure"  # or "class": a family of failures (entry-format.md)
    signals: tuple[int, ...] = ()  # what a launcher's report of one of these signals names
    progress: tuple[str, ...] = ()  # what progress lines' numbers name it (trends.TREND_KINDS)


# The roles that make a matched line a known entry's (the scanner's _Shape.known and the
# tally's _known read them alike); a context signature only supports a finding.
KNOWN_ROLES = frozenset({"defining", "harmless"})


@dataclass(frozen=True)
class IndexSignature:
    entry: str
    pattern: str
    role: str
    seen_in: str


@dataclass(frozen=True)
class IndexFile:
    version: int
    max_line_bytes: int
    entries: dict[str, IndexEntry]
    signatures: tuple[IndexSignature, ...]
    # The catalog's version (catalog_version); absent from indexes written before it existed.
    catalog: str | None = field(default=None)


class IndexFormatError(ValueError):
    """The data is not a signature index this version can read."""


def catalog_version(entries: dict[str, IndexEntry], signatures: Iterable[IndexSignature]) -> str:
    """`<newest last_reviewed>.<digest>` is computed by build_index; this is the digest part:
    the first 10 hex digits of the SHA-256 of the entries and signatures as JSON, so two
    indexes with the same content carry the same version."""
    body = {
        "entries": {k: _entry_data(v) for k, v in entries.items()},
        "signatures": [asdict(s) for s in signatures],
    }
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def build_index(entries: Iterable[Entry]) -> IndexFile:
    """The index of a validated catalog: entries by id, signatures in entry then file order."""
    from generator.model.inline import inline_plain

    ordered = sorted(entries, key=lambda e: e.id)
    ids = [e.id for e in ordered]
    if len(set(ids)) != len(ids):
        raise ValueError("entry ids must be unique to build an index")
    by_id = {
        e.id: IndexEntry(
            title=e.title,
            category=str(e.category),
            severity=e.severity.value,
            quick_fix=inline_plain(e.quick_fix),
            path=entry_path(e.id),
            related=tuple(e.related),
            collateral=tuple(e.collateral),
            refines=e.refines,
            kind=e.kind,
            signals=tuple(SIGNAL_NUMBERS[name] for name in e.codes.signal),
            progress=tuple(e.codes.progress),
        )
        for e in ordered
    }
    signatures = tuple(
        IndexSignature(entry=e.id, pattern=s.pattern, role=s.role.value, seen_in=s.seen_in)
        for e in ordered
        for s in e.signatures
    )
    newest = max((e.last_reviewed for e in ordered), default=None)
    stamp = newest.isoformat() if newest else "empty"
    return IndexFile(
        version=INDEX_VERSION,
        max_line_bytes=MAX_LINE_BYTES,
        entries=by_id,
        signatures=signatures,
        catalog=f"{stamp}.{catalog_version(by_id, signatures)}",
    )


def index_data(index: IndexFile) -> dict[str, Any]:
    """The index as JSON data, in the file's key order."""
    data: dict[str, Any] = {"version": index.version}
    if index.catalog is not None:
        data["catalog"] = index.catalog
    data["max_line_bytes"] = index.max_line_bytes
    data["entries"] = {k: _entry_data(v) for k, v in index.entries.items()}
    data["signatures"] = [asdict(s) for s in index.signatures]
    return data


def _entry_data(entry: IndexEntry) -> dict[str, Any]:
    """An entry's fields, leaving out `kind`, `signals` and `progress` where they are the
    default: most entries are one failure that no signal names, and the file stays as it was."""
    data = {**asdict(entry), "related": list(entry.related), "collateral": list(entry.collateral)}
    if entry.kind == "failure":
        del data["kind"]
    if entry.signals:
        data["signals"] = list(entry.signals)
    else:
        del data["signals"]
    if entry.progress:
        data["progress"] = list(entry.progress)
    else:
        del data["progress"]
    return data


def index_json(index: IndexFile) -> str:
    return json.dumps(index_data(index), ensure_ascii=False, indent=1) + "\n"


def index_from_data(data: dict[str, Any]) -> IndexFile:
    """An IndexFile from JSON data already known to have the index's shape."""
    return IndexFile(
        version=data["version"],
        max_line_bytes=data["max_line_bytes"],
        entries={
            k: IndexEntry(
                title=v["title"],
                category=v["category"],
                severity=v["severity"],
                quick_fix=v["quick_fix"],
                path=v["path"],
                related=tuple(v.get("related", ())),
                collateral=tuple(v.get("collateral", ())),
                refines=v.get("refines"),
                kind=v.get("kind", "failure"),
                signals=tuple(v.get("signals", ())),
                progress=tuple(v.get("progress", ())),
            )
            for k, v in data["entries"].items()
        },
        signatures=tuple(
            IndexSignature(s["entry"], s["pattern"], s["role"], s["seen_in"])
            for s in data["signatures"]
        ),
        catalog=data.get("catalog"),
    )


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


def clip(text: str) -> str:
    """Text from the file, for a message: never more than a few words of it."""
    if len(text) > SHOWN_VALUE_CHARS:
        return f"{text[:SHOWN_VALUE_CHARS]}… ({len(text):,} characters)"
    return text


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


def _parse(raw: bytes, trusted: bool = False) -> dict[str, Any]:
    """The JSON of an index file; `trusted` (the bundled one) skips the bracket count that
    guards `json` against a hostile file."""
    if len(raw) > MAX_INDEX_BYTES:
        raise IndexFormatError(
            f"larger than {MAX_INDEX_BYTES >> 20} MiB, more than an index may be"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IndexFormatError(f"not JSON ({exc})") from None
    if not trusted:
        _check_structure(text)
    try:
        data: Any = json.loads(text)
    except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
        raise IndexFormatError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or "version" not in data:
        raise IndexFormatError("not a signature index (no version)")
    if data["version"] != INDEX_VERSION:
        raise IndexFormatError(
            f"index version {clip(repr(data['version']))} is not supported; "
            f"this trainwreck reads version {INDEX_VERSION}"
        )
    return data


def load_index(raw: bytes) -> SignatureIndex:
    """Parse and compile an index file, or raise IndexFormatError saying what is wrong."""
    from generator.diagnose.index_schema import check_shape

    data = _parse(raw)
    check_shape(data)
    return SignatureIndex(index_from_data(data))


def load_bundled_index(raw: bytes) -> SignatureIndex:
    """The index shipped inside the package: written by `trainwreck bundle` and kept fresh by
    tests/test_bundled_index.py, so its shape is not checked again (that would import
    pydantic on every start), nor its brackets counted; its patterns are still compiled, which
    checks them."""
    return SignatureIndex(index_from_data(_parse(raw, trusted=True)))


def merge_indexes(public: IndexFile, private: IndexFile) -> IndexFile:
    """A private catalog's index on top of the public one: both sets of entries and
    signatures, so `related` and `collateral` may point either way. An id in both is refused,
    since a diagnosis could not say which entry it names."""
    both = sorted(set(public.entries) & set(private.entries))
    if both:
        raise ValueError(f"id {both[0]!r} is in both your entries and the public catalog")
    entries = dict(sorted({**public.entries, **private.entries}.items()))
    # In entry order, as build_index over both catalogs would list them (a stable sort keeps
    # each entry's own signatures in file order).
    signatures = tuple(sorted((*public.signatures, *private.signatures), key=lambda s: s.entry))
    return IndexFile(
        version=INDEX_VERSION,
        max_line_bytes=max(public.max_line_bytes, private.max_line_bytes),
        entries=entries,
        signatures=signatures,
        catalog=f"{public.catalog}+{private.catalog}",
    )
