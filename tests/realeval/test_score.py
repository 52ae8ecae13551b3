"""The score of one report on one case, and the figures over cases (realeval/score.py)."""

from __future__ import annotations

from typing import Any

from realeval.cases import Case
from realeval.score import Outcome, Said, figures, miss_counts, misses, outcome


def case(**fields: Any) -> Case:
    base: dict[str, Any] = {
        "id": "001",
        "file": "logs/001-x.log",
        "source": "https://github.com/o/r/issues/1",
        "repo": "o/r",
        "group": "unbiased",
        "framework": "pytorch",
        "true_failure": "cuda-out-of-memory",
        "error_line": "CUDA out of memory",
        "first_rank": None,
        "expected": ("cuda-out-of-memory",),
        "truncated": False,
        "note": "n",
    }
    return Case(**{**base, **fields})


def finding(entry: str, role: str, text: str) -> dict[str, Any]:
    first = {"file": "f", "line": 3, "rank": None, "time": None, "text": text}
    return {"id": entry, "title": entry, "role": role, "count": 1, "ranks": [], "first": first}


def report(findings=(), unrecognized=(), rank=None) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return {
        "findings": list(findings),
        "first_failed_rank": rank,
        "unrecognized": [
            {"file": "f", "line": 9, "rank": None, "time": None, "text": t, "kind": k}
            for k, t in unrecognized
        ],
        "launcher": [],
    }


OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


def test_a_named_root_cause_whose_line_is_the_error_line_is_a_full_hit() -> None:
    got = outcome(
        case(first_rank=2),
        report([finding("cuda-out-of-memory", "root-cause", OOM)], rank=2),
    )
    assert got == Outcome(
        "001",
        named=True,
        line_shown=True,
        silent=False,
        first_rank_right=True,
        clean=None,
        said=Said(("cuda-out-of-memory",), (), 2, None, OOM),
    )
    assert got.useful is True
    assert misses(case(first_rank=2), got) == []


def test_an_unrecognised_line_shows_the_error_without_naming_it() -> None:
    c = case(expected=(), true_failure="python-module-not-found", error_line="No module named 'x'")
    got = outcome(
        c, report(unrecognized=[("python-exception", "ModuleNotFoundError: No module named 'x'")])
    )
    assert (got.named, got.line_shown, got.useful, got.silent) == (False, True, True, False)
    assert got.said == Said(
        (), (), None, "python-exception", "ModuleNotFoundError: No module named 'x'"
    )
    assert misses(c, got) == ["no-entry-line-shown"]


def test_a_harmless_note_alone_is_silence_and_does_not_show_the_line() -> None:
    got = outcome(case(), report([finding("tokenizers-fork-warning", "not-the-cause", OOM)]))
    assert (got.named, got.line_shown, got.useful, got.silent) == (False, False, False, True)
    assert misses(case(), got) == ["entry-not-matched"]


def test_the_wrong_entry_and_the_wrong_rank_are_two_misses() -> None:
    c = case(group="multi-rank", first_rank=5)
    got = outcome(
        c,
        report(
            [
                finding(
                    "nccl-watchdog-timeout",
                    "root-cause",
                    "Watchdog caught collective operation timeout",
                ),
                finding("cuda-out-of-memory", "collateral", OOM),
            ],
            rank=0,
        ),
    )
    assert (got.named, got.line_shown, got.first_rank_right) == (False, True, False)
    assert got.said == Said(
        ("nccl-watchdog-timeout",), ("cuda-out-of-memory",), 0, None,
        "Watchdog caught collective operation timeout",
    )  # fmt: skip
    assert misses(c, got) == ["other-entry", "wrong-rank"]


def test_a_negative_is_clean_unless_a_root_cause_or_an_unrecognised_line_is_reported() -> None:
    neg = case(group="negative", true_failure="healthy", error_line=None, expected=())
    quiet = outcome(neg, report([finding("torchrun-omp-threads-warning", "not-the-cause", "OMP")]))
    assert (quiet.named, quiet.line_shown, quiet.clean, quiet.silent) == (None, None, True, True)
    assert misses(neg, quiet) == []
    loud = outcome(neg, report(unrecognized=[("error-line", "srun: error: x")]))
    assert (loud.clean, loud.silent) == (False, False)
    assert misses(neg, loud) == ["not-clean"]


def test_figures_count_each_group_the_failing_cases_and_each_framework() -> None:
    cases = [
        case(id="1"),
        case(id="2", framework="trl", expected=(), error_line="boom"),
        case(id="3", group="multi-rank", first_rank=1),
        case(id="4", group="negative", true_failure="healthy", error_line=None, expected=()),
    ]
    outcomes = {
        "1": outcome(cases[0], report([finding("cuda-out-of-memory", "root-cause", OOM)])),
        "2": outcome(cases[1], report()),
        "3": outcome(cases[2], report(unrecognized=[("signal", "x")], rank=1)),
        "4": outcome(cases[3], report()),
    }
    covered = {"named": 1, "of": 1}
    assert figures(cases, outcomes) == {
        "groups": {
            "unbiased": {
                "cases": 2, "named": 1, "line_shown": 1, "useful": 1, "silent": 1,
                "covered": covered,
            },
            "multi-rank": {
                "cases": 1, "named": 0, "line_shown": 0, "useful": 0, "silent": 0,
                "covered": {"named": 0, "of": 1}, "first_rank": {"right": 1, "of": 1},
            },
            "negative": {"cases": 1, "clean": 1},
        },
        "failing": {
            "cases": 3, "named": 1, "line_shown": 1, "useful": 1, "silent": 1,
            "covered": {"named": 1, "of": 2}, "first_rank": {"right": 1, "of": 1},
        },
        "frameworks": {
            "pytorch": {
                "cases": 2, "named": 1, "line_shown": 1, "useful": 1, "silent": 0,
                "covered": {"named": 1, "of": 2}, "first_rank": {"right": 1, "of": 1},
            },
            "trl": {
                "cases": 1, "named": 0, "line_shown": 0, "useful": 0, "silent": 1,
                "covered": {"named": 0, "of": 0},
            },
        },
    }  # fmt: skip
    assert miss_counts(cases, outcomes) == {"no-entry": 1, "entry-not-matched": 1}
