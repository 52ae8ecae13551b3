"""Lines counted, not reported (scan.py `Settled`, triage.py `Tally.add_settled`).

Once a scan has reported a line of a stream with some signatures, a later line of that stream
with the same signatures, and no evidence or launcher's report of its own, only adds to the
counts. The scanner counts such a line instead of making it a LineMatch. It still moves its
stream's memo and the sweep on, so the lines after it read alike. The diagnosis must be the
one that reporting every line gives, byte for byte.
"""

from __future__ import annotations

import io

import pytest
from catalog import index
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose import scan
from generator.diagnose.lineinfo import LineInfo, ascii_shape, rank_from_path, read_line
from generator.diagnose.report import json_report
from generator.diagnose.scan import LineMatch, Scanner, ScanStats, Settled
from generator.diagnose.triage import Tally, triage

INDEX = index()
WATCHDOG = (
    "[rank{r}]:[E626 06:{m:02d}:{s:02d}.{us:06d}000 ProcessGroupNCCL.cpp:616] [Rank {r}] "
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
    "NumelIn={n}, NumelOut={n}, Timeout(ms)=600000) ran for {ms} milliseconds before timing out."
)


def scanned(
    logs: list[bytes], settle: bool, chunk: int = scan.CHUNK_BYTES
) -> tuple[Tally, list[LineMatch], Settled]:
    """The tally of `logs` (one file each), the LineMatches the scan made, and what it counted."""
    saved = scan.CHUNK_BYTES
    scan.CHUNK_BYTES = chunk
    try:
        tally, made, settled = Tally(INDEX), [], Settled()
        counted = Settled()
        scanner = Scanner(INDEX)
        for number, raw in enumerate(logs):
            lines = scanner.scan(
                io.BytesIO(raw).read,
                f"rank{number}.log" if number else "train.log",
                number,
                ScanStats(),
                [],
                file_rank=rank_from_path(f"rank{number}.log" if number else "train.log"),
                settled=settled if settle else None,
            )
            for match in lines:
                made.append(match)
                tally.add(match, settled if settle else None)
            counted.counts.update(settled.counts)  # one file index each
            tally.add_settled(settled)
            assert settled.counts == {}
        return tally, made, counted
    finally:
        scan.CHUNK_BYTES = saved


def counted_lines(settled: Settled) -> dict[tuple[int, tuple[int, ...], int | None], int]:
    """The lines `settled` counted, by (file index, signatures, rank)."""
    return {
        (file_index, numbers, rank): count
        for (file_index, numbers), ranks in settled.counts.items()
        for rank, count in ranks.items()
    }


def storm(lines: int, ranks: int) -> bytes:
    return "".join(
        WATCHDOG.format(
            r=i % ranks, m=i // 600 % 60, s=i // 10 % 60, us=i * 7919 % 10**6,
            seq=46 + i // ranks, n=i * 31 % 9973 + 1, ms=600000 + i % 97,
        ) + "\n"
        for i in range(lines)
    ).encode()  # fmt: skip


def reported(every: list[LineMatch], streams: int = scan.CACHED_STREAMS) -> list[LineMatch]:
    """The lines of a storm a counting scan still reports: each line of a shape not seen
    before (it is read in full, which tells what a shape carries), each line of a
    (signatures, rank) pair not reported before (while fewer than `streams` pairs were), and,
    after COUNT_MISSES such lines in a row, the lines the scan passes over untried."""
    shapes: set[bytes] = set()
    pairs: set[tuple[tuple[int, ...], int | None]] = set()
    kept = []
    misses = 0
    for match in every:
        shape = ascii_shape(match.text.encode())
        pair = (match.signatures, match.rank)
        tried = misses < scan.COUNT_MISSES or (misses + 1) % scan.COUNT_MISSES == 0
        counted = tried and shape in shapes and pair in pairs
        misses = 0 if counted else misses + 1
        if not counted:
            kept.append(match)
            if len(pairs) < streams:
                pairs.add(pair)
        shapes.add(shape)
    return kept


