"""`trainwreck serve` on a free loopback port, for the serve tests and bench/preview.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return str(response.read().decode())


@contextmanager
def serving(repo: Path, output: IO[str] | int = subprocess.DEVNULL) -> Iterator[str]:
    """Run `trainwreck serve` in `repo` (this checkout's generator) and yield its base URL;
    the server's output goes to `output`. Stopped on the way out."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=output,
        stderr=output,
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=60)
