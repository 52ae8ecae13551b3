"""Triage rules: collateral (with cycles), context lines, clocks, and the first failed rank."""

from __future__ import annotations

from catalog import ECC, ELASTIC, OOM, PLUGIN, SPECS, WATCHDOG, entries
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.index import SignatureIndex, build_index
from generator.diagnose.lineinfo import Timestamp
from generator.diagnose.triage import Diagnosis, Hit, earliest, earliest_first

INDEX = SignatureIndex(build_index(entries(SPECS)))
OOM_LINE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
ECC_LINE = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
WATCHDOG_LINE = (
    "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE"
)
CONTEXT_ONLY = "CUDA kernel errors might be asynchronously reported at some other API call, so"
CHILD = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"


def diagnose(*logs: tuple[str, str]) -> Diagnosis:
    return diagnose_logs(INDEX, [LogBytes(n, t.encode()) for n, t in logs]).diagnosis


def summary(d: Diagnosis) -> list[tuple[str, str, int, tuple[int, ...], str, int]]:
    return [(f.id, f.role, f.count, f.ranks, f.first.file, f.first.line) for f in d.findings]


def test_context_lines_never_stand_alone() -> None:
    """A context line names no entry. When it is the line the log ends with, it is shown as that
    (ending.py), on the rank the file's name gives: never silent, never a finding."""
    d = diagnose(("rank0.log", CONTEXT_ONLY + "\n" * 3))
    assert (summary(d), d.first_failed_rank) == ([], 0)
    assert [(u.kind, u.hit.line, u.hit.rank, u.hit.text) for u in d.unrecognized] == [
        ("final-line", 1, 0, CONTEXT_ONLY)
    ]


def test_context_lines_raise_confidence_of_a_finding() -> None:
    d = diagnose(("rank0.log", f"{ECC_LINE}\n{CONTEXT_ONLY}\n{CONTEXT_ONLY}\n"))
    assert [(f.id, f.count, f.context_lines) for f in d.findings] == [
        ("cuda-ecc-uncorrectable", 1, 2)
    ]


def test_a_collateral_cycle_keeps_the_earlier_failure_as_root_cause() -> None:
    # nccl-watchdog-timeout and elastic-child-failed each list the other as collateral.
    assert WATCHDOG.collateral == ("elastic-child-failed",)
    assert ELASTIC.collateral == ("nccl-watchdog-timeout",)
    d = diagnose(
        ("rank0.log", f"2024-06-26 06:00:01,000 x\n{WATCHDOG_LINE}\n"),
        ("launcher.log", f"2024-06-26 06:00:03,000 x\n{CHILD}\n"),
    )
    assert summary(d) == [
        ("nccl-watchdog-timeout", "root-cause", 1, (0,), "rank0.log", 2),
        ("elastic-child-failed", "collateral", 1, (), "launcher.log", 2),
    ]
    assert d.findings[1].caused_by == ("nccl-watchdog-timeout",)
    # The same cycle, the other way round in time.
    d = diagnose(
        ("rank0.log", f"2024-06-26 06:00:09,000 x\n{WATCHDOG_LINE}\n"),
        ("launcher.log", f"2024-06-26 06:00:03,000 x\n{CHILD}\n"),
    )
    assert [(f.id, f.role) for f in d.findings] == [
        ("elastic-child-failed", "root-cause"),
        ("nccl-watchdog-timeout", "collateral"),
    ]


def test_root_causes_are_ordered_by_time_when_every_line_has_one() -> None:
    d = diagnose(
        ("rank0.log", f"2024-06-26 06:00:30,000 x\n{ECC_LINE}\n"),
        ("rank1.log", f"2024-06-26 06:00:10,000 x\n{OOM_LINE}\n"),
    )
    assert summary(d) == [
        ("cuda-out-of-memory", "root-cause", 1, (1,), "rank1.log", 2),
        ("cuda-ecc-uncorrectable", "root-cause", 1, (0,), "rank0.log", 2),
    ]
    assert d.first_failed_rank == 1


def test_without_a_common_clock_position_decides() -> None:
    # rank0 has a time; rank1 has none: compare by input order, then line.
    d = diagnose(
        ("rank0.log", f"2024-06-26 06:00:30,000 x\n{ECC_LINE}\n"),
        ("rank1.log", f"x\n{OOM_LINE}\n"),
    )
    assert [f.id for f in d.findings] == ["cuda-ecc-uncorrectable", "cuda-out-of-memory"]
    assert d.first_failed_rank == 0