def test_a_storm_makes_one_line_match_per_stream_and_counts_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = storm(5_000, 100)
    heads: list[str] = []  # the heads look-backs and the sweep read, apart from the lines' own

    def reading(text: str) -> LineInfo:
        heads.append(text)
        return read_line(text)

    monkeypatch.setattr(scan, "read_line", reading)
    plain, every, _ = scanned([raw], settle=False)
    read_by_plain, heads[:] = list(heads), []
    laned: list[str] = []
    lane = scan.Scanner._lane

    def placing(*args: object) -> bool:
        took = lane(*args)  # type: ignore[arg-type]
        if took:
            laned.append(args[1])  # type: ignore[arg-type]
        return took

    monkeypatch.setattr(scan.Scanner, "_lane", staticmethod(placing))
    tally, made, counted = scanned([raw], settle=True)
    # A counted line is given to the sweep as it was read, and no look-back reads it again;
    # a line the lane placed is not, and a look-back after it reads its head, once at most.
    assert read_by_plain == []
    assert len(set(heads)) == len(heads)
    assert set(heads) <= set(laned)
    assert len(laned) > 4_000
    assert len(every) == 5_000
    # The first line of each rank, as the plain scan reads it, and the first of each shape.
    assert made == reported(every)
    assert 100 < len(made) < 150
    (numbers,) = {m.signatures for m in every}
    assert sum(counted_lines(counted).values()) == 5_000 - len(made)
    assert counted_lines(counted) == {
        (0, numbers, r): 50 - sum(m.rank == r for m in made) for r in range(100)
    }
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
    assert tally.defining == plain.defining
    assert tally.context == plain.context


def test_a_log_of_new_streams_is_tried_one_line_in_count_misses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = storm(1_000, 1_000)  # every line a rank of its own: none can be counted
    tries = []
    inner = Scanner._count_line
    monkeypatch.setattr(Scanner, "_count_line", lambda self, *a: tries.append(1) or inner(self, *a))
    plain, every, _ = scanned([raw], settle=False)
    tally, made, counted = scanned([raw], settle=True)
    assert made == every
    assert counted_lines(counted) == {}
    # 64 misses in a row, then one line in 64.
    assert len(tries) == scan.COUNT_MISSES + (1_000 - scan.COUNT_MISSES) // scan.COUNT_MISSES
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})


def test_past_cached_streams_a_line_of_a_new_stream_is_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scan, "CACHED_STREAMS", 10)
    raw = storm(3_000, 30)
    plain, every, _ = scanned([raw], settle=False)
    tally, made, counted = scanned([raw], settle=True)
    # Ten (signatures, rank) pairs are kept: the other 20 ranks report every line.
    assert made == reported(every, streams=10)
    assert sum(m.rank is not None and m.rank >= 10 for m in made) == 20 * 100
    (numbers,) = {m.signatures for m in every}
    assert counted_lines(counted) == {
        (0, numbers, r): 100 - sum(m.rank == r for m in made) for r in range(10)
    }
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})


def test_evidence_and_launcher_lines_are_always_reported() -> None:
    srun = "srun: error: node-{h}: task {t}: Exited with exit code 1\n"
    error = "[rank{r}]: RuntimeError: step {n} failed\n"
    raw = "".join(srun.format(h=i % 3, t=i % 2) + error.format(r=i % 2, n=i) for i in range(40))
    plain, every, _ = scanned([raw.encode()], settle=False)
    tally, made, counted = scanned([raw.encode()], settle=True)
    assert made == every
    assert counted_lines(counted) == {}
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})


OOM_BODY = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 79.15 GiB of which 1.33 GiB is free."
)
GLOG = "[E0626 06:00:{s:02d}.100000 7 x.cpp:1] "
# A time before the rank prefix leaves the line's own text a Python exception (evidence).
ISO_TIME = "2026-06-26 06:00:{s:02d},100"


def test_new_streams_of_placed_signatures_are_counted() -> None:
    # No line has a time, so the first lines of the OOM entry's streams are compared by
    # position: once one is in, a new rank's line changes only the counts and the streams.
    raw = "".join(f"[rank{r}]:{OOM_BODY}\n" for r in range(2_000)).encode()
    plain, every, _ = scanned([raw], settle=False)
    tally, made, counted = scanned([raw], settle=True)
    # The first line of each shape is read in full; ranks of 1 to 4 digits are 4 shapes.
    assert [m.rank for m in made] == [0, 10, 100, 1000]
    (numbers,) = {m.signatures for m in every}
    assert counted_lines(counted) == {
        (0, numbers, r): 1 for r in range(2_000) if r not in (0, 10, 100, 1000)
    }
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
    assert (tally.defining, tally.evidence) == (plain.defining, plain.evidence)
    assert triage(tally).first_failed_rank == 0


