"""The benchmark's labels: the committed cases load clean, and a wrong case is reported with its
place, every problem at once (realeval/cases.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.diagnose.lineinfo import rank_from_path
from realeval.cases import REAL, REPO, CaseProblems, read_cases

GOOD = """\
  - id: '001'
    file: logs/001-oom.log
    source: https://github.com/o/r/issues/1
    repo: o/r
    group: unbiased
    framework: pytorch
    true_failure: cuda-out-of-memory
    error_line: "CUDA out of memory"
    first_rank: null
    expected: [cuda-out-of-memory]
    truncated: false
    note: One rank ran out of memory.
"""


def write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "001-oom.log").write_text(
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    )
    path = tmp_path / "cases.yaml"
    path.write_text("cases:\n" + body)
    return path


def test_a_good_case_loads(tmp_path: Path) -> None:
    [case] = read_cases(write(tmp_path, GOOD))
    assert (case.id, case.expected, case.failing, case.first_rank) == (
        "001",
        ("cuda-out-of-memory",),
        True,
        None,
    )


def test_every_problem_of_every_case_is_named_with_its_line_and_column(tmp_path: Path) -> None:
    bad = (
        GOOD.replace('"CUDA out of memory"', '"CUDA out of memory!"').replace(
            "framework: pytorch", "framework: pytorch-nightly"
        )
        + GOOD.replace("group: unbiased", "group: multi-rank")
        + GOOD.replace("logs/001-oom.log", "logs/003-none.log")
        .replace("id: '001'", "id: '003'")
        .replace("truncated: false", "truncated: 0")
        .replace("group: unbiased", "group: negative")
        .replace("    note: One rank ran out of memory.\n", "    notes: x\n")
    )
    path = write(tmp_path, bad)
    with pytest.raises(CaseProblems) as caught:
        read_cases(path)
    where = str(path)
    assert [p.text() for p in caught.value.problems] == [
        f"{where}:7:16: error [real-case] framework is not one of corpus/real/README.md's list",
        f"{where}:9:17: error [real-case] error_line is not a substring of any line of its log",
        f"{where}:14:9: error [real-case] id '001' is used twice",
        f"{where}:22:17: error [real-case] a multi-rank case needs its first failed rank",
        f"{where}:26:5: error [real-case] missing field 'note'",
        f"{where}:27:11: error [real-case] the log file does not exist",
        f"{where}:30:12: error [real-case] a negative has error_line null, true_failure healthy, "
        "expected []",
        f"{where}:36:16: error [real-case] truncated must be true or false",
        f"{where}:37:12: error [real-case] unknown field 'notes'",
    ]


def test_the_committed_cases_load_and_name_only_entries_that_exist() -> None:
    cases = read_cases()
    entries = {p.stem for p in (REPO / "entries").glob("*/*.yaml")}
    assert [(c.id, e) for c in cases for e in c.expected if e not in entries] == []


def test_no_case_file_is_read_as_a_rank_and_every_log_is_a_case() -> None:
    cases = read_cases()
    assert [c.file for c in cases if rank_from_path(c.file) is not None] == []
    on_disk = sorted(p.relative_to(REAL).as_posix() for p in (REAL / "logs").glob("*.log"))
    assert sorted(c.file for c in cases) == on_disk
