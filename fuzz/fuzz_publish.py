"""atheris fuzz target: any mix of concurrent, failing and killed builds leaves `site/` a
complete build, and no build folder but the published one once every builder has ended.

Run: python fuzz/fuzz_publish.py -max_total_time=600
Each input is a schedule: per build, how many files it writes, and whether it finishes,
raises, or is killed (SIGKILL) after which file; builds run as forked processes, up to four at
a time. A crash writes crash-<hash> here; keep the input as a regression test in
tests/test_publish.py before fixing it.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from generator.publish import builds_dir, publish


def _child(site: Path, label: str, files: int, fate: int, at: int) -> None:
    def build(target: Path) -> None:
        for number in range(files):
            if number == at and fate == 1:
                raise RuntimeError("build failed")
            if number == at and fate == 2:
                os.kill(os.getpid(), signal.SIGKILL)
            (target / f"{number}.html").write_text(label)
        (target / "index.html").write_text(f"{label}:{files}")

    try:
        publish(site, build)
    except RuntimeError:
        os._exit(1)  # the build's own failure, as scheduled
    except BaseException as exc:
        print(f"publish raised: {exc!r}", file=sys.stderr, flush=True)
        os._exit(3)  # publish itself failed: a finding
    os._exit(0)


def _check_site(site: Path) -> None:
    """`site` is one complete build. Builds still running may swap the link meanwhile, and
    clean up the build it led to, so the check reads one resolved build, or tries again."""
    for _attempt in range(100):
        if not site.exists():
            return  # nothing published yet
        build = site.resolve()
        try:
            label, files = (build / "index.html").read_text().split(":")
            found = sorted(p.name for p in build.iterdir())
            texts = {(build / f"{n}.html").read_text() for n in range(int(files))}
        except FileNotFoundError:
            if site.resolve() == build:
                raise AssertionError(f"{build} is incomplete") from None
            continue  # superseded and being removed while read: read the new one
        if site.resolve() != build:
            continue  # superseded while read: its cleanup may have begun
        wanted = sorted(["index.html", *(f"{n}.html" for n in range(int(files)))])
        if found != wanted or texts - {label}:
            raise AssertionError(f"site is not one complete build: {found}")
        return
    raise AssertionError("site kept moving")


def _wait(pid: int) -> None:
    _pid, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
        raise AssertionError("publish raised in a concurrent build")


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    root = Path(tempfile.mkdtemp(prefix="fuzz-publish-"))
    site = root / "site"
    try:
        running: list[int] = []
        for number in range(fdp.ConsumeIntInRange(1, 8)):
            files = fdp.ConsumeIntInRange(0, 5)
            fate, at = fdp.ConsumeIntInRange(0, 2), fdp.ConsumeIntInRange(0, 5)
            pid = os.fork()
            if pid == 0:
                _child(site, f"b{number}", files, fate, at)
            running.append(pid)
            if len(running) >= fdp.ConsumeIntInRange(1, 4):
                _wait(running.pop(0))
            _check_site(site)
        for pid in running:
            _wait(pid)
        _check_site(site)
        # One more build clears everything that died; then only the published build is left.
        publish(site, lambda target: (target / "index.html").write_text("last:0"))
        left = [p for p in builds_dir(site).iterdir()]
        if len(left) != 1 or not site.resolve() == left[0].resolve():
            raise AssertionError(f"builds left behind: {sorted(p.name for p in left)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
