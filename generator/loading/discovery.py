"""Finding entry files on disk: the only part of loading that touches the file system."""

from __future__ import annotations

from pathlib import Path

from generator.loading.yaml_source import MAX_FILE_BYTES
from generator.problems import Level, Problem
from generator.validation import SourceFile

ENTRY_SUFFIXES = (".yaml", ".yml")


def find_entry_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    # A broken link is kept, so that it is reported as unreadable instead of skipped.
    return sorted(p for p in root.rglob("*") if p.suffix in ENTRY_SUFFIXES and not p.is_dir())


def relative_name(path: Path, base: Path) -> str:
    try:
        return path.absolute().relative_to(base.absolute()).as_posix()
    except ValueError:
        return path.as_posix()


def read_sources(paths: list[Path], base: Path) -> tuple[list[SourceFile], list[Problem]]:
    """Read each file whole (entries are capped small); an unreadable file is a problem."""
    sources: list[SourceFile] = []
    problems: list[Problem] = []
    for path in paths:
        name = relative_name(path, base)
        try:
            with path.open("rb") as handle:
                # Read one byte past the cap so the loader can say the file is too large
                # without this process ever holding a huge file in memory.
                raw = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            problems.append(
                Problem(name, 1, 1, Level.ERROR, "file-unreadable", exc.strerror or str(exc))
            )
            continue
        sources.append(SourceFile(name, raw))
    return sources, problems
