"""The text report written without rich (to a pipe or a file) is what rich prints there, byte
for byte; on a terminal, or where rich would change the text, rich prints it."""

from __future__ import annotations

import io
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from generator.bundled import INDEX_FILE
from generator.diagnose.report import Line, human_report, plain_report

REPO = Path(__file__).resolve().parents[2]

# Text that rich's Console could treat otherwise than plain text: markup, emoji codes, wide and
# combining characters, astral characters, trailing and non-breaking spaces, line breaks,
# replacement characters, long text (rich does not wrap a soft-wrapped print).
PIECES = [
    "",
    "plain",
    "[bold]not markup[/bold]",
    ":smile: :thumbs_up:",
    "\u4e2d\u6587 wide",
    "e\u0301 combining",
    "\U0001f600 astral",
    "trailing   ",
    "\xa0nbsp\xa0",
    "two\nlines",
    "\ufffd replaced",
    "[U+001B] shown",
    "x" * 300,
    "http://example.org/a b/",
]
STYLES = ["", "dim", "bold red", "blue underline", "cyan"]


def rich_prints(lines: list[Line]) -> str:
    out = io.StringIO()  # not a terminal
    Console(file=out, highlight=False, soft_wrap=True).print(human_report(lines))
    return out.getvalue()


def test_plain_report_is_what_rich_prints_to_a_file() -> None:
    lines: list[Line] = [
        (head, style, [(tail, tail_style), (head, "")])
        for (head, tail), (style, tail_style) in zip(
            itertools.product(PIECES, PIECES), itertools.cycle(itertools.product(STYLES, STYLES))
        )
    ]
    lines += [("", "", []), ("", "dim", [("", "red")])]
    assert plain_report(lines) == rich_prints(lines)
    for one in lines:
        assert plain_report([one]) == rich_prints([one])


@pytest.mark.parametrize("char", ["\t", "\r", "\x07", "\x08", "\x0b", "\x0c"])
def test_text_that_rich_changes_is_left_to_rich(char: str) -> None:
    # rich expands tabs to its columns and drops these controls: not done here a second time.
    lines: list[Line] = [("a", "", [(f"b{char}c", "cyan")])]
    assert plain_report(lines) is None
    assert rich_prints(lines) != "a" + f"b{char}c\n"


PROBE = """
import sys
from generator.cli import main
code = main(sys.argv[1:])
print("rich" in sys.modules, code, file=sys.stderr)
"""


def text_report(tmp_path: Path, env: dict[str, str], log: str = "") -> tuple[str, str]:
    """`trainwreck diagnose` of a two-rank log to a pipe with the bundled index, under `env`:
    its report and whether rich was imported."""
    (tmp_path / "job.log").write_text(log or LOG)
    base = {k: v for k, v in os.environ.items() if k not in ("TTY_COMPATIBLE", "FORCE_COLOR")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "diagnose", "job.log"],
        cwd=tmp_path,
        env={**base, "PYTHONPATH": str(REPO), "NO_COLOR": "", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout, done.stderr


LOG = (
    "[rank1]:[E1202 10:00:01.000000000 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    "[rank0]:\tat step 7\tin train.py\n"  # a tab in a line the report does not show
)


def report(oom_line: str) -> str:
    """The text report of LOG, with the bundled catalog's titles and fixes."""
    entries = json.loads(INDEX_FILE.read_text())["entries"]
    oom, watchdog = entries["cuda-out-of-memory"], entries["nccl-watchdog-timeout"]
    return "".join(
        line + "\n"
        for line in [
            "trainwreck diagnose: 1 file, 3 lines read",
            "First failed rank: 0 (job.log:2)",
            "",
            f"ROOT CAUSE  {oom['title']}  cuda-out-of-memory · severity {oom['severity']}",
            "  first job.log:2 (rank 0)",
            f"  line  {oom_line}",
            "  seen  1 line: rank 0 (1 line)",
            "  sure  medium (defining lines only)",
            f"  fix   {oom['quick_fix']}",
            "  page  failures/cuda-out-of-memory/",
            "",
            f"COLLATERAL  {watchdog['title']}  nccl-watchdog-timeout · severity "
            f"{watchdog['severity']}",
            "  cause collateral of cuda-out-of-memory",
            "  first job.log:1 (rank 1, --12-02T10:00:01.000000000)",
            "  line  " + LOG.splitlines()[0],
            "  seen  1 line: rank 1 (1 line)",
            "  page  failures/nccl-watchdog-timeout/",
        ]
    )


@pytest.mark.parametrize(
    ("env", "styled"),
    [
        ({}, False),
        ({"FORCE_COLOR": ""}, False),
        ({"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, False),
        ({"FORCE_COLOR": "1"}, True),
        ({"TTY_COMPATIBLE": "1"}, True),
    ],
)
def test_rich_draws_the_report_only_where_it_would_style_it(
    tmp_path: Path, env: dict[str, str], styled: bool
) -> None:
    out, err = text_report(tmp_path, env)
    assert err == f"{styled} 0\n"
    if styled:
        assert "\x1b[" in out
    else:
        assert out == report(LOG.splitlines()[1])


def test_a_reported_tab_is_expanded_by_rich(tmp_path: Path) -> None:
    out, err = text_report(tmp_path, {}, LOG.replace("[rank0]: torch", "[rank0]:\ttorch"))
    assert err == "True 0\n"  # plain_report leaves it to rich, which expands it
    assert out == report(LOG.splitlines()[1].replace("[rank0]: ", "[rank0]:" + " " * 8))
