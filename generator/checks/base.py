"""Checks are small classes with stable ids.

A check looks at one entry in `validate` and at the whole set in `finalize`, and returns
problems; the registry lists them by id so that documentation and tests can name each one.
Load-time checks (YAML and encoding) are raised by the loader but registered here too, so that
every id a user can see is documented in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from generator.loading.yaml_source import LoadedYaml, Path
from generator.model.entry import INLINE_MARKS, Entry, markdown_fields
from generator.problems import Level, Problem


@dataclass(frozen=True)
class EntryDoc:
    """One entry file that loaded and passed the schema."""

    path: str
    source: LoadedYaml
    entry: Entry

    @cached_property
    def markdown(self) -> tuple[tuple[Path, str], ...]:
        """The entry's Markdown fields as (path, text). Kept with the doc, which the loader's
        cache hands back unchanged while its file is, so the preview walks only edited ones."""
        return tuple(markdown_fields(self.entry))

    @cached_property
    def inline_marked(self) -> tuple[tuple[Path, str], ...]:
        """The one-line fields that take code spans and emphasis, as (path, text)."""
        return tuple(markdown_fields(self.entry, marker=INLINE_MARKS))

    def problem(
        self,
        check: str,
        message: str,
        at: Path = (),
        *,
        at_key: bool = False,
        level: Level = Level.ERROR,
    ) -> Problem:
        line, col = self.source.position(at, at_key=at_key)
        return Problem(self.path, line, col, level, check, message)


class Check:
    id: ClassVar[str]
    phase: ClassVar[str] = "entry"  # "load" checks are raised by the loader, not run here

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        return ()

    def finalize(self, docs: Sequence[EntryDoc], failed_ids: frozenset[str]) -> Iterable[Problem]:
        """Problems across `docs`. `failed_ids` are the ids of entry files that did not load
        (YAML or schema errors): naming one is not a problem of its own, since the file's
        problems are reported where they are."""
        return ()


REGISTRY: dict[str, type[Check]] = {}


def register(cls: type[Check]) -> type[Check]:
    if cls.id in REGISTRY:
        raise RuntimeError(f"check id {cls.id!r} registered twice")
    REGISTRY[cls.id] = cls
    return cls
