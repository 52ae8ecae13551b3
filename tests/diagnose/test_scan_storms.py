"""Storms: many matching lines, the input that made the scan crawl (issue 15, defect 6).

A watchdog storm on a large job prints the same few lines from every rank, again and again.
Speed is measured in bench/diagnose.py; here the work is counted, which a test can assert: a
line that stands many times in a row is read once, and the look-backs that find a line's time
read each earlier line once, however many matches' windows it lies in. The diagnosis must be
the one a line-by-line scan gives: tiny blocks (a line or two each) fold nothing.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from catalog import index

from generator.diagnose import lineinfo, pattern, scan
from generator.diagnose.report import to_json
from generator.diagnose.scan import Scanner, ScanStats
from generator.diagnose.triage import Tally, triage

INDEX = index()
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
    "total capacity of 79.15 GiB of which 12.33 GiB is free."
)
WATCHDOG = (
    "[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=46, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
    "Timeout(ms)=600000) ran for 600012 milliseconds before timing out."
)


def run(raw: bytes, chunk: int = scan.CHUNK_BYTES, name: str = "train.log") -> dict[str, Any]:
    saved = scan.CHUNK_BYTES
    scan.CHUNK_BYTES = chunk
    try:
        tally = Tally(INDEX)
        stats = ScanStats()
        tally.add_all(Scanner(INDEX).scan(io.BytesIO(raw).read, name, 0, stats, []))
        return {"json": to_json(triage(tally)), "lines": stats.lines}
    finally:
        scan.CHUNK_BYTES = saved


class Counted:
    """Counts the calls of one function while it is patched in."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> None:
        self.calls = 0
        inner = getattr(owner, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return inner(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)


def oom_finding(count: int, ranks: list[int], first: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "cuda-out-of-memory",
        "title": "CUDA out of memory",
        "role": "root-cause",
        "count": count,
        "ranks": ranks,
        "first": first,
    }


def test_100000_identical_oom_lines_are_matched_once(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = ("[2024-06-26 06:24:44,903] " + OOM + "\n").encode() * 100_000
    searches = Counted(monkeypatch, pattern.Matcher, "search")
    got = run(raw)
    assert searches.calls == 1  # one per signature the line's anchors name; was 100,000
    # And one match a block, standing for its lines: each block ends at its last line break.
    size = len(raw) // 100_000
    per_block = [scan.CHUNK_BYTES // size, (2 * scan.CHUNK_BYTES) // size]
    per_block[1] -= per_block[0]
    matches = list(Scanner(INDEX).scan(io.BytesIO(raw).read, "train.log", 0, ScanStats(), []))
    repeats = [m.repeat for m in matches]
    assert repeats[:2] == per_block
    assert sum(repeats) == 100_000 and len(repeats) == -(-len(raw) // scan.CHUNK_BYTES)
    assert got == {
        "json": {
            "findings": [
                oom_finding(
                    100_000,
                    [],
                    {
                        "file": "train.log",
                        "line": 1,
                        "rank": None,
                        "time": "2024-06-26T06:24:44.903",
                        "text": "[2024-06-26 06:24:44,903] " + OOM,
                    },
                )
            ],
            "first_failed_rank": None,
            "unrecognized": [],
            "culprit": None,
            "launcher": [],
        },
        "lines": 100_000,
    }


def test_interleaved_ranks_read_each_earlier_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """20,000 lines from 1,000 rank prefixes: no line gives a time, so each match looks back
    64 lines for one; those windows overlap. Each line is read once, when it is matched, and
    the look-backs read none again; once 64 lines are read forward, a look-back is a look-up,
    so only the first 64 matches walk at all."""
    raw = "".join(f"[rank{i % 1000}]: {OOM}\n" for i in range(20_000)).encode()
    heads = Counted(monkeypatch, scan, "read_line")
    walks = Counted(monkeypatch, Scanner, "_look_back")
    got = run(raw)
    assert heads.calls == 0  # was 64 per match: 1,280,000
    assert walks.calls == scan.LOOKBACK_LINES  # was one per match: 20,000
    assert got == {
        "json": {
            "findings": [
                oom_finding(
                    20_000,
                    list(range(1000)),
                    {
                        "file": "train.log",
                        "line": 1,
                        "rank": 0,
                        "time": None,
                        "text": f"[rank0]: {OOM}",
                    },
                )
            ],
            "first_failed_rank": 0,
            "unrecognized": [],
            "culprit": None,
            "launcher": [],
        },
        "lines": 20_000,
    }


def storm() -> bytes:
    """A job's end: a healthy start, one rank's OOM after a traceback, then each rank's
    watchdog line repeated (some with CRLF), a torchrun summary repeated, and a traceback
    whose final line repeats the lines before it."""
    out = ["[rank0]:[2024-06-26 06:24:40,000] INFO step 10 | loss 1.2"]
    out += ["[rank3]:[2024-06-26 06:24:41,000] INFO start", "[rank3]: Traceback (most recent "
            "call last):", '[rank3]:   File "train.py", line 9, in <module>',
            f"[rank3]: {OOM}"]  # fmt: skip
    for r in range(8):
        out += [f"[rank{r}]:" + WATCHDOG.format(r=r)] * 40
        out += [f"[rank{r}]: ValueError: same again\r"] * 3
    out += ["[rank2]: ValueError: boom", "[rank2]: Traceback (most recent call last):"]
    out += ['[rank2]:   File "x.py", line 1, in <module>', "[rank2]: ValueError: boom"]
    out += ["[rank2]: ValueError: boom"] * 5
    out += ["  rank      : 2 (local_rank: 2)"] * 3
    out += ["  exitcode  : -11 (pid: 4242)"] * 4
    out += ["NCCL WARN Cuda failure 'out of memory'"] * 1000
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("chunk", [64, 4096])
def test_a_storm_diagnoses_as_a_line_by_line_scan(chunk: int) -> None:
    raw = storm()
    folded = run(raw)
    assert folded == run(raw, chunk)  # blocks of a line or so fold nothing
    assert [(f["id"], f["role"], f["count"]) for f in folded["json"]["findings"]] == [
        ("cuda-out-of-memory", "root-cause", 1),
        ("nccl-watchdog-timeout", "collateral", 320),
    ]
    assert folded["json"]["first_failed_rank"] == 3
    assert folded["lines"] == raw.count(b"\n")


def test_lines_repeat_only_with_nothing_between() -> None:
    line = b"[rank1]: " + OOM.encode()
    assert scan._repeats(line + b"\n" + line + b"\n" + line + b"\r\n", 0, len(line), set()) == (
        2,
        len(line) + 1,
    )
    block = (line + b"\r\n") * 5 + line
    assert scan._repeats(block, 0, len(line), set()) == (5, len(line) + 2)
    assert scan._repeats(block, 0, len(line), {2 * (len(line) + 2)}) == (2, len(line) + 2)
    assert scan._repeats(line + b"\r" + line + b"\r", 0, len(line), set()) == (1, 0)
    assert lineinfo.read_line(line.decode()).prefix_rank == 1
