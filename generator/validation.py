"""The validation pipeline: raw files in, validated entries and the complete problem list out.

Pure: the caller reads the files. A file that fails to load or to match the schema is left out
of the entry set, and the checks still run on every other file, so one bad entry never hides
the problems of the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from pydantic import ValidationError

from generator.checks import REGISTRY, Check, EntryDoc
from generator.checks.identity import UnknownCategory
from generator.checks.schema import schema_problems
from generator.checks.signatures import IndexCheck
from generator.diagnose.engine import LogBytes
from generator.loading.yaml_source import YamlProblem, load_yaml, yaml_problem
from generator.model.categories import CATEGORIES, CategoryInfo
from generator.model.entry import Entry
from generator.problems import Level, Problem


@dataclass(frozen=True)
class SourceFile:
    path: str  # relative to the repository, with forward slashes
    raw: bytes


@dataclass(frozen=True)
class ValidationResult:
    docs: tuple[EntryDoc, ...]
    problems: tuple[Problem, ...]

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(doc.entry for doc in self.docs)


def load_doc(source: SourceFile) -> tuple[EntryDoc | None, list[Problem]]:
    # Memoised on the file's path and bytes (a pure function of them), so the preview parses
    # only the files that changed since the last save.
    doc, problems = _load_doc(source)
    return doc, list(problems)


# Bounded: at most 2,048 files of at most 512 KiB each (the loader's cap) stay in memory.
@lru_cache(maxsize=2048)
def _load_doc(source: SourceFile) -> tuple[EntryDoc | None, tuple[Problem, ...]]:
    try:
        loaded = load_yaml(source.raw)
    except YamlProblem as exc:
        return None, (yaml_problem(source.path, exc),)
    try:
        entry = Entry.model_validate(loaded.data)
    except ValidationError as exc:
        return None, tuple(schema_problems(source.path, loaded, exc))
    return EntryDoc(source.path, loaded, entry), ()


def entry_checks(categories: Sequence[CategoryInfo] = CATEGORIES) -> list[Check]:
    """Every per-entry check; the category check knows the catalog's categories."""
    return [
        UnknownCategory(categories) if cls is UnknownCategory else cls()
        for cls in REGISTRY.values()
        if cls.phase == "entry"
    ]


def catalog_problems(
    docs: Sequence[EntryDoc],
    checks: Sequence[Check],
    problems_so_far: Sequence[Problem],
    benign: Sequence[LogBytes] | None,
) -> list[Problem]:
    """The cross-entry checks, then the signature checks on the entries with no error yet.

    An entry file that did not load still has an id, its file name (the id must match it), so
    entries naming it are not reported for that; they wait, as it does, for the signature
    checks, which need every entry they relate to.
    """
    loaded = {doc.path for doc in docs}
    failed_ids = frozenset(
        PurePosixPath(p.path).stem
        for p in problems_so_far
        if p.level is Level.ERROR and p.path not in loaded
    )
    found = [p for check in checks for p in check.finalize(docs, failed_ids)]
    failed = {p.path for p in [*problems_so_far, *found] if p.level is Level.ERROR}
    clean = [
        doc
        for doc in docs
        if doc.path not in failed and not failed_ids.intersection(_relations(doc.entry))
    ]
    for cls in REGISTRY.values():
        if issubclass(cls, IndexCheck):
            found.extend(cls().check_index(clean, benign))
    return found


def loadable_entries(sources: Iterable[SourceFile]) -> tuple[list[Entry], int]:
    """The entries `diagnose` compiles its index from: of each id, the first file that loads.
    Also how many files were left out, because they do not load or repeat an id."""
    entries: dict[str, Entry] = {}
    left_out = 0
    for source in sources:
        doc, _ = load_doc(source)
        if doc is None or doc.entry.id in entries:
            left_out += 1
        else:
            entries[doc.entry.id] = doc.entry
    return list(entries.values()), left_out


def _relations(entry: Entry) -> tuple[str, ...]:
    return (*entry.related, *entry.collateral)


def validate_sources(
    sources: Sequence[SourceFile],
    report_for: Iterable[str] | None = None,
    benign: Sequence[LogBytes] | None = None,
    categories: Sequence[CategoryInfo] = CATEGORIES,
) -> ValidationResult:
    """Validate every source; report problems only for `report_for` paths when given.

    Passing the whole catalog with a narrower `report_for` lets cross-entry checks (unknown
    related ids, duplicate ids) see every entry while an editor validates one file.

    The signature checks run last, on the index compiled from the entries that passed every
    other check; `benign` is the healthy-log corpus they match against (None: not checked).
    `categories` are those an entry may name: the public ones and any a private catalog adds.
    """
    docs: list[EntryDoc] = []
    problems: list[Problem] = []
    for source in sources:
        doc, found = load_doc(source)
        problems.extend(found)
        if doc is not None:
            docs.append(doc)
    checks = entry_checks(categories)
    for doc in docs:
        for check in checks:
            problems.extend(check.validate(doc))
    problems.extend(catalog_problems(docs, checks, problems, benign))
    if report_for is not None:
        wanted = set(report_for)
        problems = [p for p in problems if p.path in wanted]
    return ValidationResult(tuple(docs), tuple(sorted(set(problems))))