def test_evidence_the_tally_keeps_is_reported_from_each_new_stream() -> None:
    # A context signature names no known entry, so the tally keeps each stream's first
    # exception: with no time on any line, every rank's line is still reported.
    body = "RuntimeError: To avoid data inconsistency, we are taking the entire process down."
    raw = "".join(f"[rank{r}]:{body}\n" for r in range(20)).encode()
    plain, every, _ = scanned([raw], settle=False)
    tally, made, counted = scanned([raw], settle=True)
    assert len(every) == 20
    assert made == every
    assert counted_lines(counted) == {}
    assert sorted(plain.evidence) == [(0, r) for r in range(20)]
    assert (tally.context, tally.evidence) == (plain.context, plain.evidence)


def test_a_line_that_can_come_first_by_its_time_is_reported() -> None:
    # Every line has a time: rank 10's, the last, is the earliest, and names the first rank.
    lines = [f"[rank{r}]:{GLOG.format(s=20 + r)}{OOM_BODY}" for r in range(10)]
    lines.append(f"[rank10]:{GLOG.format(s=1)}{OOM_BODY}")
    raw = "".join(line + "\n" for line in lines).encode()
    plain, every, _ = scanned([raw], settle=False)
    tally, made, counted = scanned([raw], settle=True)
    assert made == every
    assert counted_lines(counted) == {}
    assert triage(tally).first_failed_rank == triage(plain).first_failed_rank == 10
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
    assert tally.defining == plain.defining


def test_signatures_are_placed_once_a_line_names_a_rank() -> None:
    # train.log's line names no rank, so the ranked first lines have none yet: rank1.log's
    # line, of the same shape, is reported and names the first failed rank; rank2.log's, a
    # new stream after it, is counted.
    logs = [f"{OOM_BODY}\n".encode()] * 3
    plain, every, _ = scanned(logs, settle=False)
    tally, made, counted = scanned(logs, settle=True)
    assert [(m.file_index, m.rank) for m in made] == [(0, None), (1, 1)]
    (numbers,) = {m.signatures for m in every}
    assert counted_lines(counted) == {(2, numbers, 2): 1}
    assert triage(tally).first_failed_rank == triage(plain).first_failed_rank == 1
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
    assert tally.defining == plain.defining


def test_a_known_entrys_evidence_is_counted_by_stream() -> None:
    # An OOM line is evidence (a Python exception) that the tally does not keep, for a known
    # entry names it: a later line of a rank reported, in the same shape, is only a count.
    # Each line has a time, so no new rank's line is counted.
    lines = [f"{ISO_TIME.format(s=10 + i)} [rank{i % 5}]:{OOM_BODY}" for i in range(40)]
    raw = "".join(line + "\n" for line in lines).encode()
    plain, every, _ = scanned([raw], settle=False)
    tally, made, counted = scanned([raw], settle=True)
    assert made == every[:5]
    assert {m.evidence for m in every} == {"python-exception"}
    (numbers,) = {m.signatures for m in every}
    assert counted_lines(counted) == {(0, numbers, r): 7 for r in range(5)}
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
    assert (tally.defining, tally.evidence) == (plain.defining, plain.evidence)


WATCH = (
    "[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={n}, "
    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 60000{n} "
    "milliseconds before timing out."
)
STAMP = "[E626 06:00:01.000001 7 x.cpp:1] node-1:77:77 "
FILLER = ["[rank1]: step 5 loss 2.5"]
OOM_LINE = (
    "[rank0]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.15 GiB of which 1.33 GiB is free."
)
CONTEXT = "[rank0]:To avoid data inconsistency, we are taking the entire process down."
ELASTIC = "[default0]:failed (exitcode: 1) local_rank: {r} (pid: 41) of binary: /usr/bin/python"
# Each log has a counted line whose effect on the lines after it shows in the diagnosis.
AFTER_COUNTED = {
    # Its time is inherited through the memos: the OOM line's look-back ends on the counted
    # line and takes its time; without that memo, the walk stops short of any time.
    "memo": [
        "[rank0]:" + STAMP + WATCH.format(r=0, n=1),
        *FILLER * 10,
        "[rank0]:" + WATCH.format(r=0, n=2),
        *FILLER * 10,
        "[rank0]:" + WATCH.format(r=0, n=3),  # counted
        *FILLER * 60,
        OOM_LINE,
    ],
    # A supporting line is no memo: counted, it must not become one.
    "supporting": [
        "[rank0]:" + STAMP + WATCH.format(r=0, n=1),
        *FILLER * 50,
        CONTEXT,
        *FILLER,  # two in a row would be one line standing twice
        CONTEXT,  # counted
        *FILLER * 50,
        OOM_LINE,
    ],
    # A line without a prefix in rank1.log is rank 1's, whatever rank its text names.
    "rank": [
        "[rank2]:" + WATCH.format(r=2, n=1),
        WATCH.format(r=2, n=2),
        WATCH.format(r=2, n=3),  # counted, as rank 1's
    ],
    # A launcher's report is never only a count: the second names another rank.
    "launcher": [ELASTIC.format(r=0), ELASTIC.format(r=1)],
}


