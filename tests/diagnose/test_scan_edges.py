"""A long coloured line is matched on the same bytes whatever the block size.

The scanner reads a log in blocks and holds back the unfinished last line of each; a line longer
than the cap that was held back used to be cut on its raw bytes, while one inside a block was cut
after its colour codes were removed, so the same log could give a match with one block size and
none with another. Now every line is cut to its first `max_line_bytes` bytes as they are in the
file, and colour codes are removed from those.
"""

from __future__ import annotations

import dataclasses
import io

import pytest
from catalog import index
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose import scan
from generator.diagnose.index import SignatureIndex
from generator.diagnose.scan import LineMatch, Scanner, ScanStats

INDEX = index()
ECC = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
SMALL = SignatureIndex(dataclasses.replace(INDEX.data, max_line_bytes=256))


def run(
    raw: bytes, chunk: int, idx: SignatureIndex = INDEX
) -> tuple[list[tuple[int, str]], ScanStats]:
    saved = scan.CHUNK_BYTES
    scan.CHUNK_BYTES = chunk
    try:
        stats = ScanStats()
        matches: list[LineMatch] = list(
            Scanner(idx).scan(io.BytesIO(raw).read, "x.log", 0, stats, [])
        )
    finally:
        scan.CHUNK_BYTES = saved
    # A match stands for `repeat` identical lines in a row; how many a block folds depends on
    # where it ends, what they are does not.
    return [(m.line + k, m.text) for m in matches for k in range(m.repeat)], stats


@pytest.mark.parametrize("chunk", [7, 4096, 4 << 20])
def test_a_coloured_line_past_the_cap_is_cut_on_its_bytes_as_in_the_file(chunk: int) -> None:
    cap = INDEX.max_line_bytes
    colour = b"\x1b[31m" * 100  # 500 bytes of colour codes at the start of the line
    inside = colour + b"y" * (cap - len(ECC) - 510) + ECC.encode() + b"z" * 5000
    # Past the cap counting the colour codes, inside it without them: not matched.
    outside = colour + b"y" * (cap - len(ECC) - 10) + ECC.encode() + b"z" * 5000
    raw = b"start\n" + inside + b"\n" + outside + b"\n"
    matches, stats = run(raw, chunk)
    assert [(line, len(text.encode())) for line, text in matches] == [(2, cap - 500)]
    assert (stats.long_lines, stats.skipped_bytes) == (2, 2 * 5000 - 10 + 500 - 10)


LINE = st.one_of(
    st.just(ECC.encode()),
    st.binary(max_size=40),
    st.integers(200, 600).map(lambda n: b"x" * n),
    st.integers(0, 300).map(lambda n: b"y" * n + ECC.encode()),
)
DECORATION = st.sampled_from([b"", b"\x1b[31m", b"\x1b[0m", b"\x1b[", b"\x1b[1;3", b"\r"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(DECORATION, LINE, DECORATION, st.sampled_from([b"\n", b"\r\n"]))))
def test_the_block_size_never_changes_a_result(
    parts: list[tuple[bytes, bytes, bytes, bytes]],
) -> None:
    # Plain text first: whether a log is binary is judged on its first bytes as read, and a
    # one-byte read is a smaller sample than the real 4 MiB one.
    head = b"2024-06-26 06:00:00,000 INFO start\n" * 300
    raw = head + b"".join(a + line + b + brk for a, line, b, brk in parts)
    expected = run(raw, 4 << 20, SMALL)
    for chunk in (1, 7, 300):
        assert run(raw, chunk, SMALL) == expected


FLOOR_OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
    "total capacity of 79.15 GiB of which 12.33 GiB is free."
)


def floor_log() -> bytes:
    """A line whose time lies 600 characters in, so a head cut at a window's floor starts with
    it; a match that reads it whole; then a match whose 64 KiB window's floor falls inside it."""
    lines = ["[rank1]: " + "a" * 600 + " 2024-06-26 06:30:00,000 " + "b" * 400]
    lines.append("[rank1]: " + FLOOR_OOM)
    lines += ["[rank2]: " + "c" * 1070] * 60
    lines.append(FLOOR_OOM)
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("cached", [scan.CACHED_HEADS, 0])
def test_a_line_the_window_floor_cuts_is_never_read(
    monkeypatch: pytest.MonkeyPatch, cached: int
) -> None:
    """The last match's walk reaches the window's floor inside the first line. Read from the
    floor, that line began with its timestamp; read whole (kept from the second line's walk), it
    has none at its start. Which one a walk saw depended on the cache; now a cut line is not
    read at all, so the last match has no time either way."""
    monkeypatch.setattr(scan, "CACHED_HEADS", cached)
    found = [
        (m.line, m.stream, m.time)
        for m in Scanner(INDEX).scan(io.BytesIO(floor_log()).read, "t.log", 0, ScanStats(), [])
    ]
    assert found == [(2, 1, None), (63, None, None)]


