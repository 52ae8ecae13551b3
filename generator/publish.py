"""Publishing a build without ever exposing a half-written site, or removing anything not ours.

`site` is a symbolic link to a finished build under `.site-builds/<site name>/`. A new build is
written beside the old one and the link is replaced in one rename, so at every instant (even
after a SIGKILL) `site/` is either the previous good build or the new complete one.

Each target (`--site-dir`) has its own folder of builds, and in it each build is a directory
`build-*` with a lock file `build-*.lock` beside it, held (flock) by the building process for as
long as it runs; the kernel releases the lock when that process ends, however it ends. So:

- a lock held by someone: a build in progress, never touched;
- a lock no one holds: its build died (killed, or failed without cleaning up), removable;
- no lock file: a finished build, removable once the link no longer points at it.

Creating a build, swapping the link and removing old builds happen under a lock on the
target's folder of builds, so a cleanup never sees a half-made build or races another build's swap.
A `site` that exists but is not a link (a user's own folder, or a file) is never touched.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

BUILDS_DIR = ".site-builds"
_PREFIX = "build-"
_LOCK = ".lock"


class PublishError(Exception):
    """The site cannot be published; the message is one line, and `site` is as it was."""


def builds_dir(site: Path) -> Path:
    """Where the builds of `site` live: one folder per target, beside it."""
    return site.parent / BUILDS_DIR / site.name


def publish(site: Path, build: Callable[[Path], None]) -> Path:
    """Run `build(target)` into a fresh directory, then atomically point `site` at it.

    Raises PublishError when the site cannot be written (a file or a foreign folder in the
    way, a read-only or full file system), after removing everything this call created.
    """
    _check_site(site)
    builds = builds_dir(site)
    made = _missing_parents(builds)
    try:
        lock_fd, target = _start_build(builds)
    except OSError as exc:
        _remove_empty(made)
        raise PublishError(f"{site}: cannot make a build folder: {_reason(exc)}") from None
    lock = target.with_name(target.name + _LOCK)
    try:
        try:
            build(target)
            with _publish_lock(builds):
                _swap(site, target)
                # Finished: from here the build is kept exactly as long as `site` points at it.
                # The site is published; a cleanup that fails leaves it for the next build.
                with contextlib.suppress(OSError):
                    lock.unlink()
                    _remove_dead_builds(builds, site)
        except BaseException as exc:
            if not _points_at(site, target):
                shutil.rmtree(target, ignore_errors=True)
                with contextlib.suppress(OSError):
                    lock.unlink()
                _remove_empty(made)
            if isinstance(exc, OSError):
                raise PublishError(f"{site}: cannot write the site: {_reason(exc)}") from None
            raise
    finally:
        os.close(lock_fd)
    return target


def _start_build(builds: Path) -> tuple[int, Path]:
    """Make the folder of builds and a new build in it. A build that failed as the first one
    removes the folder it made, so another build starting then may find it gone: it makes it
    again and retries."""
    for attempt in range(10):
        try:
            builds.mkdir(parents=True, exist_ok=True)
            with _publish_lock(builds):
                return _new_build(builds)
        except (FileNotFoundError, FileExistsError):
            if attempt == 9:
                raise
    raise AssertionError("unreachable")


def _check_site(site: Path) -> None:
    # One lstat: another build may create the link between two separate looks.
    try:
        mode = os.lstat(site).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return  # nothing there yet; making its folder says what is in the way
    if stat.S_ISLNK(mode):
        return
    if stat.S_ISDIR(mode):
        raise PublishError(
            f"{site}: a folder that `trainwreck build` did not make; "
            "move it away or pass another --site-dir"
        )
    raise PublishError(f"{site}: not a folder; pass another --site-dir")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _missing_parents(folder: Path) -> list[Path]:
    """The folders `mkdir(parents=True)` would create, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:
        try:
            folder.rmdir()  # only if empty: another build may have started in it
        except OSError:
            return


@contextlib.contextmanager
def _publish_lock(builds: Path) -> Iterator[None]:
    # The folder itself is the lock, so a failed first build can remove it and leave nothing.
    fd = os.open(builds, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _new_build(builds: Path) -> tuple[int, Path]:
    """A fresh build directory and the held lock that marks it as in progress."""
    fd, lock_name = tempfile.mkstemp(
        prefix=f"{_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}-", suffix=_LOCK, dir=builds
    )
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, f"{os.getpid()}\n".encode())  # for people; the lock is what counts
        target = Path(lock_name[: -len(_LOCK)])
        target.mkdir(mode=0o755)  # a web server must be able to read it
        target.chmod(0o755)  # whatever the umask
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(lock_name)
        raise
    return fd, target


def _swap(site: Path, target: Path) -> None:
    link = site.parent / f".{site.name}.new-{os.getpid()}"
    if link.is_symlink():
        link.unlink()
    link.symlink_to(os.path.relpath(target, site.parent))
    try:
        _check_site(site)  # a folder made while this build ran is not replaced either
        os.replace(link, site)
    except BaseException:
        link.unlink()
        raise


def _points_at(site: Path, target: Path) -> bool:
    try:
        return site.is_symlink() and site.resolve() == target.resolve()
    except OSError:
        return False


def _remove_dead_builds(builds: Path, site: Path) -> None:
    """Remove the builds that are provably no one's: finished ones `site` no longer points
    at, and ones whose builder died. Called with the publish lock held."""
    names = {p.name for p in builds.iterdir()}
    for name in sorted(names):
        if not name.startswith(_PREFIX):
            continue
        if name.endswith(_LOCK):
            stem = name[: -len(_LOCK)]
            if _is_dead(builds / name):
                shutil.rmtree(builds / stem, ignore_errors=True)
                with contextlib.suppress(OSError):
                    (builds / name).unlink()
        elif name + _LOCK not in names and not _points_at(site, builds / name):
            shutil.rmtree(builds / name, ignore_errors=True)


def _is_dead(lock: Path) -> bool:
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held: a build in progress
    finally:
        os.close(fd)
    return True