@pytest.mark.parametrize("case", sorted(AFTER_COUNTED))
def test_a_counted_line_leaves_what_a_reported_line_leaves(case: str) -> None:
    raw = "".join(line + "\n" for line in AFTER_COUNTED[case]).encode()
    logs = [b"", raw] if case == "rank" else [raw]  # the second file is rank1.log
    plain, _, _ = scanned(logs, settle=False)
    tally, _, counted = scanned(logs, settle=True)
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
    assert (tally.defining, tally.context, tally.witnesses) == (
        plain.defining,
        plain.context,
        plain.witnesses,
    )
    lines = {"memo": 1, "supporting": 1, "rank": 1, "launcher": 0}[case]
    assert sum(counted_lines(counted).values()) == lines


RANK = st.integers(0, 3)
TIME = st.one_of(
    st.just(""),
    st.builds(
        lambda mo, m, s, us: f"[E{mo:02d}26 06:{m:02d}:{s:02d}.{us:06d} 7 x.cpp:1] ",
        st.sampled_from([6, 13]),  # month 13: the line's time falls through, as invalid
        st.integers(0, 59),
        st.integers(0, 59),
        st.integers(0, 10**6 - 1),
    ),
)
# Hosts as NCCL prints them (`host:pid:tid [dev]`), so that lines read them.
HOST = st.sampled_from(["", "node-1:77:77 [0] ", "node-2:88:88 [1] "])
BODY = st.sampled_from(
    [
        "[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={n}, "
        "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 6000{n} "
        "milliseconds before timing out.",
        "To avoid data inconsistency, we are taking the entire process down.",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {n}.00 GiB. GPU 0 has a "
        "total capacity of 79.15 GiB of which 1.33 GiB is free.",
        "NET/Plugin : No plugin found (libnccl-net.so)",
        "CUDA error: uncorrectable ECC error encountered",
        "RuntimeError: step {n} failed",
        "srun: error: node-{r}: task {r}: Exited with exit code {n}",
        "step {n} loss 2.{n}",
        "CUDA kernel errors might be asynchronously reported at some other API call, so {n}",
        "failed (exitcode: {n}) local_rank: {r} (pid: 4{n}) of binary: python",
        "[Rank {r}] NCCL watchdog thread terminated with exception: step {n}",
    ]
)
LINE = st.builds(
    lambda prefix, r, time, host, body, n: (
        (f"[rank{r}]:" if prefix else "") + time + host + body.format(r=r, n=n)
    ),
    st.booleans(),
    RANK,
    TIME,
    HOST,
    BODY,
    st.integers(0, 99),
)
LOG = st.lists(LINE, min_size=1, max_size=80).map(lambda ls: "".join(x + "\n" for x in ls))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(LOG, min_size=1, max_size=3),
    st.sampled_from([64, 4096, scan.CHUNK_BYTES]),
    st.sampled_from([(scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES), (3, 400), (1, 200)]),
)
def test_counting_lines_never_changes_a_diagnosis(
    logs: list[str], chunk: int, window: tuple[int, int]
) -> None:
    # Narrow windows make the look-backs end on memos, and so test that counted lines leave
    # the memos and the sweep as reported lines would.
    saved = scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES
    scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES = window
    try:
        raws = [log.encode() for log in logs]
        plain, every, _ = scanned(raws, settle=False, chunk=chunk)
        tally, made, counted = scanned(raws, settle=True, chunk=chunk)
    finally:
        scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES = saved
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
    assert (tally.defining, tally.harmless, tally.context) == (
        plain.defining,
        plain.harmless,
        plain.context,
    )
    assert (tally.evidence, tally.witnesses) == (plain.evidence, plain.witnesses)
    # What was made is what the plain scan made, less the lines counted.
    assert sum(m.repeat for m in made) + sum(counted_lines(counted).values()) == sum(
        m.repeat for m in every
    )
    assert all(m in every for m in made)


