"""Checks on where an entry lives and what it is called."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from generator.checks.base import Check, EntryDoc, register
from generator.model.categories import CATEGORIES, CategoryInfo
from generator.problems import Level, Problem, quoted
from generator.scaffold import SCHEMA_LINE


@register
class IdMatchesFilename(Check):
    """The `id` equals the file's stem, so URLs and file names never drift apart.

    Passes: `id: nan-loss` in `entries/numerics/nan-loss.yaml`. Fails: `id: nan-losses` there.
    """

    id = "id-filename"

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        stem = PurePosixPath(doc.path).stem
        if doc.entry.id != stem:
            yield doc.problem(
                self.id, f"id {doc.entry.id!r} does not match the file name {quoted(stem)}", ("id",)
            )


@register
class CategoryMatchesDirectory(Check):
    """An entry lives at `entries/<category>/<id>.yaml`.

    Fails: `category: memory` in `entries/numerics/`.
    """

    id = "category-directory"

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        folder = PurePosixPath(doc.path).parent.name
        if doc.entry.category != folder:
            yield doc.problem(
                self.id,
                f"category {doc.entry.category!r} does not match the folder {quoted(folder)}; "
                f"move the file to entries/{doc.entry.category}/",
                ("category",),
            )


@register
class UnknownCategory(Check):
    """An entry's category is one of the public ones or one its catalog's `categories.yaml`
    declares.

    Fails: `category: gpu` (the public category is `gpu-hardware`).
    """

    id = "category-unknown"

    def __init__(self, categories: Sequence[CategoryInfo] = CATEGORIES) -> None:
        self.known = tuple(c.id for c in categories)

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        if doc.entry.category not in self.known:
            yield doc.problem(
                self.id,
                f"unknown category {doc.entry.category!r}; one of: {', '.join(self.known)} "
                "(a private catalog declares its own in categories.yaml)",
                ("category",),
            )


@register
class DuplicateId(Check):
    """No two entries share an id, wherever they live."""

    id = "duplicate-id"

    def finalize(self, docs: Sequence[EntryDoc], failed_ids: frozenset[str]) -> Iterable[Problem]:
        by_id: dict[str, list[EntryDoc]] = defaultdict(list)
        for doc in docs:
            by_id[doc.entry.id].append(doc)
        for entry_id, same in by_id.items():
            if len(same) < 2:
                continue
            ordered = sorted(same, key=lambda d: d.path)
            for doc in ordered[1:]:
                yield doc.problem(
                    self.id, f"id {entry_id!r} is already used by {ordered[0].path}", ("id",)
                )


@register
class UnknownRelation(Check):
    """`related` and `collateral` name existing entries, and never the entry itself.

    Fails: `related: [no-such-entry]`. An entry whose file is there but does not load is not
    unknown: that file's own problems are reported instead.
    """

    id = "unknown-id"

    def finalize(self, docs: Sequence[EntryDoc], failed_ids: frozenset[str]) -> Iterable[Problem]:
        known = {doc.entry.id for doc in docs}
        for doc in docs:
            for field in ("related", "collateral"):
                for i, other in enumerate(getattr(doc.entry, field)):
                    if other == doc.entry.id:
                        yield doc.problem(self.id, f"{field} names the entry itself", (field, i))
                    elif other not in known and other not in failed_ids:
                        yield doc.problem(
                            self.id, f"{field} names unknown entry {other!r}", (field, i)
                        )


@register
class AliasCollision(Check):
    """An alias (a former id) is unique: it names no current entry and no other alias.

    Fails: `aliases: [nan-loss]` while `nan-loss` is an entry, or two entries listing one alias.
    """

    id = "alias-collision"

    def finalize(self, docs: Sequence[EntryDoc], failed_ids: frozenset[str]) -> Iterable[Problem]:
        ids = {doc.entry.id: doc for doc in docs}
        first_holder: dict[str, EntryDoc] = {}
        for doc in sorted(docs, key=lambda d: d.path):
            for i, alias in enumerate(doc.entry.aliases):
                where = ("aliases", i)
                if alias in ids:
                    owner = "this entry" if ids[alias] is doc else ids[alias].path
                    yield doc.problem(self.id, f"alias {alias!r} is the id of {owner}", where)
                elif alias in first_holder and first_holder[alias] is not doc:
                    other = first_holder[alias].path
                    yield doc.problem(
                        self.id, f"alias {alias!r} is already an alias in {other}", where
                    )
                else:
                    first_holder.setdefault(alias, doc)


@register
class SchemaLine(Check):
    """An entry starts with the line that points editors' YAML plugins at the JSON Schema, so
    VS Code, Neovim and JetBrains autocomplete fields and flag mistakes while typing.

    Passes: `# yaml-language-server: $schema=../../schema/entry.schema.json` as line 1.
    """

    id = "schema-line"

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        first = doc.source.lines[0] if doc.source.lines else ""
        if first != SCHEMA_LINE:
            yield Problem(
                doc.path,
                1,
                1,
                Level.ERROR,
                self.id,
                f"the first line must be `{SCHEMA_LINE}` (trainwreck new writes it)",
            )


@register
class XidActions(Check):
    """Each Xid code that an entry names in `codes.xid` has its meaning and action bucket in a
    `codes.xid_actions` row of an entry that names it; the /xid/ table and /api/xid/ read them
    from there. Rows for one code in several entries must say the same.

    Passes: `xid: [79]` with `xid_actions: [{code: 79, meaning: ..., action: reboot}]`, and
    another entry naming 79 without a row. Fails: a row for a code the entry does not name,
    a code no entry gives a row for, or two rows for one code that disagree.
    """

    id = "xid-actions"

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        codes = doc.entry.codes
        for i, row in enumerate(codes.xid_actions):
            if row.code not in codes.xid:
                yield doc.problem(
                    self.id,
                    f"Xid {row.code} is not in codes.xid",
                    ("codes", "xid_actions", i, "code"),
                )

    def finalize(self, docs: Sequence[EntryDoc], failed_ids: frozenset[str]) -> Iterable[Problem]:
        rows: dict[int, list[tuple[EntryDoc, int]]] = defaultdict(list)
        named: dict[int, list[tuple[EntryDoc, int]]] = defaultdict(list)
        for doc in sorted(docs, key=lambda d: d.path):
            for i, row in enumerate(doc.entry.codes.xid_actions):
                rows[row.code].append((doc, i))
            for i, code in enumerate(doc.entry.codes.xid):
                named[code].append((doc, i))
        for code, places in sorted(named.items()):
            held = [(d, i) for d, i in rows.get(code, []) if code in d.entry.codes.xid]
            if not held:
                # Said at the entry that most likely owns the code: the one naming fewest.
                doc, i = min(
                    places,
                    key=lambda p: (
                        not p[0].entry.id.startswith("xid-"),
                        len(p[0].entry.codes.xid),
                        p[0].path,
                    ),
                )
                yield doc.problem(
                    self.id,
                    f"Xid {code} has no row in any entry's codes.xid_actions; give its "
                    "meaning and action bucket here",
                    ("codes", "xid", i),
                )
            if not held:
                continue
            first_doc, first_i = held[0]
            first = first_doc.entry.codes.xid_actions[first_i]
            for doc, i in held[1:]:
                if doc.entry.codes.xid_actions[i] != first:
                    yield doc.problem(
                        self.id,
                        f"Xid {code}'s row differs from the one in {first_doc.path}; "
                        "keep one, or make them the same",
                        ("codes", "xid_actions", i, "code"),
                    )
