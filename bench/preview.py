"""Benchmark the preview loop: seconds from saving an entry to the rebuilt page being served.

    python bench/preview.py                 # a generated catalog of 1,000 entries
    python bench/preview.py --entries 200

Generates a catalog of N valid entries (each with its own signature and example, so the
two-sided checks pass), starts `trainwreck serve` on a free loopback port, waits for the first
build, then edits one entry's title --edits times and measures, for each save, the time until
the served page shows the new title. As a baseline measured in the same run, it also times a
full `trainwreck build` of the same catalog, and prints the save-to-page time as a ratio of it.
Target (issue 6): under 1 s from save to page with 1,000 entries.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from entry_factory import entry_yaml  # noqa: E402


def make_entry(n: int) -> str:
    text = entry_yaml(f"synthetic-failure-{n:04d}")
    text = text.replace(
        '"NVRM: Xid (PCI:{pci}): 79, "', f'"Synthetic failure number {n:04d} on GPU"'
    )
    text = text.replace(
        "[ 123.456] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
        f"[ 123.456] Synthetic failure number {n:04d} on GPU 3",
    )
    text = text.replace(
        'title: "Xid 79: GPU has fallen off the bus"', f'title: "Synthetic {n:04d}"'
    )
    return text.replace("  xid: [79]", f"  xid: [{1 + n % 900}]")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return str(response.read().decode())
    except OSError:
        return ""


def wait_for(url: str, needle: str, limit: float = 600) -> float:
    start = time.monotonic()
    while needle not in fetch(url):
        if time.monotonic() - start > limit:
            raise SystemExit(f"gave up waiting for {needle!r} at {url}")
        time.sleep(0.05)
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tw-preview-") as tmp:
        repo = Path(tmp)
        shutil.copy(REPO / "mkdocs.yml", repo / "mkdocs.yml")
        shutil.copytree(REPO / "templates", repo / "templates")
        folder = repo / "entries/gpu-hardware"
        folder.mkdir(parents=True)
        for n in range(args.entries):
            (folder / f"synthetic-failure-{n:04d}.yaml").write_text(make_entry(n))
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        cli = [sys.executable, "-m", "generator.cli"]

        start = time.monotonic()
        subprocess.run([*cli, "build"], cwd=repo, env=env, check=True, capture_output=True)
        full_build = time.monotonic() - start

        port = free_port()
        url = f"http://127.0.0.1:{port}/failures/synthetic-failure-0007/"
        server = subprocess.Popen(
            [*cli, "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=repo,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            first = wait_for(url, "Synthetic 0007")
            target = folder / "synthetic-failure-0007.yaml"
            times = []
            for edit in range(args.edits):
                title = f"Synthetic 0007 edit {edit}"
                target.write_text(make_entry(7).replace('"Synthetic 0007"', f'"{title}"'))
                times.append(wait_for(url, title))
        finally:
            server.terminate()
            server.wait(timeout=60)

    median = statistics.median(times)
    print(f"catalog: {args.entries} entries")
    print(f"full build (baseline, same run): {full_build:.2f} s")
    print(f"first preview build: {first:.2f} s")
    print(
        f"save to served page: median {median:.2f} s over {len(times)} edits "
        f"({', '.join(f'{t:.2f}' for t in times)})"
    )
    print(f"ratio to a full build: {median / full_build:.2f}")
    print(f"target under 1 s: {'met' if median < 1 else 'not met'}")


if __name__ == "__main__":
    main()
