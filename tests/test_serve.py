"""`trainwreck serve` as an editor uses it: a broken save shows as a banner, never a dead server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from entry_factory import entry_yaml

REPO = Path(__file__).resolve().parents[1]
ENTRY = "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def wait_for(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    (tmp_path / ENTRY).parent.mkdir(parents=True)
    (tmp_path / ENTRY).write_text(entry_yaml())
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "generator.cli", "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=out,
            stderr=out,
        )
    try:
        yield tmp_path, f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_broken_save_shows_a_banner_and_the_fix_removes_it(
    served: tuple[Path, str],
) -> None:
    repo, url = served
    page = f"{url}/failures/xid-79-gpu-fallen-off-bus/"
    wait_for(lambda: "Xid 79" in fetch(page), "the first build")
    assert "tw-build-error" not in fetch(page)

    (repo / ENTRY).write_text(entry_yaml().replace("severity: critical", "severity: dire"))
    wait_for(lambda: "tw-build-error" in fetch(page), "the error banner")
    body = fetch(page)
    assert (
        f"{ENTRY}:6:11: error [schema] severity: Input should be &#x27;critical&#x27;, "
        "&#x27;high&#x27;, &#x27;medium&#x27; or &#x27;low&#x27;" in body
    )
    assert "Xid 79: GPU has fallen off the bus" in body  # the last good page is still served

    fixed = entry_yaml().replace('title: "Xid 79:', 'title: "Xid 79 (edited):')
    (repo / ENTRY).write_text(fixed)
    wait_for(lambda: "Xid 79 (edited)" in fetch(page), "the rebuilt page")
    assert "tw-build-error" not in fetch(page)


def test_the_terminal_shows_the_problem_with_its_place(
    served: tuple[Path, str],
) -> None:
    repo, url = served
    page = f"{url}/failures/xid-79-gpu-fallen-off-bus/"
    wait_for(lambda: "Xid 79" in fetch(page), "the first build")
    (repo / ENTRY).write_text(entry_yaml().replace("severity: critical", "severity: dire"))
    wait_for(lambda: "tw-build-error" in fetch(page), "the error banner")
    (repo / ENTRY).write_text(entry_yaml())
    wait_for(lambda: "tw-build-error" not in fetch(page), "the recovery")
    served_log = (repo / "serve.log").read_text()
    assert (
        f"{ENTRY}:6:11: error [schema] severity: Input should be 'critical', 'high', "
        "'medium' or 'low'" in served_log
    )


def test_the_preview_starts_while_a_new_entry_is_still_a_skeleton(tmp_path: Path) -> None:
    """CONTRIBUTING.md's order: new, write, preview. The preview must start before the entry
    is finished, show the other entries, and list what the new one still needs."""
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    (tmp_path / ENTRY).parent.mkdir(parents=True)
    (tmp_path / ENTRY).write_text(entry_yaml())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cli = [sys.executable, "-m", "generator.cli"]
    subprocess.run(
        [*cli, "new", "host-oom-killer", "--category", "memory"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    port = free_port()
    proc = subprocess.Popen(
        [*cli, "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        page = f"http://127.0.0.1:{port}/failures/xid-79-gpu-fallen-off-bus/"
        wait_for(lambda: "Xid 79" in fetch(page), "the first build")
        body = fetch(page)
        assert "tw-build-error" in body
        assert (
            "entries/memory/host-oom-killer.yaml:7:8: error [schema] title: must not be empty"
            in body
        )
    finally:
        proc.terminate()
        proc.wait(timeout=30)