def test_times_without_a_year_compare_with_full_times() -> None:
    d = diagnose(
        ("rank0.log", f"2024-06-26 06:00:30,000 x\n{ECC_LINE}\n"),
        ("rank1.log", f"E0626 06:00:10.000000 1 x.cc:1] x\n{OOM_LINE}\n"),
    )
    assert [f.id for f in d.findings] == ["cuda-out-of-memory", "cuda-ecc-uncorrectable"]


def test_boot_times_compare_only_within_one_file() -> None:
    one_file = diagnose(("node0-dmesg.log", f"[  90.0] {ECC_LINE}\n[  10.0] {OOM_LINE}\n"))
    assert [f.id for f in one_file.findings] == ["cuda-out-of-memory", "cuda-ecc-uncorrectable"]
    two_files = diagnose(("a.log", f"[  90.0] {ECC_LINE}\n"), ("b.log", f"[  10.0] {OOM_LINE}\n"))
    assert [f.id for f in two_files.findings] == ["cuda-ecc-uncorrectable", "cuda-out-of-memory"]


def test_the_first_failed_rank_is_the_earliest_root_cause_that_names_a_rank() -> None:
    d = diagnose(
        ("dmesg.log", f"2024-06-26 06:00:01,000 x\n{ECC_LINE}\n"),
        ("rank3.log", f"2024-06-26 06:00:05,000 x\n{OOM_LINE}\n"),
    )
    assert [(f.id, f.first.rank) for f in d.findings] == [
        ("cuda-ecc-uncorrectable", None),
        ("cuda-out-of-memory", 3),
    ]
    assert d.first_failed_rank == 3
    assert d.first_failure is not None and d.first_failure.file == "rank3.log"


def test_collateral_needs_its_cause_to_be_found() -> None:
    assert "nccl-watchdog-timeout" in OOM.collateral and "nccl-watchdog-timeout" in ECC.collateral
    d = diagnose(("rank0.log", WATCHDOG_LINE + "\n"), ("rank1.log", WATCHDOG_LINE + "\n"))
    assert summary(d) == [("nccl-watchdog-timeout", "root-cause", 2, (0, 1), "rank0.log", 1)]


HARMLESS_INDEX = SignatureIndex(build_index(entries((*SPECS, PLUGIN))))
PLUGIN_LINE = (
    "node-01:31200:31200 [2] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using "
    "internal implementation"
)


def diagnose_harmless(*logs: tuple[str, str]) -> Diagnosis:
    return diagnose_logs(HARMLESS_INDEX, [LogBytes(n, t.encode()) for n, t in logs]).diagnosis


def test_a_harmless_line_alone_is_not_the_cause_and_names_no_rank() -> None:
    d = diagnose_harmless(("rank2.log", PLUGIN_LINE + "\n" + PLUGIN_LINE + "\n"))
    assert (summary(d), d.first_failed_rank, d.root_causes) == (
        [("nccl-net-plugin-not-found", "not-the-cause", 2, (2,), "rank2.log", 1)],
        None,
        (),
    )


def test_a_harmless_line_before_the_failure_is_listed_last_and_never_names_the_rank() -> None:
    d = diagnose_harmless(
        ("rank2.log", f"2024-06-26 06:00:01,000 x\n{PLUGIN_LINE}\n"),
        ("rank1.log", f"2024-06-26 06:00:09,000 x\n{OOM_LINE}\n"),
        ("rank0.log", f"2024-06-26 06:00:12,000 x\n{WATCHDOG_LINE}\n"),
    )
    assert summary(d) == [
        ("cuda-out-of-memory", "root-cause", 1, (1,), "rank1.log", 2),
        ("nccl-watchdog-timeout", "collateral", 1, (0,), "rank0.log", 2),
        ("nccl-net-plugin-not-found", "not-the-cause", 1, (2,), "rank2.log", 2),
    ]
    assert d.first_failed_rank == 1
    assert [f.id for f in d.not_the_cause] == ["nccl-net-plugin-not-found"]


TIMES = st.one_of(
    st.none(),
    st.builds(
        Timestamp,
        st.just("t"),
        st.sampled_from([None, 1.0, 2.0, 3.0]),
        st.sampled_from([None, 1.0, 2.0]),
        st.sampled_from([None, 5.0, 6.0]),
    ),
)
HITS = st.lists(
    st.builds(
        Hit,
        st.just("f"),
        st.integers(0, 2),
        st.just(1),
        st.integers(0, 3),
        st.sampled_from([None, 0, 1]),
        TIMES,
        st.none(),
        st.just("x"),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=500, deadline=None)
@given(HITS)
def test_earliest_is_the_hit_earliest_first_puts_first(hits: list[Hit]) -> None:
    # Ties of time and place included: min and the stable sort both take the first of them.
    assert earliest(hits) is earliest_first(hits)[0]
