"""The lane and stretches (scan.py `Scanner._lane`, `_stretch`, `_count_stretch`).

The lane sets a counted line's memo without its look-back, when the look-back's answer is known
already. A stretch is a row of lines of one shape, counted without the found loop's look at
each. Both only make a counting scan cheaper. A scan with them must make the same LineMatches,
in the same order, and the same counts as a scan without them; and the diagnosis must be the
one that reporting every line gives. Each crafted case below breaks one rule when that rule
is dropped from the code.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
from catalog import SPECS, Spec, index
from hypothesis import given, settings
from hypothesis import strategies as st
from test_scan_settled import AFTER_DEFERRED, counted_lines

from generator.diagnose import scan
from generator.diagnose.index import SignatureIndex
from generator.diagnose.lineinfo import Timestamp, rank_from_path, read_line
from generator.diagnose.report import json_report
from generator.diagnose.scan import LineMatch, Scanner, ScanStats, Settled
from generator.diagnose.triage import Tally, triage

INDEX = index()
WATCH = (
    "[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, "
    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600005 "
    "milliseconds before timing out."
)
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.15 GiB of which 1.33 GiB is free."
)
CONTEXT = "To avoid data inconsistency, we are taking the entire process down."
PROBE = "RuntimeError: step 5 failed"  # no entry knows it, so each is reported


def glog(second: int, month: int = 6) -> str:
    return f"[E{month:02d}26 06:00:{second:02d}.100000 7 x.cpp:1] "


def watch(rank: int, second: int, host: str = "", month: int = 6) -> str:
    return f"[rank{rank}]:{glog(second, month)}{host}{WATCH.format(r=rank)}"


@dataclass
class Scan:
    made: list[LineMatch] = field(default_factory=list)
    counted: dict[tuple[int, tuple[int, ...], int | None], int] = field(default_factory=dict)
    tally: Tally | None = None
    laned: int = 0  # lines the lane placed
    stretched: int = 0  # of them, lines a stretch counted


@contextmanager
def without_lane() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Scanner, "_lane", staticmethod(lambda *_: False))
        patch.setattr(scan, "STRETCH_LINES", 1 << 62)
        yield


def scanned(
    lines: list[str] | list[bytes],
    *,
    lane: bool = True,
    settle: bool = True,
    chunk: int = scan.CHUNK_BYTES,
    catalog: SignatureIndex = INDEX,
) -> Scan:
    """One log of `lines` scanned as `trainwreck diagnose` scans it, with the lane or not."""
    raw = b"".join(line if isinstance(line, bytes) else (line + "\n").encode() for line in lines)
    return scanned_logs([raw], lane=lane, settle=settle, chunk=chunk, catalog=catalog)


def scanned_logs(
    logs: list[bytes],
    *,
    lane: bool = True,
    settle: bool = True,
    chunk: int = scan.CHUNK_BYTES,
    catalog: SignatureIndex = INDEX,
) -> Scan:
    result = Scan(tally=Tally(catalog))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan, "CHUNK_BYTES", chunk)
        placed_by_lane = Scanner._lane
        count_stretch = Scanner._count_stretch

        def lane_counting(*args: object) -> bool:
            took = placed_by_lane(*args)  # type: ignore[arg-type]
            result.laned += took
            return took

        def stretch_counting(self: Scanner, block: bytes, at: int, *args: object) -> int:
            taken = count_stretch(self, block, at, *args)  # type: ignore[arg-type]
            result.stretched += block.count(b"\n", at, taken)
            return taken

        patch.setattr(Scanner, "_lane", staticmethod(lane_counting))
        patch.setattr(Scanner, "_count_stretch", stretch_counting)
        with without_lane() if not lane else _nothing():
            settled = Settled()
            scanner = Scanner(catalog)
            for number, raw in enumerate(logs):
                name = f"rank{number}.log" if number else "train.log"
                for match in scanner.scan(
                    io.BytesIO(raw).read,
                    name,
                    number,
                    ScanStats(),
                    [],
                    file_rank=rank_from_path(name),
                    settled=settled if settle else None,
                ):
                    result.made.append(match)
                    result.tally.add(match, settled if settle else None)  # type: ignore[union-attr]
                result.counted.update(counted_lines(settled))
                result.tally.add_settled(settled)  # type: ignore[union-attr]
    return result


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def assert_alike(lines: list[str], **options: object) -> tuple[Scan, Scan]:
    """The scan with the lane against the scan without it, and against reporting every line."""
    fast = scanned(lines, **options)  # type: ignore[arg-type]
    slow = scanned(lines, lane=False, **options)  # type: ignore[arg-type]
    plain = scanned(lines, settle=False, **options)  # type: ignore[arg-type]
    assert fast.made == slow.made
    assert fast.counted == slow.counted
    assert all(m in plain.made for m in fast.made)  # each read as reporting every line reads it
    assert slow.laned == slow.stretched == 0
    report = json_report(triage(plain.tally), {})  # type: ignore[arg-type]
    assert json_report(triage(fast.tally), {}) == report  # type: ignore[arg-type]
    return fast, slow


def cycle(ranks: range, second: int, host: str = "", month: int = 6) -> list[str]:
    return [watch(r, second, host, month) for r in ranks]


def test_a_storm_is_placed_by_the_lane_and_counted_in_stretches() -> None:
    # Ranks 10 to 59 are one shape (and fewer than COUNT_MISSES): after the first round, every
    # line is counted. The run begins with the second round, whose lines have their memos
    # from before it and are placed by `_place`; from the third round on, each line's memo is
    # in the run, and the lane places it.
    lines = [line for second in range(10) for line in cycle(range(10, 60), second)]
    fast, _ = assert_alike(lines)
    assert [m.rank for m in fast.made] == list(range(10, 60))
    assert sum(fast.counted.values()) == 450
    assert fast.laned == 400
    assert 0 < fast.stretched <= fast.laned


def time_of(line: str) -> Timestamp | None:
    return read_line(line).time


# Ranks 10 to 59: one shape, and fewer than COUNT_MISSES, so that after the first round every
# line is counted. The lane places a line of the third round on, or 64 lines into a run.
RANKS = range(10, 60)
# An OOM line with no time to inherit: the entry's lines are compared by position from then on,
# so each later OOM line is counted (placed signatures, see Settled).
PLACE = f"[rank99]:{OOM}"


def test_a_new_stream_waits_until_the_run_is_deep_enough() -> None:
    # Rank 15's line names a host between two rounds. The next round's run begins after it,
    # so rank 15's counted line, 5 lines in, looks back and inherits the host; the lane, whose
    # memo for rank 15 is from before the run, would give none.
    lines = [
        *cycle(RANKS, 1),
        "[rank15]:node-3:99:99 [2] step 5 loss 2.5",
        *cycle(RANKS, 2),
        *cycle(RANKS, 3),
        f"[rank15]:{PROBE}",
    ]
    fast, _ = assert_alike(lines)
    assert fast.made[-1].host == "node-3"
    assert fast.laned == 50


def test_an_untimed_line_whose_memo_in_the_run_has_a_time_looks_back() -> None:
    # Rank 11's watchdog line, early in the run, is placed by `_place` with its own time; the
    # OOM line of rank 11 ten lines on has none and inherits it, as the probe then does.
    lines = [
        PLACE,
        *cycle(RANKS, 1),
        *cycle(range(10, 21), 2),
        f"[rank11]:{OOM}",
        f"[rank11]:{PROBE}",
    ]
    fast, _ = assert_alike(lines)
    assert fast.made[-1].time == time_of(watch(11, 2))
    assert fast.laned == 0


def test_an_untimed_line_waits_for_a_time_the_lane_left_unread() -> None:
    # In the third round, rank 11's line is placed by the lane, its time left unread; the OOM
    # line of rank 11 soon after must look back and read it.
    lines = [
        PLACE,
        *cycle(RANKS, 1),
        *cycle(RANKS, 2),
        *cycle(range(10, 21), 3),
        f"[rank11]:{OOM}",
        f"[rank11]:{PROBE}",
    ]
    fast, _ = assert_alike(lines)
    assert fast.made[-1].time == time_of(watch(11, 3))
    assert fast.laned == 11


def test_a_time_left_unread_is_dropped_with_its_memo() -> None:
    # Rank 11's third-round line leaves an unread time. A new run of OOM lines follows, and
    # rank 11's, 70 lines into it, is placed by the lane without a time: its look-back reaches
    # nothing, and the memo it reuses must not take the old line's time later.
    lines = [
        PLACE,
        *cycle(RANKS, 1),
        *cycle(RANKS, 2),
        *cycle(range(10, 21), 3),
        "[rank30]: step 5 loss 2.5",
        *[f"[rank{r}]:{OOM}" for r in range(20, 90)],
        f"[rank11]:{OOM}",
        f"[rank11]:{PROBE}",
    ]
    fast, _ = assert_alike(lines)
    assert fast.made[-1].time is None
    assert fast.laned == 11 + 7


def test_a_line_with_an_invalid_time_of_its_own_looks_back() -> None:
    # Month 13: the line's own time is invalid, so it takes the time of rank 12's line before.
    lines = [
        *cycle(RANKS, 1),
        *cycle(range(10, 21), 2),
        watch(12, 59, month=13),
        f"[rank12]:{PROBE}",
    ]
    fast, _ = assert_alike(lines)
    assert fast.made[-1].time == time_of(watch(12, 2))


def test_a_probe_reads_the_time_the_lane_left_unread() -> None:
    lines = [*cycle(RANKS, 1), *cycle(RANKS, 2), *cycle(RANKS, 3), f"[rank50]:{PROBE}"]
    fast, _ = assert_alike(lines)
    assert fast.made[-1].time == time_of(watch(50, 3))
    assert fast.laned == 50


def test_a_memo_dropped_by_the_bound_is_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two memos are kept, three lines looked back: rank 10's memo is dropped by ranks 11 and
    # 12, yet its look-back still reaches its line three before, which named a host.
    monkeypatch.setattr(scan, "LOOKBACK_LINES", 3)
    monkeypatch.setattr(scan, "CACHED_STREAMS", 2)
    named = [f"[rank{r}]:node-1:77:77 [0] {OOM}" for r in (10, 11, 12)]
    lines = [PLACE, *named * 4, f"[rank10]:{OOM}", f"[rank10]:{PROBE}"]
    fast, _ = assert_alike(lines)
    assert fast.made[-1].host == "node-1"
    assert sum(fast.counted.values()) == 12  # all but the first line naming a host


def test_a_supporting_line_ends_the_run() -> None:
    # A supporting line sets no memo, so a look-back reads it: rank 11's, which names a host,
    # stands between its stream's memo and its next line, and that line must find it.
    lines = [
        f"[rank11]:{CONTEXT}",
        f"[rank12]:node-3:99:99 [2] {CONTEXT}",
        *cycle(RANKS, 1),
        *cycle(RANKS, 2),
        f"[rank11]:node-2:88:88 [1] {CONTEXT}",
        *cycle(range(10, 13), 3),
        f"[rank11]:{PROBE}",
    ]
    fast, _ = assert_alike(lines)
    assert fast.made[-1].host == "node-2"
    assert sum(fast.counted.values()) == 54


@pytest.mark.parametrize("case", sorted(AFTER_DEFERRED))
def test_deferred_lines_read_alike_with_the_lane(case: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan, "LOOKBACK_LINES", 3)
        if case in ("evicted", "order"):
            patch.setattr(scan, "CACHED_STREAMS", 2)
        assert_alike(AFTER_DEFERRED[case])


def test_a_stretch_holds_no_traceback_end() -> None:
    # Rank 15's OOM line ends its traceback, so it is evidence, reported, in a stretch of OOM
    # lines of other ranks, which must stop before it.
    lines = [
        "[rank15]:Traceback (most recent call last):",
        '[rank15]:  File "train.py", line 1, in <module>',
        *[f"[rank{r}]:{OOM}" for r in range(10, 100)],
    ]
    fast, _ = assert_alike(lines)
    (end,) = [m for m in fast.made if m.rank == 15]
    assert end.evidence == "python-exception"
    # After it, a run of 84 counted lines: the lane places the last 20, in a stretch.
    assert fast.stretched == fast.laned == 20


def test_copies_in_a_stretch_stand_as_one_line() -> None:
    # Rank 47 is new in the second round, and prints its line twice: one LineMatch, repeat 2.
    lines = [
        *cycle(range(10, 47), 1),
        *cycle(range(10, 47), 2),
        watch(47, 2),
        *cycle(range(48, 90), 2),
        *cycle(range(10, 90), 3),
    ]
    lines.insert(lines.index(watch(47, 2)), watch(47, 2))
    fast, _ = assert_alike(lines)
    (copies,) = [m for m in fast.made if m.rank == 47]
    assert copies.repeat == 2
    assert fast.stretched > 0


def test_a_stretch_reports_a_new_stream() -> None:
    # Rank 60 is new in the fourth round, deep in a stretch: its line is reported.
    lines = [
        *[line for second in range(1, 4) for line in cycle(RANKS, second)],
        *cycle(range(10, 36), 4),
        watch(60, 4),
        *cycle(range(36, 60), 4),
    ]
    fast, _ = assert_alike(lines)
    assert [m.rank for m in fast.made] == [*RANKS, 60]
    # The third round and the fourth up to rank 60, whose line ends the run.
    assert fast.stretched == fast.laned == 50 + 26


def test_a_stretch_is_matched_no_further_than_the_next_traceback_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A hundred ranks start a traceback; their OOM lines, which end them, stand one in 17 in a
    # storm of OOM lines of one kind. Matched to the block's end from each stretch, the
    # expression would read the storm once per stretch: 100 times over.
    covered = [0]
    stretch = Scanner._stretch

    def measuring(self: Scanner, block: bytes, stop: int, *args: object) -> int:
        alike = stretch(self, block, stop, *args)  # type: ignore[arg-type]
        covered[0] += alike - stop
        return alike

    monkeypatch.setattr(Scanner, "_stretch", measuring)
    lines = [f"[rank{r}]:Traceback (most recent call last):" for r in range(100, 200)]
    for r in range(100, 200):
        lines += [f"[rank{r}]:{OOM}", *[f"[rank{1000 + i}]:{OOM}" for i in range(16)]]
    fast = scanned(lines)
    # A try that fails is followed by the next STRETCH_RETRY anchors on (8 lines of 2), so a
    # line is matched twice at most.
    assert 0 < covered[0] <= 2 * len("".join(line + "\n" for line in lines))
    ends = {m.rank for m in fast.made if m.evidence == "python-exception" and m.rank < 1000}
    assert ends == set(range(100, 200))
    assert_alike(lines)


def test_a_scanner_compiles_a_bounded_number_of_stretch_expressions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Fifty kinds of OOM line, 20 of each in a row: only the first 8 kinds get an expression,
    # and the scan reads the same without one.
    monkeypatch.setattr(scan, "STRETCH_PATTERNS", 8)
    kinds = ["".join(chr(97 + (k >> shift) % 26) for shift in (0, 5)) for k in range(50)]
    lines = [PLACE, *[f"[rank{10 + i}]:{OOM} {kind}" for kind in kinds for i in range(20)]]
    compiled: list[Scanner] = []
    make = Scanner.__init__

    def keeping(self: Scanner, *args: object, **kwargs: object) -> None:
        make(self, *args, **kwargs)  # type: ignore[arg-type]
        compiled.append(self)

    monkeypatch.setattr(Scanner, "__init__", keeping)
    fast, _ = assert_alike(lines)
    # The scans with and without the lane (which still looks for stretches, and makes none
    # of fewer than 2**62 lines), then the scan that reports every line and looks for none.
    assert [len(s._stretch_patterns) for s in compiled] == [8, 8, 0]
    assert fast.stretched > 0


# A signature whose literal has a digit, with an excerpt of a real log that prints it.
DIGITS = Spec(
    "cuda-runtime-out-of-memory",
    "memory",
    "CUDA runtime error 2",
    "Lower the batch size.",
    (("cuda runtime error (2) : out of memory", "defining"),),
    (
        (
            "https://github.com/mahyarnajibi/fast-rcnn-torch/issues/9",
            "THCudaCheck FAIL file=/tmp/luarocks_cutorch-scm-1-2572/cutorch/lib/THC/"
            "THCTensorRandom.cu line=20 error=2 : out of memory\n"
            "qlua: cuda runtime error (2) : out of memory at /tmp/luarocks_cutorch-scm-1-2572/"
            "cutorch/lib/THC/THCTensorRandom.cu:20",
        ),
    ),
)


def test_a_literal_with_digits_keeps_its_lines_out_of_stretches() -> None:
    # Every line has one shape, but only those with error 2 hold the anchor.
    catalog = index((*SPECS, DIGITS))
    # Every line has one shape and the OOM anchor; the first has error 4, and only those
    # with error 2 hold the other anchor, which has digits.
    lines = [
        f"[rank{r}]:{OOM} cuda runtime error ({4 if r % 3 == 1 else 2}) : out of memory"
        for r in range(10, 90)
    ]
    fast, _ = assert_alike(lines, catalog=catalog)
    found = {
        entry: tally.count
        for entry, tally in fast.tally.defining.items()  # type: ignore[union-attr]
    }
    assert found == {"cuda-out-of-memory": 80, "cuda-runtime-out-of-memory": 53}


# Storms as the lane meets them: rounds of one signature's lines from a few ranks, each with
# a valid time, an invalid one or none, a host or not; copies; OOM lines (no time, placed);
# supporting lines; lines between that name a time or a host; and empty lines.
TIME = st.sampled_from([6, 6, 6, 13, 0])
ROUND = st.builds(
    lambda ranks, rounds, months, hosts, copies: [
        line
        for i in range(ranks * rounds)
        for line in [
            f"[rank{10 + i % ranks}]:"
            + (glog(i // ranks % 60, months[i % len(months)]) if months[i % len(months)] else "")
            + hosts[i % len(hosts)]
            + WATCH.format(r=10 + i % ranks)
        ]
        * (2 if i in copies else 1)
    ],
    st.integers(1, 12),
    st.integers(1, 8),
    st.lists(TIME, min_size=1, max_size=3),
    st.lists(st.sampled_from(["", "", "node-1:77:77 [0] "]), min_size=1, max_size=2),
    st.sets(st.integers(0, 40), max_size=3),
)
RANK = st.integers(10, 21)
BETWEEN = st.one_of(
    st.builds(lambda r: [f"[rank{r}]:{OOM}"], RANK),
    st.builds(lambda rs: [f"[rank{r}]:{OOM}" for r in rs], st.lists(RANK, max_size=30)),
    st.builds(lambda r: [f"[rank{r}]:{CONTEXT}"], RANK),
    st.builds(lambda r: [f"[rank{r}]:{PROBE}"], RANK),
    st.builds(
        lambda r, s, host: [f"[rank{r}]:{glog(s) if s >= 0 else ''}{host}step 5 loss 2.5"],
        RANK,
        st.integers(-1, 59),
        st.sampled_from(["", "node-3:99:99 [2] "]),
    ),
    st.just([""]),
)
LOG = st.lists(st.one_of(ROUND, ROUND, BETWEEN), min_size=1, max_size=12).map(
    lambda parts: [line for part in parts for line in part]
)


@settings(max_examples=300, deadline=None)
@given(
    LOG,
    st.sampled_from([512, 4096, scan.CHUNK_BYTES]),
    st.sampled_from([(scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES), (3, 400), (8, 2000)]),
    st.sampled_from([scan.CACHED_STREAMS, 2, 5, 12]),
    st.sampled_from([2, 4, scan.STRETCH_LINES]),
)
def test_the_lane_never_changes_what_a_scan_makes(
    lines: list[str],
    chunk: int,
    window: tuple[int, int],
    streams: int,
    stretch: int,
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan, "LOOKBACK_LINES", window[0])
        patch.setattr(scan, "LOOKBACK_BYTES", window[1])
        patch.setattr(scan, "CACHED_STREAMS", streams)
        patch.setattr(scan, "STRETCH_LINES", stretch)
        assert_alike(lines, chunk=chunk)
