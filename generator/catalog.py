"""The validated set of entries and everything derived from it for pages and the index."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from generator.model.categories import CATEGORIES, CategoryInfo
from generator.model.entry import Entry, Severity, XidCode

SEVERITY_ORDER = {s: i for i, s in enumerate(Severity)}


@dataclass(frozen=True)
class XidRow:
    """One Xid code: its meaning and action (from the entry that holds its row) and every
    entry that names it, the holder first, then the most specific (fewest codes)."""

    code: int
    info: XidCode | None  # None only in a catalog that did not pass validation
    entries: tuple[Entry, ...]

    @property
    def entry(self) -> Entry:
        return self.entries[0]


@dataclass(frozen=True)
class Catalog:
    entries: tuple[Entry, ...]
    by_id: dict[str, Entry] = field(default_factory=dict)
    # The public categories, then those a private catalog's categories.yaml adds.
    category_list: tuple[CategoryInfo, ...] = CATEGORIES

    @classmethod
    def of(
        cls, entries: Iterable[Entry], categories: Iterable[CategoryInfo] = CATEGORIES
    ) -> Catalog:
        ordered = tuple(sorted(entries, key=lambda e: e.id))
        return cls(ordered, {e.id: e for e in ordered}, tuple(categories))

    def category(self, category_id: str) -> CategoryInfo:
        return next(c for c in self.category_list if c.id == category_id)

    def in_category(self, category: CategoryInfo) -> list[Entry]:
        return sorted(
            (e for e in self.entries if e.category == category.id),
            key=lambda e: (SEVERITY_ORDER[e.severity], e.title),
        )

    def categories(self) -> list[tuple[CategoryInfo, int]]:
        return [(c, len(self.in_category(c))) for c in self.category_list]

    def tags(self) -> dict[str, list[Entry]]:
        found: dict[str, list[Entry]] = defaultdict(list)
        for entry in self.entries:
            for tag in entry.tags:
                found[tag].append(entry)
        return {tag: sorted(found[tag], key=lambda e: e.title) for tag in sorted(found)}

    def recent(self, count: int = 10) -> list[Entry]:
        return sorted(self.entries, key=lambda e: (e.last_reviewed, e.id), reverse=True)[:count]

    def xid_rows(self) -> list[XidRow]:
        naming: dict[int, list[Entry]] = defaultdict(list)
        info: dict[int, tuple[XidCode, Entry]] = {}
        # The most specific entry (fewest codes) that gives a code's row holds it.
        for e in sorted(self.entries, key=lambda e: (len(e.codes.xid), e.id)):
            for code in e.codes.xid:
                naming[code].append(e)
            for row in e.codes.xid_actions:
                info.setdefault(row.code, (row, e))

        def order(code: int) -> tuple[Entry, ...]:
            holder = info[code][1] if code in info else None
            return tuple(
                sorted(naming[code], key=lambda e: (e is not holder, len(e.codes.xid), e.id))
            )

        return [
            XidRow(code, info[code][0] if code in info else None, order(code))
            for code in sorted(naming)
        ]

    def by_severity(self) -> list[tuple[Severity, list[Entry]]]:
        """Every entry grouped by severity, critical first; titles in order within each."""
        return [
            (s, sorted((e for e in self.entries if e.severity is s), key=lambda e: e.title))
            for s in Severity
        ]

    def referenced_by(self, entry_id: str) -> list[Entry]:
        """Entries that name this one as related or collateral, for the back-links."""
        return self._referrers.get(entry_id, [])

    @cached_property
    def _referrers(self) -> dict[str, list[Entry]]:
        # Built once per catalog: asking each entry's page in turn would be quadratic.
        found: dict[str, list[Entry]] = defaultdict(list)
        for entry in self.entries:
            for target in dict.fromkeys((*entry.related, *entry.collateral)):
                if target != entry.id:
                    found[target].append(entry)
        return dict(found)