WIDE_WINDOW_LINES = [
    "[rank14]:[E626 06:24:38.5 x.cc:1]   what():  [PG 3 Rank 5] Process group watchdog thread "
    "terminated with exception: [Rank 5] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, NumelIn=19008, NumelOut=152064, "
    "Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
] * 16 + [
    "[rank53]: [E ProcessGroupNCCL.cpp:828] [Rank 2] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=2511984, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1809826 "
    "milliseconds before timing out.\n",
    "[rank7]: " + "x" * 30000 + "\n",
    "[rank7]: " + "x" * 30000 + "\n",
    "[rank46]:[rank0]:[E626 06:24:44.159932949 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, "
    "NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600030 milliseconds "
    "before timing out.\n",
    "[rank20]:[E626 06:24:46.5 x.cc:1] RuntimeError: NCCL communicator was aborted on rank 1.  "
    "Original reason for failure was: [Rank 1] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=2511984, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1809553 "
    "milliseconds before timing out.\r",
]


@pytest.mark.parametrize("cached", [scan.CACHED_HEADS, 0])
@pytest.mark.parametrize("chunk", [4096, 70_000, 4 << 20])
def test_a_line_a_wider_window_kept_is_cut_at_a_narrower_window_s_floor(
    monkeypatch: pytest.MonkeyPatch, chunk: int, cached: int
) -> None:
    """A walk from near a block's start reaches further back into the previous block than a
    walk from further in, and keeps the lines it read; the later walk met such a line starting
    before its own window and, for a stream with no match yet, raised AttributeError (found by
    the browser engine's interleaved-storm property test). The kept line is cut at the floor,
    as the walk without the cache cuts it: every block size and both cache settings agree."""
    monkeypatch.setattr(scan, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(scan, "CACHED_HEADS", cached)
    raw = "".join(WIDE_WINDOW_LINES).encode()
    found = [
        (m.line + k, m.stream, m.time.text if m.time else None, m.host)
        for m in Scanner(INDEX).scan(io.BytesIO(raw).read, "t.log", 0, ScanStats(), [])
        for k in range(m.repeat)
    ]
    assert found == [(n, 14, "--06-26T06:24:38.5", None) for n in range(1, 17)] + [
        (17, 53, None, None),
        (20, 46, "--06-26T06:24:44.159932949", None),
        (21, 20, "--06-26T06:24:46.5", None),
    ]


_OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
    "total capacity of 79.15 GiB of which 12.33 GiB is free."
)


@pytest.mark.parametrize(("streams", "host"), [(scan.CACHED_STREAMS, "node-a"), (2, None)])
def test_a_stream_forgets_its_last_match_only_past_cached_streams(
    monkeypatch: pytest.MonkeyPatch, streams: int, host: str | None
) -> None:
    # Rank 0's first OOM line takes its host from the NCCL line before it, and its second,
    # 100 lines later (past the look-back's 64), inherits it from the first: unless two other
    # ranks matched since and the file keeps only two streams' last matches (the browser
    # engine's setMemo bound, CACHED_STREAMS, at a size a test can reach).
    monkeypatch.setattr(scan, "CACHED_STREAMS", streams)
    lines = ["[rank0]:node-a:12:34 [0] NCCL INFO Using network IB", f"[rank0]: {_OOM}"]
    lines += [f"[rank{1 + i % 2}]: {_OOM}" for i in range(100)]
    lines.append(f"[rank0]: {_OOM}")
    raw = "".join(line + "\n" for line in lines).encode()
    found = list(Scanner(INDEX).scan(io.BytesIO(raw).read, "oom.log", 0, ScanStats(), []))
    assert [(m.line, m.rank, m.host) for m in found if m.rank == 0] == [
        (2, 0, "node-a"),
        (103, 0, host),
    ]
