"""Finding entry files and benign logs on disk: the only part of loading that touches files.

Entries and the benign corpus arrive in pull requests, and git stores symbolic links, so a
file here may be a link to `/dev/zero` or `/dev/stdin`, or a FIFO. Only regular files inside
the repository are read, each opened without blocking and read in blocks up to a cap; anything
else is a placed problem, never a hang or a memory spike.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from generator.diagnose.engine import LogBytes
from generator.loading.categories import CATEGORIES_FILE, parse_categories
from generator.loading.yaml_source import MAX_FILE_BYTES
from generator.model.categories import CATEGORIES, CategoryInfo
from generator.problems import Level, Problem
from generator.validation import SourceFile
from generator.walk import walk_files

ENTRY_SUFFIXES = (".yaml", ".yml")
# The benign corpus is a few dozen small healthy logs; the cap bounds a hostile one.
MAX_BENIGN_BYTES = 8 << 20
_BLOCK = 1 << 20

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class Refused(Exception):
    """A file that is not read, with the check id and the one-line reason."""

    def __init__(self, check: str, message: str) -> None:
        super().__init__(message)
        self.check = check
        self.message = message


def find_entry_files(root: Path) -> list[Path]:
    if not root.is_dir():
        return [root]  # a file, a FIFO or a broken link: read_sources says what it is
    # A broken link is kept, so that it is reported as unreadable instead of skipped; a name
    # that ends in .YAML is kept, so that it is reported instead of silently left out. The
    # folder's own categories.yaml is not an entry (read_categories reads it).
    own = root / CATEGORIES_FILE
    return sorted(
        p
        for p in map(Path, walk_files(str(root)))
        if p.suffix.lower() in ENTRY_SUFFIXES and not p.is_dir() and p != own
    )


def containing(folder: Path, base: Path) -> Path:
    """What files of a catalog folder must lie inside: the repository (`base`) when the folder
    is in it, else the folder itself (a private catalog kept beside the repository)."""
    real = Path(os.path.realpath(folder))
    return base if real.is_relative_to(os.path.realpath(base)) else real


def read_categories(
    folders: Sequence[Path], base: Path
) -> tuple[tuple[CategoryInfo, ...], list[Problem]]:
    """The public categories, then those each folder's categories.yaml declares, in order."""
    found: list[CategoryInfo] = list(CATEGORIES)
    problems: list[Problem] = []
    for folder in folders:
        path = folder / CATEGORIES_FILE
        if not path.exists() and not path.is_symlink():
            continue
        name = relative_name(path, base)
        try:
            raw = read_regular(path, containing(folder, base), MAX_FILE_BYTES)
        except Refused as exc:
            problems.append(Problem(name, 1, 1, Level.ERROR, exc.check, exc.message))
            continue
        declared, wrong = parse_categories(name, raw, found)
        found.extend(declared)
        problems.extend(wrong)
    return tuple(found), problems


def relative_name(path: Path, base: Path) -> str:
    try:
        return path.absolute().relative_to(base.absolute()).as_posix()
    except ValueError:
        return path.as_posix()


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(path: Path, base: Path | None, cap: int) -> bytes:
    """Up to `cap` + 1 bytes of `path`, which must be a regular file (inside `base`, unless
    that is None).

    Raises Refused for a link out of `base`, a FIFO, a device or a socket (none is opened in
    a way that can block), and for a read error.
    """
    real = Path(os.path.realpath(path))
    # As written in the link (`/dev/stdin`), which says more than where it leads now.
    shown = os.readlink(path) if path.is_symlink() else str(real)
    if base is not None and not real.is_relative_to(os.path.realpath(base)):
        raise Refused(
            "file-not-regular",
            f"a link to {shown}, outside the repository; only files in it are read",
        )
    try:
        info = os.stat(real)
    except OSError as exc:
        raise Refused("file-unreadable", exc.strerror or str(exc)) from None
    if not stat.S_ISREG(info.st_mode):
        linked = f"a link to {shown}, " if path.is_symlink() else ""
        raise Refused(
            "file-not-regular", f"{linked}{_kind(info.st_mode)}; only regular files are read"
        )
    try:
        # O_NONBLOCK: should the file be swapped for a FIFO after the check, opening it
        # still returns at once, and the fstat below refuses it.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise Refused("file-unreadable", exc.strerror or str(exc)) from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise Refused(
                "file-not-regular", f"{_kind(opened.st_mode)}; only regular files are read"
            )
        blocks: list[bytes] = []
        size = 0
        while size <= cap:
            block = os.read(fd, min(_BLOCK, cap + 1 - size))
            if not block:
                break
            blocks.append(block)
            size += len(block)
        return b"".join(blocks)
    except OSError as exc:
        raise Refused("file-unreadable", exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def read_sources(
    paths: list[Path], base: Path, inside: Path | None = None
) -> tuple[list[SourceFile], list[Problem]]:
    """Read each file (entries are capped small); a file that is not read is a problem.

    Names are relative to `base`; a file must lie inside `inside` (default `base`), which
    for a catalog folder outside the working directory is that folder."""
    sources: list[SourceFile] = []
    problems: list[Problem] = []
    for path in paths:
        name = relative_name(path, base)
        if path.suffix not in ENTRY_SUFFIXES:
            fixed = path.with_suffix(path.suffix.lower()).name
            problems.append(
                Problem(
                    name,
                    1,
                    1,
                    Level.ERROR,
                    "file-name",
                    f"entry files end in .yaml, in lower case; rename it to {fixed}",
                )
            )
            continue
        try:
            # One byte past the cap, so the loader can say the file is too large without
            # this process ever holding a huge file in memory.
            raw = read_regular(path, inside or base, MAX_FILE_BYTES)
        except Refused as exc:
            problems.append(Problem(name, 1, 1, Level.ERROR, exc.check, exc.message))
            continue
        sources.append(SourceFile(name, raw))
    return sources, problems


def read_benign(folder: Path, base: Path) -> tuple[list[LogBytes], list[Problem]]:
    """The benign corpus: every *.log in `folder`, each a regular file of at most
    MAX_BENIGN_BYTES; any other is a problem, and is left out of the check."""
    logs: list[LogBytes] = []
    problems: list[Problem] = []
    for path in sorted(folder.glob("*.log")):
        name = relative_name(path, base)
        try:
            raw = read_regular(path, base, MAX_BENIGN_BYTES)
        except Refused as exc:
            problems.append(Problem(name, 1, 1, Level.ERROR, exc.check, exc.message))
            continue
        if len(raw) > MAX_BENIGN_BYTES:
            problems.append(
                Problem(
                    name,
                    1,
                    1,
                    Level.ERROR,
                    "file-too-large",
                    f"benign log is larger than the {MAX_BENIGN_BYTES:,}-byte limit; "
                    "keep the lines that matter",
                )
            )
            continue
        logs.append(LogBytes(name, raw))
    return logs, problems
