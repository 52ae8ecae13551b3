"""The line a log ends with, when nothing else states an error (generator/diagnose/ending.py).

Real last lines: of failing runs that printed no traceback, signal or launcher report (cases of
corpus/real/), and of healthy logs that people asked about or that the benign corpus holds.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from catalog import index

from generator.cli import main
from generator.diagnose.ending import ends_in_error
from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.report import to_json

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "launchers" / "final-line-llmc.log"


@pytest.mark.parametrize(
    ("line", "error"),
    [
        # karpathy/llm.c#32, zcablii/SARDet_100K#9 (bash in Chinese), ultralytics threads.
        ("Error: must forward with targets before backward", True),
        ("dist_train.sh: \u884c 10: python: \u672a\u627e\u5230\u547d\u4ee4", True),
        ("RuntimeError occurred during training: Given groups=1, weight of size [768]", True),
        ("Engine run is terminating due to exception: Expected value argument", True),
        # What healthy logs end with: a metric, a handled error, a status field, a question,
        # warnings and info lines (negatives 462, 648, 643; nvidia-smi -q; benign corpus).
        ("  eta=7.00649e-43 Net error = 0.142431, running average = 0.0484277", False),
        ("Error caught was: No module named 'triton'", False),
        ("        Remapping Failure Occurred        : No", False),
        ("it will reply an error ' CUDA out of memory'. Do you have this problem?", False),
        ("W1207 12:00:00.000 failed to load plugin", False),
        ("[WARNING] could not find a valid checkpoint, starting from scratch", False),
        ("2024-01-01 INFO connection failed, retrying in 5 s", False),
        ("No GPU/TPU found, falling back to CPU.", False),
    ],
)
def test_a_last_line_reads_as_an_error_or_not(line: str, error: bool) -> None:
    assert ends_in_error(line) is error


def test_a_run_that_ends_on_an_error_line_names_that_line() -> None:
    raw = FIXTURE.read_bytes()
    got = to_json(diagnose_logs(index(), [LogBytes("train.log", raw)]).diagnosis)
    lines = raw.decode().splitlines()
    assert got == {
        "findings": [],
        "first_failed_rank": None,
        "unrecognized": [
            {
                "file": "train.log",
                "line": len(lines),
                "rank": None,
                "time": None,
                "text": "Error: must forward with targets before backward",
                "kind": "final-line",
            }
        ],
        "culprit": None,
        "launcher": [],
    }


def test_anything_stronger_wins_and_a_healthy_ending_says_nothing() -> None:
    stronger = b"Traceback (most recent call last):\nKeyError: 'x'\nError: cleanup failed\n"
    got = to_json(diagnose_logs(index(), [LogBytes("a.log", stronger)]).diagnosis)
    assert [(u["kind"], u["line"]) for u in got["unrecognized"]] == [("python-exception", 2)]
    healthy = b"step 1 loss 2.0\nWARNING: Error: retrying\n\n"
    got = to_json(diagnose_logs(index(), [LogBytes("a.log", healthy)]).diagnosis)
    assert got["unrecognized"] == []


@pytest.mark.parametrize("where", ["file", "stdin"])
def test_the_command_reads_the_end_of_a_long_file_and_of_stdin(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = b"step 1 loss 2.0\n" * 200_000 + b"[rank3]: Error: must forward\n\n"
    path = tmp_path / "job.log"
    path.write_bytes(log)
    if where == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(log)))
    bundled = Path(__file__).resolve().parents[2] / "generator" / "bundled" / "signatures.json"
    args = [str(path)] if where == "file" else ["-"]
    assert main(["diagnose", "--index", str(bundled), "--json", *args]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["first_failed_rank"] == 3
    assert [(u["kind"], u["line"], u["rank"]) for u in report["unrecognized"]] == [
        ("final-line", 200_001, 3)
    ]
