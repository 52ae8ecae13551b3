"""A build killed with SIGKILL at any point leaves site/ exactly as the last good build."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from entry_factory import entry_yaml

from generator.publish import builds_dir

REPO = Path(__file__).resolve().parents[1]
TRAINWRECK = [sys.executable, "-m", "generator.cli"]


def snapshot(site: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()
    }


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    shutil.copytree(REPO / "entries", tmp_path / "entries")
    return tmp_path


def layout(snap: dict[str, bytes]) -> tuple[list[str], dict[str, int]]:
    """What a complete site holds: every path by name, except Pagefind's content-addressed
    files (their names are hashes of what they hold, so a renamed title renames them). Those
    count per folder, one fragment a page; the word index is split into as many chunks as its
    words fill, which a rename may change, so it counts only as present: a build cut short has
    fewer fragments, or no index."""
    named = sorted(p for p in snap if not p.startswith("pagefind/"))
    hashed: dict[str, int] = {}
    for p in snap:
        if p.startswith("pagefind/"):
            folder = p.rsplit("/", 1)[0]
            hashed[folder] = hashed.get(folder, 0) + 1
    if "pagefind/index" in hashed:
        hashed["pagefind/index"] = 1
    return named, hashed


def build(repo: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [*TRAINWRECK, "build"],
        cwd=repo,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_sigkill_at_any_point_leaves_the_previous_site(repo: Path) -> None:
    started = time.monotonic()
    assert build(repo).wait(timeout=300) == 0
    full_build = time.monotonic() - started
    good = snapshot(repo / "site")
    assert "failures/xid-74-nvlink-error/index.html" in good

    entry = repo / "entries/gpu-hardware/xid-74-nvlink-error.yaml"
    entry.write_text(entry.read_text().replace('title: "Xid 74:', 'title: "Xid 74 Renamed:', 1))
    # Kill during start-up, validation, rendering and the MkDocs build. A build that beats
    # its kill is a complete build, which may publish; the test needs real kills to count.
    killed = 0
    for fraction in (0.05, 0.2, 0.35, 0.5, 0.65, 0.8):
        proc = build(repo)
        time.sleep(full_build * fraction)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
            killed += 1
            now = snapshot(repo / "site")
            if now != good:
                # Killed after its one atomic swap, while clearing old builds: what it left
                # published is its own complete build, never a mix.
                assert layout(now) == layout(good), f"partial site, kill at {fraction:.0%}"
                assert "Xid 74 Renamed" in now["failures/xid-74-nvlink-error/index.html"].decode()
                good = now
        else:
            assert proc.returncode == 0
            good = snapshot(repo / "site")
    assert killed >= 4, f"only {killed} builds were still running when killed"

    assert build(repo).wait(timeout=300) == 0
    rebuilt = snapshot(repo / "site")
    assert "Xid 74 Renamed" in rebuilt["failures/xid-74-nvlink-error/index.html"].decode()
    # Killed builds leave directories behind; the next good build clears them out.
    assert [p.is_dir() for p in builds_dir(repo / "site").iterdir()] == [True]


@pytest.fixture()
def small_repo(tmp_path: Path) -> Path:
    """One entry: a catalog that builds whatever the shared entries/ holds right now."""
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    entry = tmp_path / "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
    entry.parent.mkdir(parents=True)
    entry.write_text(entry_yaml())
    return tmp_path


def test_concurrent_builds_both_succeed_and_the_site_is_complete(small_repo: Path) -> None:
    repo = small_repo
    assert build(repo).wait(timeout=300) == 0
    good = snapshot(repo / "site")
    # Each starts while the other runs; before issue 15 each deleted the other's build.
    for _round in range(2):
        first, second = build(repo), build(repo)
        assert (first.wait(timeout=300), second.wait(timeout=300)) == (0, 0)
        assert snapshot(repo / "site") == good
    assert [p.is_dir() for p in builds_dir(repo / "site").iterdir()] == [True]
