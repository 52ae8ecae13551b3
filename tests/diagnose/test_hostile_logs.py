"""Logs from crashed machines: huge lines, compression bombs, dangling files, cut-off stdin.

Each either diagnoses what it can, noting what it skipped, or fails with a clear message; none
produces a traceback, and memory stays bounded however large the input is.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from peak_rss import MAX_RSS_MIB, RUN

from generator.bundled import INDEX_FILE

REPO = Path(__file__).resolve().parents[2]
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
    "total capacity of 79.15 GiB of which 12.33 GiB is free.\n"
)

NOTHING = {
    "findings": [],
    "first_failed_rank": None,
    "unrecognized": [],
    "culprit": None,
    "launcher": [],
}


def diagnose(*args: str, stdin: bytes | None = None) -> tuple[int, dict[str, object], str, int]:
    proc = subprocess.run(
        [sys.executable, "-c", RUN, "diagnose", "--entries", str(REPO / "entries"), *args],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    err = proc.stderr.decode()
    assert "Traceback" not in err, err
    rss_kib = int(re.findall(r"MAXRSS (\d+)", err)[-1])
    out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    if out:
        # entries/ compiled here is the catalog the package bundles, so their versions agree.
        assert out.pop("catalog") == json.loads(INDEX_FILE.read_text())["catalog"]
    return proc.returncode, out, err, rss_kib // 1024


def ids(report: dict[str, object]) -> list[tuple[str, str]]:
    return [(f["id"], f["role"]) for f in report["findings"]]  # type: ignore[index,attr-defined]


def test_a_single_100_mb_line_is_cut_and_the_next_line_still_diagnosed(tmp_path: Path) -> None:
    log = tmp_path / "rank5.log"
    with log.open("wb") as handle:
        chunk = b"x" * (1 << 20)
        for _ in range(100):
            handle.write(chunk)
        handle.write(b"\n" + OOM.encode())
    rc, report, err, rss = diagnose(str(log), "--json")
    assert rc == 0
    assert ids(report) == [("cuda-out-of-memory", "root-cause")]
    assert report["findings"][0]["first"]["line"] == 2  # type: ignore[index]
    assert err.splitlines()[0] == (
        "trainwreck: note: 1 line longer than 65,536 bytes matched on their first 65,536 bytes "
        "(104,792,064 bytes not matched)"
    )
    assert rss < MAX_RSS_MIB, f"peak RSS {rss} MiB"


def test_a_gzip_that_expands_1000_times_streams_in_bounded_memory(tmp_path: Path) -> None:
    log = tmp_path / "rank5.log.gz"
    with gzip.open(log, "wb", compresslevel=9) as handle:
        zeros = b"0" * (1 << 20)
        for _ in range(300):
            handle.write(zeros)
        handle.write(b"\n" + OOM.encode())
    assert log.stat().st_size * 1000 < 301 << 20
    rc, report, _, rss = diagnose(str(log), "--json")
    assert rc == 0
    assert ids(report) == [("cuda-out-of-memory", "root-cause")]
    assert rss < MAX_RSS_MIB, f"peak RSS {rss} MiB"


def test_invalid_utf8_nul_crlf_and_lone_cr_are_read_as_lines(tmp_path: Path) -> None:
    log = tmp_path / "rank2.log"
    log.write_bytes(
        b"\xc3\x28 bad utf-8, a NUL \x00\r\nprogress 10%\rprogress 20%\r" + OOM.encode()
    )
    rc, report, _, _ = diagnose(str(log), "--json")
    assert rc == 0
    assert ids(report) == [("cuda-out-of-memory", "root-cause")]
    assert report["findings"][0]["first"]["line"] == 2  # type: ignore[index]


def test_an_empty_file_is_read_and_nothing_is_found(tmp_path: Path) -> None:
    log = tmp_path / "empty.log"
    log.write_bytes(b"")
    rc, report, _, _ = diagnose(str(log), "--json")
    assert (rc, report) == (0, NOTHING)


def test_an_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    dangling = tmp_path / "rank0.log"
    dangling.symlink_to(tmp_path / "gone.log")
    rc, _, err, _ = diagnose(str(dangling), "--json")
    assert rc == 2
    assert err.splitlines()[0] == f"trainwreck: {dangling}: no such file or directory"


def test_stdin_closed_in_the_middle_of_a_line(tmp_path: Path) -> None:
    rc, report, _, _ = diagnose("-", "--json", stdin=OOM.encode() + b"[rank3]: partial li")
    assert rc == 0
    assert ids(report) == [("cuda-out-of-memory", "root-cause")]


@pytest.mark.parametrize("kind", ["directory", "fifo-closed"])
def test_odd_paths(tmp_path: Path, kind: str) -> None:
    if kind == "directory":
        target = tmp_path / "logs"
        target.mkdir()
        rc, _, err, _ = diagnose(str(target), "--json")
        assert rc == 2 and "no" in err.lower()
    else:
        fifo = tmp_path / "pipe.log"
        os.mkfifo(fifo)
        writer = subprocess.Popen(["sh", "-c", f"printf '%s' {OOM!r} > {fifo}"])
        rc, report, _, _ = diagnose(str(fifo), "--json")
        writer.wait(timeout=30)
        assert rc == 0
        assert ids(report) == [("cuda-out-of-memory", "root-cause")]


def test_8000_ranks_of_64_kib_matching_lines_stay_under_200_mib(tmp_path: Path) -> None:
    """512 MB of input: each rank's one OOM line, padded to the 64 KiB line cap. A kept line
    holds its first TEXT_CHARS characters, so memory stays flat; the report says so."""
    log = tmp_path / "wide.log"
    pad = "x" * (1 << 16)
    with log.open("w") as handle:
        for rank in range(8000):
            head = f"[rank{rank}]: {OOM.rstrip()} "
            handle.write(head + pad[: (1 << 16) - len(head) - 1] + "\n")
    rc, report, err, rss = diagnose(str(log), "--json")
    first = f"[rank0]: {OOM.rstrip()} "
    assert (rc, report) == (
        0,
        {
            "findings": [
                {
                    "id": "cuda-out-of-memory",
                    "title": "CUDA out of memory. Tried to allocate ... (torch.OutOfMemoryError)",
                    "role": "root-cause",
                    "count": 8000,
                    "ranks": list(range(8000)),
                    "first": {
                        "file": str(log),
                        "line": 1,
                        "rank": 0,
                        "time": None,
                        "text": (first + pad)[:2048] + "…",
                    },
                }
            ],
            "first_failed_rank": 0,
            "unrecognized": [],
            "culprit": None,
            "launcher": [],
        },
    )
    assert err.splitlines()[:-1] == [
        "trainwreck: note: 1 reported line is longer than 2,048 characters; the report keeps "
        "the first 2,048 of it (63,487 characters left off; in the JSON such a text ends in …)"
    ]
    assert rss < MAX_RSS_MIB, f"peak RSS {rss} MiB"


def test_cut_lines_are_named_in_the_markdown_report(tmp_path: Path) -> None:
    log = tmp_path / "rank3.log"
    log.write_text(OOM.rstrip() + " " + "y" * 5000 + "\nRuntimeError: " + "z" * 3000 + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "generator.cli", "diagnose", "--format", "markdown", str(log)],
        capture_output=True,
        cwd=REPO,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == (
        "_Note: 1 reported line is longer than 2,048 characters; the report keeps the first "
        "2,048 of it (3,093 characters left off; in the JSON such a text ends in …)._"
    )
