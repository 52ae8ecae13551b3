"""The scanner: stream a log in blocks, find the lines that match signatures, and say where.

A log is read in blocks of `CHUNK_BYTES`; it is never held whole. Each block ends on a line
break, so no line is split between blocks. The prefilter finds every signature anchor in the
block at once; only the lines around those anchors are decoded and checked with the pattern
matchers, which keeps the cost per megabyte close to the prefilter's own.

Line rules (the same in the browser engine; see index.py): a line ends at LF or at a lone CR
(so a progress bar redrawn with CR is several lines), line numbers count LF as `grep -n`
does, only the first `max_line_bytes` bytes of a line are matched (the rest is counted and
skipped), ANSI escape sequences among those bytes are removed, and bytes are decoded as UTF-8
with U+FFFD for anything invalid. NUL bytes are ordinary characters.

A line that gives no timestamp (a traceback line, say) takes the latest timestamp printed
before it by the same stream (the same file and rank prefix), looking back at most
`LOOKBACK_LINES` lines; hosts are inherited the same way.

Besides the signatures' anchors, the prefilter looks for a fixed set of literals that the
catalog does not own: the launcher lines of launcher.py (which rank died and how) and the
evidence lines of evidence.py (what states an error the catalog may lack). Such a line is
yielded even when no signature matches it. A Python traceback's final line holds no fixed
literal, so from each `Traceback (most recent call last):` the scanner walks forward through
the same stream's indented frames to it (`TRACEBACK_LINES` at most, across blocks). A line of a
launcher's failure summary (`exitcode  : -11 (pid: ...)`) takes its rank from the summary's
`rank      : 2 (local_rank: 2)` line just before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

from generator.diagnose import evidence, launcher
from generator.diagnose.evidence import Kind
from generator.diagnose.index import SignatureIndex
from generator.diagnose.launcher import LaunchReport, read_launch
from generator.diagnose.lineinfo import HEAD_CHARS, Timestamp, read_line, read_line_body
from generator.diagnose.paste import unwrap
from generator.diagnose.prefilter import Prefilter, make_prefilter

CHUNK_BYTES = 4 << 20
LOOKBACK_BYTES = 64 << 10
LOOKBACK_LINES = 64
BINARY_SAMPLE = 8192
BINARY_RATIO = 0.3
TRACEBACK_LINES = 400  # a traceback's final line is looked for this far after its first
SUMMARY_BYTES = 2048  # a summary field takes the rank of a `rank :` line this close before it
# The literals the scanner looks for besides the signatures' anchors, in a fixed order.
EXTRA_ANCHORS: tuple[str, ...] = tuple(dict.fromkeys((*launcher.ANCHORS, *evidence.ANCHORS)))

_CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")
# Control bytes that text logs do not contain (TAB, LF, VT, FF, CR, BS and ESC are allowed).
_ODD_CONTROLS = bytes(b for b in range(32) if b not in b"\t\n\x0b\x0c\r\x08\x1b") + b"\x7f"

Read = Callable[[int], bytes]


class LogReadError(Exception):
    """Reading the rest of a log failed: truncated or corrupt compressed data, an I/O error."""


@dataclass(frozen=True)
class LineMatch:
    """One log line that matched at least one signature, with what the log says about it."""

    file: str
    file_index: int  # input order, for ordering by position
    line: int  # 1-based, counting LF
    offset: int  # of the line in the (decompressed) stream: orders lines split by CR
    text: str  # as the software printed it: a paste's wrappers taken off (paste.py)
    signatures: tuple[int, ...]  # numbers of the signatures that match, ascending (or none)
    rank: int | None
    stream: int | None  # the line's rank prefix: lines of one stream share it
    time: Timestamp | None
    host: str | None
    evidence: Kind | None = None  # the line states an error (evidence.py)
    launch: LaunchReport | None = None  # a launcher's report on a rank (launcher.py)
    rank_from_launcher: bool = False  # the rank is the one a launcher line names


@dataclass
class ScanStats:
    files: int = 0
    bytes: int = 0
    lines: int = 0
    long_lines: int = 0
    skipped_bytes: int = 0


@dataclass(frozen=True)
class ScanProblem:
    file: str
    message: str
    kind: Literal["binary", "read"]


def utf16_order(sample: bytes) -> str | None:
    """The byte order ("LE" or "BE") of text saved as UTF-16 without a BOM: a NUL in every
    other byte of the first characters (the high byte of ASCII), none between; else None."""
    head = sample[:64]
    head = head[: len(head) // 2 * 2]
    if len(head) < 4:
        return None
    even, odd = head[0::2], head[1::2]
    if not odd.strip(b"\0") and b"\0" not in even:
        return "LE"
    if not even.strip(b"\0") and b"\0" not in odd:
        return "BE"
    return None


def binary_reason(sample: bytes) -> str | None:
    """Why the first bytes of a log show that it is not text, or None when it looks like text."""
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "is UTF-16 text; convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)"
    order = utf16_order(sample)
    if order is not None:
        return (
            "is UTF-16 text without a BOM; convert it to UTF-8 first "
            f"(iconv -f UTF-16{order} -t UTF-8)"
        )
    if not sample:
        return None
    controls = len(sample) - len(sample.translate(None, _ODD_CONTROLS))
    text = sample.decode("utf-8", "replace")
    invalid = text.count("\ufffd") - sample.count("\ufffd".encode())
    if (controls + invalid) / len(text) > BINARY_RATIO:
        return "does not look like a text log (binary data)"
    return None


def _line_end(buf: bytes, start: int, has_cr: bool) -> int:
    end = buf.find(b"\n", start)
    if end < 0:
        end = len(buf)
    if has_cr:
        cr = buf.find(b"\r", start, end)
        if cr >= 0:
            end = cr
    return end


def _line_start(buf: bytes, before: int, floor: int, has_cr: bool) -> int:
    start = buf.rfind(b"\n", floor, before) + 1
    if has_cr:
        start = max(start, buf.rfind(b"\r", floor, before) + 1)
    return max(start, floor)


def _first_break(data: bytes) -> int:
    lf, cr = data.find(b"\n"), data.find(b"\r")
    if lf < 0 or (0 <= cr < lf):
        return cr
    return lf


def _cut_long_lines(block: bytes, cap: int, has_cr: bool) -> tuple[bytes, int, int]:
    """The block with every line cut to its first `cap` bytes; how many lines were longer, and
    their bytes past the cap."""
    count = skipped = 0
    pos, size = 0, len(block)
    kept: list[bytes] = []
    kept_to = 0
    while pos + cap < size:
        brk = block.rfind(b"\n", pos, pos + cap + 1)
        if has_cr:
            brk = max(brk, block.rfind(b"\r", pos, pos + cap + 1))
        if brk >= 0:
            pos = brk + 1
            continue
        end = _line_end(block, pos, has_cr)
        count += 1
        skipped += end - pos - cap
        kept.append(block[kept_to : pos + cap])
        kept_to = end
        pos = end + 1
    if not count:
        return block, 0, 0
    kept.append(block[kept_to:])
    return b"".join(kept), count, skipped


@dataclass
class _Memo:
    """The last resolved matched line of a stream, so look-backs never cover a line twice."""

    offset: int
    time: Timestamp | None
    host: str | None


@dataclass
class _FileState:
    name: str
    file_index: int
    file_rank: int | None
    memos: dict[int | None, _Memo] = field(default_factory=dict)
    prev_tail: bytes = b""  # the last LOOKBACK_BYTES before the current block
    # Streams whose traceback's final line is still ahead: lines left to look through.
    tracebacks: dict[int | None, int] = field(default_factory=dict)
    # The last summary `rank :` line of a launcher: (offset, rank, inside Root Cause).
    summary: tuple[int, int, bool] | None = None
    root_next: bool = False  # a Root Cause header was read; its rank line is next


def scan_literals(index: SignatureIndex) -> tuple[bytes, ...]:
    """What the scanner's prefilter looks for: the index's anchors, then EXTRA_ANCHORS."""
    return (*index.anchors, *(a.encode() for a in EXTRA_ANCHORS))


class Scanner:
    def __init__(self, index: SignatureIndex, prefilter: Prefilter | None = None) -> None:
        self.index = index
        self.cap = index.max_line_bytes
        extra = tuple(a.encode() for a in EXTRA_ANCHORS)
        self._first_extra = len(index.anchors)
        self._traceback_anchor = self._first_extra + EXTRA_ANCHORS.index(evidence.TRACEBACK)
        self.prefilter = prefilter or make_prefilter(scan_literals(index))
        self._anchor_len = tuple(len(a) for a in (*index.anchors, *extra))

    def scan(
        self,
        read: Read,
        name: str,
        file_index: int,
        stats: ScanStats,
        problems: list[ScanProblem],
        *,
        file_rank: int | None = None,
        tick: Callable[[], None] | None = None,
    ) -> Iterator[LineMatch]:
        """Every matching line of one log, in order. Problems are appended, never raised."""
        state = _FileState(name, file_index, file_rank)
        cap = self.cap
        carry = b""
        skipping = False
        first = True
        ends_with_break = True
        line_base, offset_base = 1, 0
        error: LogReadError | None = None
        while True:
            try:
                data = read(CHUNK_BYTES)
            except LogReadError as exc:
                data, error = b"", exc
            final = not data
            if data:
                if first:
                    first = False
                    why = binary_reason(data[:BINARY_SAMPLE])
                    if why is not None:
                        problems.append(ScanProblem(name, why, "binary"))
                        return
                stats.bytes += len(data)
                ends_with_break = data.endswith(b"\n")
                if tick is not None:
                    tick()
                if skipping:
                    brk = _first_break(data)
                    if brk < 0:
                        stats.skipped_bytes += len(data)
                        continue
                    stats.skipped_bytes += brk
                    data = data[brk:]
                    skipping = False
                last = max(data.rfind(b"\n"), data.rfind(b"\r"))
                block: bytes | None = None
                if last < 0:
                    carry += data
                else:
                    block, carry = carry + data[: last + 1], data[last + 1 :]
                if len(carry) > cap:
                    stats.long_lines += 1
                    stats.skipped_bytes += len(carry) - cap
                    carry, skipping = carry[:cap], True
                if block is None:
                    continue
            else:
                block, carry = carry, b""
            offset_base += yield from self._block(block, line_base, offset_base, state, stats)
            breaks = block.count(b"\n")
            stats.lines += breaks
            line_base += breaks
            if final:
                break
        stats.files += 1
        if not first and not ends_with_break:
            stats.lines += 1
        if error is not None:
            problems.append(ScanProblem(name, str(error), "read"))

    def _block(
        self, block: bytes, line_base: int, offset_base: int, state: _FileState, stats: ScanStats
    ) -> Generator[LineMatch, None, int]:
        """The matches of one block; returns its length once escape sequences are removed."""
        cap = self.cap
        has_cr = b"\r" in block
        # A line is cut to its first `cap` bytes as they are in the file, escape sequences
        # included, and only then are escape sequences removed: so a line held back between
        # reads (see scan) is cut the same way, and the block size never changes a result.
        block, count, skipped = _cut_long_lines(block, cap, has_cr)
        stats.long_lines += count
        stats.skipped_bytes += skipped
        if b"\x1b" in block:
            block = _CSI.sub(b"", block)
        found = self.prefilter.scan(block)
        starts: dict[int, set[int]] = {}
        for anchor, end in found:
            start = _line_start(block, end - self._anchor_len[anchor], 0, has_cr)
            starts.setdefault(start, set()).add(anchor)
        exceptions = self._exception_lines(block, starts, state, has_cr)
        if starts:
            first_extra = self._first_extra
            by_anchor = self.index.by_anchor
            signatures = self.index.signatures
            counted_to, line = 0, line_base
            for start in sorted(starts):
                line += block.count(b"\n", counted_to, start)
                counted_to = start
                end = min(_line_end(block, start, has_cr), start + cap)
                text = block[start:end].decode("utf-8", "replace")
                anchors = starts[start]
                numbers = sorted(
                    n
                    for anchor in anchors
                    if anchor < first_extra
                    for n in by_anchor[anchor]
                    if signatures[n].matcher.search(text)
                )
                extra = start in exceptions or max(anchors) >= first_extra
                if numbers or extra:
                    match = self._match(
                        block, start, offset_base, line, text, numbers, state, extra, exceptions
                    )
                    if match is not None:
                        yield match
        # The last LOOKBACK_BYTES before the next block, however small the blocks are.
        joined = state.prev_tail + block if len(block) < LOOKBACK_BYTES else block
        state.prev_tail = joined[-LOOKBACK_BYTES:]
        return len(block)

    def _exception_lines(
        self, block: bytes, starts: dict[int, set[int]], state: _FileState, has_cr: bool
    ) -> set[int]:
        """The starts of the final lines of the tracebacks this block holds or continues,
        added to `starts`: each is read once, in order, like any other candidate line."""
        found: set[int] = set()
        walks: list[tuple[int, int | None, int]] = [
            (0, stream, left) for stream, left in state.tracebacks.items()
        ]
        state.tracebacks = {}
        for start, anchors in starts.items():
            if self._traceback_anchor in anchors:
                end = _line_end(block, start, has_cr)
                head = block[start : min(end, start + HEAD_CHARS)].decode("utf-8", "replace")
                info, rest = read_line_body(head)
                if evidence.body_of(rest).startswith(evidence.TRACEBACK):
                    walks.append((end + 1, info.prefix_rank, TRACEBACK_LINES))
        walks.sort(key=lambda w: w[0])
        waiting: set[int | None] = set()
        for pos, stream, left in walks:
            if stream in waiting:
                continue
            size = len(block)
            while left > 0 and pos < size:
                end = _line_end(block, pos, has_cr)
                head = block[pos : min(end, pos + HEAD_CHARS)].decode("utf-8", "replace")
                line_start, pos = pos, end + 1
                info, rest = read_line_body(head)
                if info.prefix_rank != stream:
                    continue
                left -= 1
                body = evidence.body_of(rest)
                if not body.strip() or evidence.is_frame(body):
                    continue
                if body.startswith(evidence.TRACEBACK):
                    continue  # a traceback printed inside another (chained): keep going
                if evidence.is_exception_line(body):
                    found.add(line_start)
                    starts.setdefault(line_start, set())
                left = 0
            if left > 0:
                # The block ended inside the traceback: go on at the start of the next one.
                state.tracebacks[stream] = left
                waiting.add(stream)
        return found

    def _match(
        self,
        block: bytes,
        start: int,
        offset_base: int,
        line: int,
        text: str,
        numbers: list[int],
        state: _FileState,
        extra: bool = False,
        exceptions: set[int] | frozenset[int] = frozenset(),
    ) -> LineMatch | None:
        info, rest = read_line_body(text)
        kind: Kind | None = None
        launch: LaunchReport | None = None
        launch_rank: int | None = None
        if extra:
            body = evidence.body_of(rest)
            launch = read_launch(body)
            offset = offset_base + start
            if launch is not None:
                launch_rank = self._summary_rank(launch, offset, state)
                if launch.summary in ("rank", "field") and launch_rank is not None:
                    root = state.summary is not None and state.summary[2]
                    launch = replace(launch, rank=launch_rank, root=root)
            if start in exceptions:
                kind = "python-exception"
            else:
                signal = launch is not None and launch.signal is not None
                kind = evidence.classify(body, signal)
            if launch is not None and launch.summary in ("root-header", "other-header"):
                launch = None
            if not numbers and kind is None and (launch is None or not launch.failed):
                return None
        stream = info.prefix_rank
        time, host = info.time, info.host
        memo = state.memos.get(stream)
        if time is None or host is None:
            found_time, found_host = self._look_back(block, start, offset_base, stream, state)
            time = time or found_time
            host = host or found_host
            if host is None and memo is not None:
                host = memo.host  # a stream's host does not change
        offset = offset_base + start
        state.memos[stream] = _Memo(offset, time, host)
        rank = next(
            (
                r
                for r in (info.prefix_rank, launch_rank, state.file_rank, info.text_rank)
                if r is not None
            ),
            None,
        )
        return LineMatch(
            state.name,
            state.file_index,
            line,
            offset,
            unwrap(text).text,
            tuple(numbers),
            rank,
            stream,
            time,
            host,
            kind,
            launch,
            info.prefix_rank is None and launch_rank is not None,
        )

    @staticmethod
    def _summary_rank(launch: LaunchReport, offset: int, state: _FileState) -> int | None:
        """The rank a launcher line names, or inherits from its summary block's `rank :` line;
        headers only mark which block the next `rank :` line opens."""
        if launch.summary == "root-header":
            state.root_next = True
            return None
        if launch.summary == "other-header":
            state.root_next = False
            return None
        if launch.summary == "rank" and launch.rank is not None:
            state.summary = (offset, launch.rank, state.root_next)
            state.root_next = False
            return launch.rank
        if launch.summary == "field":
            if state.summary is not None and offset - state.summary[0] <= SUMMARY_BYTES:
                return state.summary[1]
            return None
        return launch.rank

    def _look_back(
        self, block: bytes, start: int, offset_base: int, stream: int | None, state: _FileState
    ) -> tuple[Timestamp | None, str | None]:
        """The latest time and host printed before `start` by the same stream, if close."""
        if start < LOOKBACK_BYTES and state.prev_tail:
            keep = LOOKBACK_BYTES - start
            window = state.prev_tail[-keep:] + block[:start]
            window_offset = offset_base - min(keep, len(state.prev_tail))
        else:
            window, window_offset = block, offset_base
        pos = start + offset_base - window_offset
        floor = max(0, pos - LOOKBACK_BYTES)
        has_cr = b"\r" in window[floor:pos]
        memo = state.memos.get(stream)
        time: Timestamp | None = None
        host: str | None = None
        lines = 0
        while lines < LOOKBACK_LINES and pos > floor:
            line_start = _line_start(window, pos - 1, floor, has_cr)
            if memo is not None and window_offset + line_start <= memo.offset:
                # Every line since the stream's last match was read: inherit from it.
                return time or memo.time, host or memo.host
            head = window[line_start : min(pos - 1, line_start + HEAD_CHARS)]
            pos = line_start
            if not head:
                continue
            lines += 1
            info = read_line(head.decode("utf-8", "replace"))
            if info.prefix_rank != stream:
                continue
            time = time or info.time
            host = host or info.host
            if time is not None and host is not None:
                break
        return time, host