# Storms as deferred counting meets them (scan._Sweep.defer): runs of one signature's lines
# from a few ranks, each with a valid time or not, a host or not, between lines of other
# signatures and healthy lines that name a time or a host, whose readings show the memos.
STORM_TIME = st.builds(
    lambda mo, s, us: f"[E{mo:02d}26 06:00:{s:02d}.{us:06d} 7 x.cpp:1] ",
    st.sampled_from([6, 6, 6, 13]),
    st.integers(0, 59),
    st.integers(100000, 999999),
)
# A burst: a run of watchdog lines from `ranks` ranks in turn, their times and hosts drawn in
# turn from short lists, so that lines of one shape follow one another. Between bursts, lines
# that look back (the OOM line has no time or host) and healthy lines naming a time or a host.
BURST = st.builds(
    lambda ranks, n, times, hosts: [
        f"[rank{i % ranks}]:{times[i % len(times)]}{hosts[i % len(hosts)]}"
        + WATCH.format(r=i % ranks, n=5)
        for i in range(n)
    ],
    st.integers(1, 4),
    st.integers(1, 40),
    st.lists(st.one_of(*[STORM_TIME] * 6, st.just("")), min_size=1, max_size=3),
    st.lists(st.sampled_from(["", "", "", "node-1:77:77 [0] "]), min_size=1, max_size=2),
)
BETWEEN = st.one_of(
    st.builds(lambda r: [OOM_LINE.replace("[rank0]", f"[rank{r}]")], RANK),
    st.builds(
        lambda r, time, host: [f"[rank{r}]:{time}{host}step 5 loss 2.5"],
        RANK,
        st.one_of(STORM_TIME, st.just("")),
        st.sampled_from(["", "node-3:99:99 [2] "]),
    ),
    st.just([""]),
)
STORM_LOG = st.lists(st.one_of(BURST, BETWEEN, BETWEEN), min_size=1, max_size=16).map(
    lambda parts: "".join(line + "\n" for part in parts for line in part)
)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(STORM_LOG, min_size=1, max_size=2),
    st.sampled_from([512, 4096, scan.CHUNK_BYTES]),
    st.sampled_from([(scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES), (3, 400), (8, 2000)]),
    st.sampled_from([scan.CACHED_STREAMS, 2]),
)
def test_deferred_counting_never_changes_what_a_line_reads(
    logs: list[str], chunk: int, window: tuple[int, int], streams: int
) -> None:
    saved = scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES, scan.CACHED_STREAMS
    scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES = window
    scan.CACHED_STREAMS = streams  # memos forget streams, the least recently matched first
    try:
        raws = [log.encode() for log in logs]
        plain, every, _ = scanned(raws, settle=False, chunk=chunk)
        tally, made, counted = scanned(raws, settle=True, chunk=chunk)
    finally:
        scan.LOOKBACK_LINES, scan.LOOKBACK_BYTES, scan.CACHED_STREAMS = saved
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
    assert (tally.defining, tally.context) == (plain.defining, plain.context)
    # Every line made reads the time and host the plain scan read: the memos agree.
    assert all(m in every for m in made)
    assert sum(m.repeat for m in made) + sum(counted_lines(counted).values()) == sum(
        m.repeat for m in every
    )


def _watch(rank: int, second: int, host: str = "") -> str:
    return f"[rank{rank}]:[E0626 06:00:{second:02d}.100000 7 x.cpp:1] {host}" + WATCH.format(
        r=rank, n=5
    )


