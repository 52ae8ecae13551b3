"""Publishing a build without ever exposing a half-written site.

`site` is a symbolic link to a finished build under `.site-builds/`. A new build is written
beside the old one and the link is replaced in one rename, so at every instant (even after a
SIGKILL) `site/` is either the previous good build or the new complete one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BUILDS_DIR = ".site-builds"


def publish(site: Path, build: Callable[[Path], None]) -> Path:
    """Run `build(target)` into a fresh directory, then atomically point `site` at it."""
    builds = site.parent / BUILDS_DIR
    builds.mkdir(exist_ok=True)
    # A fresh, unique directory: never the one `site` points at, even within the same second.
    target = Path(tempfile.mkdtemp(prefix=f"build-{time.strftime('%Y%m%d-%H%M%S')}-", dir=builds))
    target.chmod(0o755)  # mkdtemp makes it private; a web server must be able to read it
    try:
        build(target)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    if site.exists() and not site.is_symlink():
        # A plain directory from an older layout: keep it as a build so the swap stays atomic.
        site.rename(tempfile.mkdtemp(prefix="legacy-", dir=builds))
    link = site.parent / f".{site.name}.new-{os.getpid()}"
    if link.is_symlink():
        link.unlink()
    link.symlink_to(os.path.relpath(target, site.parent))
    os.replace(link, site)
    _remove_old_builds(builds, keep=target)
    return target


def _remove_old_builds(builds: Path, keep: Path) -> None:
    for old in builds.iterdir():
        if old != keep and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