# Rank 0's, with no time or host: it takes its stream's. An error no entry knows, so that each
# probe is reported (an OOM line is a known entry's: once one without a time is reported, the
# rest are counted, placed; see test_new_streams_of_placed_signatures_are_counted).
PROBE = "[rank0]:RuntimeError: step 5 failed"
# Each log has deferred lines (scan._Sweep.defer) whose memo shows in a later line's reading.
AFTER_DEFERRED = {
    # A healthy line between names rank 0's host: the lines after it inherit it, so none of
    # them is deferred with the host of the stream's last match.
    "gap": [
        *[_watch(0, s) for s in range(5)],
        "[rank0]:node-3:99:99 [2] step 5 loss 2.5",
        *[_watch(0, s) for s in range(10, 13)],
        PROBE,
    ],
    # The same, read by another line's look-back before rank 0's next line.
    "read-between": [
        _watch(0, 1),
        "[rank0]:node-3:99:99 [2] step 5 loss 2.5",
        PROBE.replace("[rank0]", "[rank1]"),
        *[_watch(0, s) for s in range(10, 13)],
        *FILLER * 5,
        PROBE,
    ],
    # The last deferred line names a host of its own: the block ends there, and the memo the
    # next block reads is that line's.
    "block-end": [
        _watch(0, 1),
        _watch(0, 2, "node-1:77:77 [0] "),
        _watch(0, 3, "node-2:88:88 [1] "),
        *FILLER * 5,
        PROBE,
    ],
    # A deferred line without a host inherits the last one that named one, itself deferred.
    "chained": [
        _watch(0, 1),
        _watch(0, 2, "node-1:77:77 [0] "),
        _watch(0, 3),
        _watch(0, 4, "node-2:88:88 [1] "),
        _watch(0, 5),
        *FILLER * 5,
        PROBE,
    ],
    # Two memos are kept (CACHED_STREAMS): rank 2's line drops rank 0's, and the probe's
    # look-back finds the deferred line's time and host in the sweep.
    "evicted": [
        _watch(0, 1),
        _watch(0, 2, "node-1:77:77 [0] "),
        _watch(0, 3, "node-2:88:88 [1] "),
        PROBE.replace("[rank0]", "[rank1]"),
        PROBE.replace("[rank0]", "[rank2]"),
        PROBE,
    ],
    # Memos are written in the order their streams' last lines stand: rank 1's is older than
    # rank 0's, so rank 2's line drops rank 1's, and rank 1's probe has no host to inherit.
    "order": [
        _watch(0, 1),
        _watch(1, 1),
        _watch(0, 2, "node-1:77:77 [0] "),
        _watch(0, 3, "node-1:77:77 [0] "),
        _watch(1, 3, "node-2:88:88 [1] "),
        _watch(0, 4, "node-1:77:77 [0] "),
        PROBE.replace("[rank0]", "[rank2]"),
        *FILLER * 5,
        PROBE.replace("[rank0]", "[rank1]"),
    ],
}


@pytest.mark.parametrize("case", sorted(AFTER_DEFERRED))
def test_a_deferred_line_leaves_what_a_reported_line_leaves(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A look-back of three lines stops short of the memo, so the probe takes its host alone.
    monkeypatch.setattr(scan, "LOOKBACK_LINES", 3)
    # Lines the lane places are not deferred (test_scan_lane.py has these logs with it).
    monkeypatch.setattr(scan.Scanner, "_lane", staticmethod(lambda *_: False))
    if case in ("evicted", "order"):
        monkeypatch.setattr(scan, "CACHED_STREAMS", 2)
    lines = [line + "\n" for line in AFTER_DEFERRED[case]]
    raw = "".join(lines).encode()
    # "block-end" reads its first three lines as a block of their own.
    chunk = len("".join(lines[:3]).encode()) if case == "block-end" else scan.CHUNK_BYTES
    plain, every, _ = scanned([raw], settle=False, chunk=chunk)
    deferred: list[bool] = []
    defer = scan._Sweep.defer
    monkeypatch.setattr(scan._Sweep, "defer", lambda *a: deferred.append(defer(*a)) or deferred[-1])
    tally, made, counted = scanned([raw], settle=True, chunk=chunk)
    # Each counted line, whether it was deferred: not the first after a line between.
    assert (
        deferred
        == {
            "gap": [True] * 4 + [False] + [True] * 2,
            "read-between": [False, True, True],
            "block-end": [True],
            "chained": [True] * 3,
            "evicted": [True],
            "order": [True] * 3,
        }[case]
    )
    assert sum(counted_lines(counted).values()) == len(deferred)
    assert made[-1] == every[-1]
    assert made[-1].host == {
        "gap": "node-3", "read-between": "node-3", "block-end": "node-2", "chained": "node-2",
        "evicted": "node-2", "order": None,
    }[case]  # fmt: skip
    assert all(m in every for m in made)
    assert json_report(triage(tally), {}) == json_report(triage(plain), {})
