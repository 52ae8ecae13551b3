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

import bisect
import operator
import re
from collections import OrderedDict, deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

from generator.diagnose import evidence, launcher
from generator.diagnose.evidence import Kind
from generator.diagnose.index import KNOWN_ROLES, SignatureIndex
from generator.diagnose.launcher import LaunchReport, read_launch
from generator.diagnose.lineinfo import (
    DIGITS_ALIKE,
    HEAD_CHARS,
    HeadPlan,
    LineInfo,
    Timestamp,
    ascii_shape,
    own_host_of,
    plan_of_shape,
    read_line,
    read_line_body,
    read_line_parts,
    read_parts_by,
    read_ranks_by,
    time_test_of,
)
from generator.diagnose.paste import Span, unwrap
from generator.diagnose.prefilter import Prefilter, make_prefilter
from generator.diagnose.records import quick_init
from generator.diagnose.verify import Verifier

CHUNK_BYTES = 4 << 20
LOOKBACK_BYTES = 64 << 10
LOOKBACK_LINES = 64
BINARY_SAMPLE = 8192
BINARY_RATIO = 0.3
TRACEBACK_LINES = 400  # a traceback's final line is looked for this far after its first
SUMMARY_BYTES = 2048  # a summary field takes the rank of a `rank :` line this close before it
CACHED_LINES = 4096  # distinct lines whose reading is kept (Scanner._lines), at most
CACHED_LINE_BYTES = 1024  # and only lines this short, so the cache stays under 5 MB
CACHED_SHAPES = 4096  # line shapes whose verification is kept (Scanner._shapes), at most
CACHED_HEADS = 1 << 16  # lines a block's look-backs keep (_FileState.heads), at most
CACHED_STREAMS = 1 << 16  # streams whose last match a file keeps (_set_memo), at most
UNREAD_TIMES = 4096  # memos whose time a block may leave unread (_FileState.unread_times)
SWEEP_GAP = 8  # lines between two matches that _Sweep reads rather than begin anew
STRETCH_LINES = 16  # lines of one shape in a row that make a stretch (Scanner._stretch)
STRETCH_RETRY = 16  # anchors found, after a shorter one, before a stretch is looked for again
STRETCH_PATTERNS = 256  # kinds of line a scanner compiles a stretch's expression for, at most
# After this many lines in a row that Scanner._count_line could not count, it tries one in this
# many until one is counted: in a log where every line is a new stream, trying costs without gain.
COUNT_MISSES = 64
# The literals the scanner looks for besides the signatures' anchors, in a fixed order.
EXTRA_ANCHORS: tuple[str, ...] = tuple(dict.fromkeys((*launcher.ANCHORS, *evidence.ANCHORS)))

_BY_END = operator.itemgetter(1)
_CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")
# Control bytes that text logs do not contain (TAB, LF, VT, FF, CR, BS and ESC are allowed).
_ODD_CONTROLS = bytes(b for b in range(32) if b not in b"\t\n\x0b\x0c\r\x08\x1b") + b"\x7f"

Read = Callable[[int], bytes]


def _repeats(block: bytes, start: int, end: int, exceptions: set[int]) -> tuple[int, int]:
    """How many times the line at `start` (ending at `end`, before its LF or CRLF) stands in a
    row, this one included, and its size with its break.

    Such lines, in one stream with nothing between, read alike: the same signatures, rank and
    evidence, and the same time and host, since each inherits what it lacks from the one before
    (Scanner._look_back stops at the stream's last match). A traceback's final line
    (`exceptions`) is never folded into the lines before it."""
    brk = block[end : end + 2]
    if brk[:1] == b"\n":
        unit = block[start : end + 1]
    elif brk == b"\r\n":
        unit = block[start : end + 2]
    else:
        return 1, 0
    size = len(unit)
    pos = start + size
    if not block.startswith(unit, pos):
        return 1, size
    # Doubling, then halving: the run is compared in C, a few times over, never line by line.
    more, step = 1, 1  # copies after the first one, known to follow
    while block.startswith(unit * step, pos + more * size):
        more += step
        step *= 2
    while step > 1:
        step //= 2
        if block.startswith(unit * step, pos + more * size):
            more += step
    run_end = start + (more + 1) * size
    for e in exceptions:
        if start < e < run_end:
            more = min(more, (e - start) // size - 1)
    return more + 1, size


def _holds_lines(block: bytes, start: int, end: int, lines: int) -> bool:
    """Whether `block[start:end]` holds at least `lines` line breaks, without counting all."""
    pos = start
    for _ in range(lines):
        pos = block.find(b"\n", pos, end) + 1
        if not pos:
            return False
    return True


class LogReadError(Exception):
    """Reading the rest of a log failed: truncated or corrupt compressed data, an I/O error."""


@quick_init
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
    repeat: int = 1  # the line, unchanged, stands this many times in a row (from `line` on)


class Settled:
    """The lines a scan counted rather than reported (Scanner.scan's `settled`).

    A line is counted here, and made into no LineMatch, when it carries no evidence the tally
    keeps and no launcher's report, and either the scan has already reported a line of its
    stream with the same signatures and rank, or its signatures are `placed`. The tally takes
    nothing from such a line but its count and its stream (Tally.add_settled): a watchdog
    storm's 200,000 lines from 1,000 ranks make 1,000 LineMatches, not 200,000.

    A set of signatures is placed once, for every entry it counts for, the tally's earliest
    first lines can be compared by position only (some line had no time) and it has one: a
    later line, which comes later in the scan's order, can then change nothing but the counts,
    even as a new stream's first line. The tally marks them (Tally.add); 200,000 OOM lines, each
    from a rank of its own, make one LineMatch."""

    def __init__(self) -> None:
        # (file index, signatures) -> rank -> lines counted: the tally takes a set's ranks at
        # once (Tally.add_settled), and a storm of one line per rank has 200,000 of them.
        self.counts: dict[tuple[int, tuple[int, ...]], dict[int | None, int]] = {}
        # Signature sets whose later lines only add to counts; at most ROLE_SETS (triage.py).
        self.placed: set[tuple[int, ...]] = set()


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


@quick_init
@dataclass(frozen=True)
class _Line:
    """What one line says by itself (Scanner._read); lines are many, their texts few."""

    numbers: tuple[int, ...]  # the signatures that match it
    extra: bool  # it holds a launcher or evidence literal
    text: str  # without a paste's wrappers
    info: LineInfo
    launch: LaunchReport | None
    kind: Kind | None  # the evidence it is by its own text (a traceback's end aside)
    supporting: bool  # only context signatures match it


@dataclass
class _Shape:
    """What every ASCII line of one shape says alike (Scanner._read): the signatures it matches
    (its anchors' are digit-blind), and the plan its head is read by. Once a line of the shape
    is read as no launcher's report, so is every line of it, with the same evidence kind:
    every expression of launcher.py and evidence.py treats the ten digits alike (the tests
    check each), so which of them match is the shape's; only the values they read are not."""

    numbers: tuple[int, ...]
    supporting: bool
    # Whether the signatures make a line a known entry's (defining or harmless), whose
    # evidence the tally never keeps (Tally._witness).
    known: bool
    plan: HeadPlan
    # Whether the plan alone decides a line's own host, and where it lies (own_host_of).
    host: tuple[bool, Span | None]
    has_time: Callable[[str], bool]  # has_time_by, for lines of the shape (time_test_of)
    quiet: tuple[Kind | None] | None = None  # (kind,) once a line was no launcher's report
    # Set with `quiet`: a line of the shape may be only counted (Scanner._count_line). It has
    # signatures, and no evidence the tally keeps (a known entry's evidence it never keeps).
    countable: bool = False
    # Whether a counted line of the shape may be placed by the lane (Scanner._count_line): it
    # sets its stream's memo, and the plan alone decides its own host.
    lane: bool = field(init=False)
    timed: bool = field(init=False)  # the plan reads a time: a line's own, when it is valid
    stretch: bool | None = None  # Scanner._stretchable, once a line of the shape was read

    def __post_init__(self) -> None:
        self.lane = not self.supporting and self.host[0]
        self.timed = bool(self.plan.stamps or self.plan.lead_stamps)


@dataclass
class _FileState:
    name: str
    file_index: int
    file_rank: int | None
    # Least recently matched first (_set_memo): a dict would find its first live entry past
    # every one deleted before it, once per new stream over the bound.
    memos: OrderedDict[int | None, _Memo] = field(default_factory=OrderedDict)
    prev_tail: bytes = b""  # the last LOOKBACK_BYTES before the current block
    # Streams whose traceback's final line is still ahead: lines left to look through.
    tracebacks: dict[int | None, int] = field(default_factory=dict)
    # The last summary `rank :` line of a launcher: (offset, rank, inside Root Cause).
    summary: tuple[int, int, bool] | None = None
    root_next: bool = False  # a Root Cause header was read; its rank line is next
    # Lines the look-backs of the current block read: stream place after the line's break ->
    # (place of its start, what it says, or None for an empty line).
    heads: dict[int, tuple[int, LineInfo | None]] = field(default_factory=dict)
    sweep: _Sweep | None = None  # the current block's lines read forward, when matches are close
    # (signatures, rank) of the lines reported, while a scan counts lines (Settled); at most
    # CACHED_STREAMS, past which a line of a new pair is reported, as without counting.
    reported: set[tuple[tuple[int, ...], int | None]] = field(default_factory=set)
    count_misses: int = 0  # lines in a row not counted, tried or not (COUNT_MISSES)
    # The lane's run (Scanner._count_line): counted lines that each set their stream's memo
    # and start where the one before ended. Its first line's stream place, where the next line
    # must start to join it, and how many lines it has.
    run_from: int = -1
    run_next: int = -1
    run_lines: int = 0
    # Memos the lane set whose time is not read yet: stream -> (memo, plan, head). A memo's
    # time is read only by a later line of its stream that looks back (Scanner._place), so
    # it is read then, if ever; a storm's lines seldom do.
    unread_times: dict[int | None, tuple[_Memo, HeadPlan, str]] = field(default_factory=dict)


def _set_memo(state: _FileState, stream: int | None, memo: _Memo) -> None:
    """Keep a stream's last resolved match, for at most CACHED_STREAMS streams a file, the one
    matched least recently dropped first: a log of a million rank prefixes keeps a bounded map
    (the browser engine's setMemo, rule for rule, so both read alike at any number of ranks).
    Under the bound (every real job) nothing is dropped; over it, a stream unseen for longest
    forgets its last match, and its next line looks back as a stream's first does."""
    memos = state.memos
    if stream in memos:
        memos.move_to_end(stream)
    elif len(memos) >= CACHED_STREAMS:
        memos.popitem(last=False)
    memos[stream] = memo


# A deferred line (_Sweep.pending): its start, its count in the segment, its text and plan,
# its host, and the count of the last line of its stream that named its own host, if any.
_Deferred = tuple[int, int, str, HeadPlan, str | None, int | None]


def _pending_count(item: tuple[int | None, _Deferred]) -> int:
    return item[1][1]


class _Sweep:
    """The lines of a block read forward, in order, while its matches come thick.

    A look-back walks up to LOOKBACK_LINES lines back from a match. When matches stand close
    together (a storm: every rank prints its watchdog line), each walk covers the lines the
    walks before it covered. So once matches are close, the lines between them are read once,
    forward, and what a walk would find is kept per stream: the latest line with a time and the
    latest with a host, by their count among the block's non-empty lines. A walk's answer is
    then a look-up (`answer`), exactly the walk's, and when the kept lines do not cover the
    whole of a walk (a segment just begun, a window reaching back past the block or the byte
    limit), the walk itself runs. A gap of more than SWEEP_GAP lines starts a new segment, so a
    log of few matches never reads a line its walks would not."""

    def __init__(
        self,
        block: bytes,
        offset_base: int,
        has_cr: bool,
        heads: dict[int, tuple[int, LineInfo | None]],
    ) -> None:
        self.block = block
        self.heads = heads  # the walks' lines (_FileState.heads)
        self.offset_base = offset_base
        self.has_cr = has_cr
        self.pos = -1  # where the next unread line of the segment starts; -1: no segment
        self.begin = 0  # where the segment starts
        self.count = 0  # its non-empty lines read so far
        self.recent: deque[int] = deque(maxlen=LOOKBACK_LINES)  # their last starts
        self.times: dict[int | None, tuple[int, Timestamp]] = {}
        self.hosts: dict[int | None, tuple[int, str]] = {}
        # A stream's last match inside the segment: (its stream offset, its count).
        self.matches: dict[int | None, tuple[int, int]] = {}
        # Counted lines read no further yet (defer), the last of each stream. While any wait,
        # the times, hosts, matches and memos of their streams are not yet written (settle).
        self.pending: dict[int | None, _Deferred] = {}

    def reach(self, start: int) -> None:
        """Read the lines up to the one at `start`, or begin a new segment there."""
        block = self.block
        if self.pos < 0 or start < self.pos:
            self._restart(start)
            return
        gap = block.count(b"\n", self.pos, start)
        if self.has_cr:
            gap += block.count(b"\r", self.pos, start)
        if gap > SWEEP_GAP:
            self._restart(start)
            return
        self._read_to(start)

    def _restart(self, start: int) -> None:
        self.pos = self.begin = start
        self.count = 0
        self.recent.clear()
        self.times.clear()
        self.hosts.clear()
        self.matches.clear()

    def _read_to(self, to: int) -> None:
        block, has_cr, pos = self.block, self.has_cr, self.pos
        while pos < to:
            end = block.find(b"\n", pos, to)
            if end < 0:
                end = to
            if has_cr:
                cr = block.find(b"\r", pos, end)
                if cr >= 0:
                    end = cr
            if end > pos:
                # Shared with the walks, which read the same lines the same way.
                key = self.offset_base + end + 1
                known = self.heads.get(key)
                if known is not None and known[1] is not None:
                    info = known[1]
                else:
                    head = block[pos : min(end, pos + HEAD_CHARS)]
                    info = read_line(head.decode("utf-8", "replace"))
                    if len(self.heads) < CACHED_HEADS:
                        self.heads[key] = (self.offset_base + pos, info)
                self._note(pos, info)
            pos = end + 1
        # Lines end at a break: a `to` that is not a line's start ends the segment.
        self.pos = pos if pos == to else -1

    def _note(self, start: int, info: LineInfo) -> None:
        ordinal = self.count
        self.count += 1
        self.recent.append(start)
        if info.time is not None:
            self.times[info.prefix_rank] = (ordinal, info.time)
        if info.host is not None:
            self.hosts[info.prefix_rank] = (ordinal, info.host)

    def take(
        self,
        start: int,
        end: int,
        size: int,
        repeat: int,
        stream: int | None,
        state: _FileState,
        info: LineInfo | None = None,
    ) -> None:
        """Read the matched line at `start` (its text ends at `end`), which stands `repeat`
        times in a row, `size` bytes apart, and note the stream's last match when it is there.
        `info` is what the line's head says, when the caller knows it already."""
        if self.pos != start:
            return
        block = self.block
        if repeat <= 1 and info is not None and end > start:
            stop = _line_end(block, start, self.has_cr)
            self._note(start, info)
            if len(self.heads) < CACHED_HEADS:
                self.heads[self.offset_base + stop + 1] = (self.offset_base + start, info)
            self.pos = stop + 1
        elif repeat <= 1 or end == start:
            self._read_to(_line_end(block, start, self.has_cr) + 1)
        else:
            # Copies read alike: note the last LOOKBACK_LINES of them, count the rest.
            if info is None:
                head = block[start : min(end, start + HEAD_CHARS)]
                info = read_line(head.decode("utf-8", "replace"))
            skip = max(0, repeat - LOOKBACK_LINES)
            self.count += skip
            for j in range(skip, repeat):
                self._note(start + j * size, info)
            self.pos = start + repeat * size
        memo = state.memos.get(stream)
        last = self.offset_base + start + (max(repeat, 1) - 1) * size
        if memo is not None and memo.offset == last:
            self.matches[stream] = (last, self.count - 1)

    def defer(
        self, start: int, end: int, stream: int | None, text: str, shape: _Shape, state: _FileState
    ) -> bool:
        """Take the counted line at `start` (Scanner._count_line) without reading its time,
        when what its look-back would find is known already: it is the next line of the
        segment, and no line since its stream's last match named a host. Its own time must be
        valid, so that its look-back gives only its host, which is its own or, from line to
        line, its stream's last. `settle` later writes what the last of them leaves."""
        if self.pos != start or shape.supporting or not shape.host[0]:
            return False
        pending = self.pending
        before = pending.get(stream)
        if before is not None:
            host, host_at = before[4], before[5]
        else:
            # Looked up only here: most deferred lines follow one of their stream's.
            memo = state.memos.get(stream)
            if memo is None:
                return False
            # A match of the stream read in the segment: the lines since were all read (its
            # last match, the memo, is that one or a later one).
            known = self.matches.get(stream)
            if known is None:
                return False
            # A line read since that named a host would be the one inherited. (One naming a
            # time would not: the line's own time is valid, or it is not deferred.)
            seen = self.hosts.get(stream)
            if seen is not None and seen[0] > known[1]:
                return False
            host, host_at = memo.host, None
        if not shape.has_time(text):
            return False
        ordinal = self.count
        own = shape.host[1]
        if own is not None:
            host, host_at = text[own[0] : own[1]], ordinal
        pending[stream] = (start, ordinal, text, shape.plan, host, host_at)
        self.count = ordinal + 1
        self.recent.append(start)
        self.pos = end + 1
        return True

    def settle(self, state: _FileState) -> None:
        """Write what the deferred lines leave, as reading each in turn would: the last of each
        stream is its memo and its last time, and the last naming its own host, its host."""
        base = self.offset_base
        for stream, (start, ordinal, text, plan, host, host_at) in sorted(
            self.pending.items(), key=_pending_count
        ):
            time = read_parts_by(plan, text)[0].time
            assert time is not None  # as the shape's has_time said when it was deferred
            offset = base + start
            _set_memo(state, stream, _Memo(offset, time, host))
            self.times[stream] = (ordinal, time)
            if host_at is not None:
                self.hosts[stream] = (host_at, host)  # type: ignore[assignment]  # named
            self.matches[stream] = (offset, ordinal)
        self.pending.clear()

    def answer(
        self, start: int, stream: int | None, memo: _Memo | None
    ) -> tuple[Timestamp | None, str | None] | None:
        """What the look-back from the line at `start` finds, or None to walk."""
        if self.pos != start:
            return None
        n = self.count
        floor = start - LOOKBACK_BYTES
        seen_time = self.times.get(stream)
        seen_host = self.hosts.get(stream)
        if memo is not None and memo.offset >= self.offset_base + self.begin:
            known = self.matches.get(stream)
            if known is None or known[0] != memo.offset:
                return None
            m = known[1]
            if m >= n - LOOKBACK_LINES:
                if memo.offset - self.offset_base < floor:
                    return None
                time = seen_time[1] if seen_time is not None and seen_time[0] > m else None
                host = seen_host[1] if seen_host is not None and seen_host[0] > m else None
                return time or memo.time, host or memo.host
        if n < LOOKBACK_LINES or self.recent[0] <= floor:
            return None  # the walk stops at a line the floor cuts (or that starts on it)
        low = n - LOOKBACK_LINES
        time = seen_time[1] if seen_time is not None and seen_time[0] >= low else None
        host = seen_host[1] if seen_host is not None and seen_host[0] >= low else None
        return time, host


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
        self._traceback_literal = evidence.TRACEBACK.encode()
        self.prefilter = prefilter or make_prefilter(scan_literals(index))
        self._anchor_len = tuple(len(a) for a in (*index.anchors, *extra))
        self._single_sets = tuple(frozenset((a,)) for a in range(len(self._anchor_len)))
        # A line's anchors in the order found -> their set (_block), for lines with several.
        self._anchor_groups: dict[tuple[int, ...], frozenset[int]] = {}
        # The literals with digits, as shapes (_digit_safe), and each stretch's expression.
        self._digit_literals = tuple(
            ascii_shape(literal)
            for literal in scan_literals(index)
            if any(48 <= byte <= 57 for byte in literal)
        )
        self._stretch_patterns: dict[tuple[bytes, frozenset[int]], re.Pattern[bytes] | None] = {}
        # Lines by their bytes: a storm repeats the same few lines, each read once.
        self._lines: dict[bytes, _Line] = {}
        self.verifier = Verifier(index.by_anchor, [s.matcher for s in index.signatures])
        # A storm's lines differ in their numbers (rank, time, sequence): where every signature
        # of a line's anchors is digit-blind (pattern.digit_blind), lines of one shape match the
        # same signatures, and are verified once (_read).
        self._blind = tuple(
            all(index.signatures[n].matcher.digit_blind for n in numbers)
            for numbers in index.by_anchor
        )
        self._shapes: dict[tuple[bytes, frozenset[int]], _Shape] = {}
        self._blind_sets: dict[frozenset[int], bool] = {}  # anchor sets seen, and _blind_set's

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
        settled: Settled | None = None,
    ) -> Iterator[LineMatch]:
        """Every matching line of one log, in order. Problems are appended, never raised.
        With `settled`, the lines only a count is needed of are counted there instead."""
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
            offset_base += yield from self._block(
                block, line_base, offset_base, state, stats, settled
            )
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
        self,
        block: bytes,
        line_base: int,
        offset_base: int,
        state: _FileState,
        stats: ScanStats,
        settled: Settled | None = None,
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
        found.sort(key=_BY_END)
        anchor_len = self._anchor_len
        tb = self._traceback_anchor
        single = self._single_sets
        groups = self._anchor_groups
        tracebacks: dict[int, frozenset[int]] = {}
        # Where the prefilter found the traceback literal, found again in C: a storm's block
        # has 400,000 anchors to pick them from.
        at = block.find(self._traceback_literal)
        while at >= 0:
            tracebacks[_line_start(block, at, 0, has_cr)] = single[tb]
            at = block.find(self._traceback_literal, at + 1)
        exceptions = self._exception_lines(block, tracebacks, state, has_cr)
        # An anchor never holds a line break, so anchors in end order come line by line: a
        # line's start and end are looked for once, not once per anchor on it. A line that
        # stands many times in a row (a storm) is looked at once, with how often it stands.
        # Each line's anchors, where its text ends and the text, in the order the lines come.
        starts: dict[int, tuple[frozenset[int], int, bytes]] = {}
        runs: dict[int, tuple[int, int]] = {}
        # Lines of a kind in a row (Scanner._stretch), from the first's start to where they
        # end. Only the first is in `starts`; the rest are counted by the lane or given out
        # after it (_stretched).
        stretches: dict[int, int] = {}
        retry = 0  # the found anchor from which a stretch is looked for again
        exception_starts = sorted(exceptions)
        i, n = 0, len(found)
        while i < n:
            anchor, end = found[i]
            if has_cr:
                start = _line_start(block, end - anchor_len[anchor], 0, has_cr)
                stop = _line_end(block, start, has_cr)
            else:  # _line_start and _line_end, without two calls a line
                start = block.rfind(b"\n", 0, end - anchor_len[anchor]) + 1
                stop = block.find(b"\n", start)
                if stop < 0:
                    stop = len(block)
            text_end = min(stop, start + cap)
            raw = block[start:text_end]
            # Lines come in order, each once (an anchor holds no break). Most hold one anchor,
            # whose set is made once, its hash with it (_shape_key).
            i += 1
            if i < n and found[i][1] <= stop:
                group = [anchor]
                while i < n and found[i][1] <= stop:
                    group.append(found[i][0])
                    i += 1
                # Lines of a storm hold the same few anchors: each set is made once.
                listed = tuple(group)
                anchors = groups.get(listed)
                if anchors is None:
                    if len(groups) >= CACHED_SHAPES:
                        groups.clear()
                    anchors = groups[listed] = frozenset(listed)
                starts[start] = (anchors, text_end, raw)
            else:
                starts[start] = (single[anchor], text_end, raw)
            # A copy of the line just after it would have its break at `twin` and its text after
            # this one's break: the lines of a storm of all-different lines need no closer look.
            twin = 2 * stop - start + 1
            if stop - start <= CACHED_LINE_BYTES and (
                block[stop : stop + 1] != b"\n"
                or (block[twin : twin + 1] == b"\n" and block.startswith(raw, stop + 1))
            ):
                repeat, size = _repeats(block, start, stop, exceptions)
                if repeat > 1:
                    runs[start] = (repeat, size)
                    i = bisect.bisect_right(found, start + repeat * size - 1, i, key=_BY_END)
            elif (
                settled is not None
                and i >= retry
                and not has_cr
                and stop - start <= CACHED_LINE_BYTES
                and start not in exceptions
            ):
                # A traceback's end is read as its own line: a stretch stops before the next.
                after = bisect.bisect_right(exception_starts, start)
                limit = exception_starts[after] if after < len(exception_starts) else len(block)
                alike = self._stretch(block, stop, raw, starts[start][0], limit)
                if _holds_lines(block, start, alike, STRETCH_LINES):
                    stretches[start] = alike
                    i = bisect.bisect_right(found, alike - 1, i, key=_BY_END)
                else:
                    # Few lines alike: a log that is no storm, or a stretch cut short. Either
                    # way no line is matched again by the next try until it is 16 anchors on.
                    retry = i + STRETCH_RETRY
        # A traceback's end that no anchor found is a line of its own, out of order.
        ends_alone = [start for start in exceptions if start not in starts]
        for start in ends_alone:
            text_end = min(_line_end(block, start, has_cr), start + cap)
            starts[start] = (frozenset(), text_end, block[start:text_end])
        if starts:
            state.heads = {}
            state.sweep = sweep = _Sweep(block, offset_base, has_cr, state.heads)
            tail_cr = has_cr or b"\r" in state.prev_tail
            counted_to, line = 0, line_base
            reported = state.reported
            lines: Iterable[tuple[int, tuple[frozenset[int], int, bytes]]] = (
                sorted(starts.items()) if ends_alone else starts.items()
            )
            if stretches:
                assert settled is not None  # stretches are looked for only then
                lines = self._stretched(
                    lines, stretches, runs, block, offset_base, state, settled, exceptions
                )
            for start, (anchors, end, raw) in lines:
                if settled is not None and start not in runs and start not in exceptions:
                    # Past COUNT_MISSES misses in a row, one line in COUNT_MISSES is tried: a
                    # line not counted is read and matched as any other, so this only moves
                    # work between the two paths.
                    misses = state.count_misses
                    if (misses < COUNT_MISSES or (misses + 1) % COUNT_MISSES == 0) and (
                        self._count_line(raw, anchors, block, start, end, offset_base, state,
                                         tail_cr, settled)
                    ):  # fmt: skip
                        state.count_misses = 0
                        continue
                    state.count_misses = misses + 1
                read = self._lines.get(raw)
                if read is None:
                    read = self._read(raw, anchors)
                    if len(raw) <= CACHED_LINE_BYTES:
                        if len(self._lines) >= CACHED_LINES:
                            self._lines.clear()
                        self._lines[raw] = read
                if not (read.numbers or read.extra or start in exceptions):
                    continue
                if sweep.pending:
                    sweep.settle(state)
                # Lines are numbered only for what is matched: a counted line needs none.
                line += block.count(b"\n", counted_to, start)
                counted_to = start
                repeat, size = runs.get(start, (1, 0))
                stream = read.info.prefix_rank
                # On ASCII, the head a walk would read is the text the line was read by.
                known = read.info if raw.isascii() else None
                if repeat > 1 and read.launch is not None:
                    # A launcher's line carries its summary's state from line to line.
                    for j in range(repeat):
                        match = self._match(
                            block, start + j * size, offset_base, line + j, read, state,
                            exceptions, tail_cr,
                        )  # fmt: skip
                        sweep.take(start + j * size, end + j * size, size, 1, stream, state, known)
                        if match is not None:
                            if settled is not None and len(reported) < CACHED_STREAMS:
                                reported.add((match.signatures, match.rank))
                            yield match
                    line += repeat - 1
                    counted_to = start + (repeat - 1) * size
                    continue
                if (match := self._match(
                    block, start, offset_base, line, read, state, exceptions, tail_cr
                )) is not None:  # fmt: skip
                    if repeat > 1:
                        # One match stands for them all: each would read as the first does
                        # (see _repeats), and inherits the same time and host.
                        if match.stream in state.memos and state.memos[match.stream].offset == (
                            offset_base + start
                        ):
                            last = offset_base + start + (repeat - 1) * size
                            _set_memo(state, match.stream, _Memo(last, match.time, match.host))
                        match = replace(match, repeat=repeat)
                    sweep.take(start, end, size, repeat, stream, state, known)
                    if settled is not None and len(reported) < CACHED_STREAMS:
                        reported.add((match.signatures, match.rank))
                    yield match
                else:
                    sweep.take(start, end, size, repeat, stream, state, known)
                if repeat > 1:
                    line += repeat - 1
                    counted_to = start + (repeat - 1) * size
            if sweep.pending:
                sweep.settle(state)
            if len(state.unread_times) > UNREAD_TIMES:
                self._read_times(state)
        # The last LOOKBACK_BYTES before the next block, however small the blocks are.
        joined = state.prev_tail + block if len(block) < LOOKBACK_BYTES else block
        state.prev_tail = joined[-LOOKBACK_BYTES:]
        return len(block)

    def _stretch(
        self, block: bytes, stop: int, raw: bytes, anchors: frozenset[int], limit: int
    ) -> int:
        """Where the lines after the one `raw` (its break at `stop`) stop being of its kind,
        `limit` at most: lines alike but for their numbers, each with the same anchors. One
        regular expression finds them, in C, without a look at each."""
        if not raw.isascii():
            return stop + 1
        shape = ascii_shape(raw)
        key = (shape, anchors)
        if key in self._stretch_patterns:
            pattern = self._stretch_patterns[key]
        elif len(self._stretch_patterns) >= STRETCH_PATTERNS:
            # Compiling costs up to 1.4 ms for a line of 1 KiB: a log of ever new kinds of
            # line is no storm, and makes no more than this many.
            return stop + 1
        else:
            pattern = None
            # A traceback's start begins a walk of its own (_exception_lines).
            if self._traceback_anchor not in anchors and self._digit_safe(shape):
                # Each run of digits may be as long as it likes: the lines of a storm differ in
                # those (a sequence number, a size). Every other byte stands as it is. Nothing
                # after a run of digits or of lines is a digit or a line: possessive repeats
                # match as greedy ones would, without keeping places to go back to (15% less).
                body = re.sub(rb"0+", rb"[0-9]++", re.escape(shape))
                pattern = re.compile(b"(?:" + body + b"\n)++")
            self._stretch_patterns[key] = pattern
        if pattern is None:
            return stop + 1
        m = pattern.match(block, stop + 1, limit)
        return stop + 1 if m is None else m.end()

    def _digit_safe(self, shape: bytes) -> bool:
        """Whether no literal with digits can stand in a line of this shape. Other literals
        stand in every line of a stretch or in none: its lines differ only in their digits."""
        return not any(literal in shape for literal in self._digit_literals)

    def _stretched(
        self,
        lines: Iterable[tuple[int, tuple[frozenset[int], int, bytes]]],
        stretches: dict[int, int],
        runs: dict[int, tuple[int, int]],
        block: bytes,
        offset_base: int,
        state: _FileState,
        settled: Settled,
        exceptions: set[int],
    ) -> Iterator[tuple[int, tuple[frozenset[int], int, bytes]]]:
        """`lines`, each stretch's lines after its first counted by `_count_stretch` as far as
        the lane takes them; a line it does not take is given out as the found loop would
        give it (a run of copies with its repeat), and the stretch goes on after it. It runs
        once the line before was handled, so it sees what the tally made of that line."""
        for start, item in lines:
            yield start, item
            end = stretches.get(start)
            if end is None:
                continue
            anchors = item[0]
            at = block.find(b"\n", start) + 1
            while at < end:
                at = self._count_stretch(block, at, end, anchors, offset_base, state, settled)
                if at >= end:
                    break
                stop = block.find(b"\n", at)
                size = stop + 1 - at
                repeat = 1
                if block.startswith(block[at : stop + 1], stop + 1):
                    repeat, _ = _repeats(block, at, stop, exceptions)
                    if repeat > 1:
                        runs[at] = (repeat, size)
                yield at, (anchors, stop, block[at:stop])
                at += repeat * size

    def _count_stretch(
        self,
        block: bytes,
        at: int,
        end: int,
        anchors: frozenset[int],
        offset_base: int,
        state: _FileState,
        settled: Settled,
    ) -> int:
        """Count the stretch's lines from the one at `at` as `_count_line` would count each,
        as long as the lane places them; return where the first it did not take starts."""
        shapes, counts, reported = self._shapes, settled.counts, state.reported
        file_index = state.file_index
        sweep = state.sweep
        assert sweep is not None
        if sweep.pending:
            sweep.settle(state)  # the lane reads the memos of deferred lines
        # The run's end, kept here while lines join it (the lane reads only run_from).
        run_next, run_lines = state.run_next, state.run_lines
        last = b""
        # Set from the first line on (its key is never b""), for each new shape.
        shape: _Shape
        ranks: dict[int | None, int]
        # A line the loop would not try (COUNT_MISSES) follows one not counted, so it begins a
        # run and the lane does not take it: it is left to the loop.
        first = at
        while at < end:
            stop = block.find(b"\n", at)
            after = stop + 1
            raw = block[at:stop]
            if (
                block.startswith(raw, after)
                and block[after + stop - at : after + after - at] == b"\n"
            ):
                break  # copies stand as one line, which the loop reads (_stretched)
            key = raw.translate(DIGITS_ALIKE)
            if key != last:
                # Most lines of a stretch have the shape of the one before.
                known = shapes.get((key, anchors))
                if known is None or not self._stretchable(known, key):
                    break
                shape, last = known, key
                numbers, plan = shape.numbers, shape.plan
                placed = numbers in settled.placed
                prefix = plan.prefix_rank
                texts = shape.timed or shape.host[1] is not None
                ranks = counts.setdefault((file_index, numbers), {})
            text = raw.decode() if texts else ""
            stream: int | None
            rank: int | None
            if prefix is not None:
                stream = rank = int(raw[prefix[0] : prefix[1]])
            else:
                stream, rank = read_ranks_by(plan, text or raw.decode(), state.file_rank)
            if not placed and (numbers, rank) not in reported:
                break
            offset = offset_base + at
            if offset == run_next:
                lines = run_lines
            else:
                state.run_from, lines = offset, 0
            if not self._lane(shape, text, stream, offset, lines, state):
                break
            run_next, run_lines = offset_base + after, lines + 1
            ranks[rank] = ranks.get(rank, 0) + 1
            at = after
        state.run_next, state.run_lines = run_next, run_lines
        if at > first:
            state.count_misses = 0
        return at

    def _stretchable(self, shape: _Shape, key: bytes) -> bool:
        """Whether `_count_stretch` may count lines of the shape: what `_count_line` asks of
        a shape before it counts a line, the lane's own ask, and no literal with digits."""
        if shape.quiet is None:
            return False  # not known yet: a line of it has not been read
        if shape.stretch is None:
            shape.stretch = shape.countable and shape.lane and self._digit_safe(key)
        return shape.stretch

    def _count_line(
        self,
        raw: bytes,
        anchors: frozenset[int],
        block: bytes,
        start: int,
        end: int,
        offset_base: int,
        state: _FileState,
        tail_cr: bool,
        settled: Settled,
    ) -> bool:
        """Count the line in `settled` when only its count is needed (Settled): an ASCII line
        of a shape known to carry no evidence the tally keeps and no launcher's report, whose
        signatures and rank a line reported already, or whose signatures are placed. Its
        stream's memo and the sweep move on as `_match` and `take` would move them, now or,
        for a line `_Sweep.defer` takes, when it settles, so the lines after it read as they
        would."""
        # _shape_key, inline: this runs once per line of a storm.
        shaped = self._blind_sets.get(anchors)
        if shaped is None:
            shaped = self._blind_set(anchors)
        if not shaped or not raw.isascii():
            return False
        shape = self._shapes.get((raw.translate(DIGITS_ALIKE), anchors))
        if shape is None or not shape.countable:
            return False
        text = raw.decode()
        # The rank first: a line of a new stream (a log of a million ranks) reads no time here.
        prefix = shape.plan.prefix_rank
        stream: int | None
        rank: int | None
        if prefix is not None:
            stream = rank = int(text[prefix[0] : prefix[1]])
        else:
            stream, rank = read_ranks_by(shape.plan, text, state.file_rank)
        if (shape.numbers, rank) not in state.reported and shape.numbers not in settled.placed:
            return False
        offset = offset_base + start
        if offset == state.run_next:
            lines = state.run_lines
        else:
            state.run_from, lines = offset, 0
        sweep = state.sweep
        assert sweep is not None  # made for the block before any line is read
        if shape.lane and sweep.pending:
            sweep.settle(state)  # the lane reads the memos of deferred lines
        placed = shape.lane and self._lane(shape, text, stream, offset, lines, state)
        if not placed and not sweep.defer(start, end, stream, text, shape, state):
            if sweep.pending:
                sweep.settle(state)
            info = read_parts_by(shape.plan, text)[0]
            if not shape.supporting:
                time, host = self._place(block, start, offset_base, info, state, tail_cr)
                _set_memo(state, stream, _Memo(offset, time, host))
            sweep.take(start, end, 0, 1, stream, state, info)
        if shape.supporting:
            state.run_next = -1  # it sets no memo, and a look-back reads its time and host
        else:
            state.run_next, state.run_lines = offset_base + end + 1, lines + 1
        ranks = settled.counts.get((state.file_index, shape.numbers))
        if ranks is None:
            ranks = settled.counts[state.file_index, shape.numbers] = {}
        ranks[rank] = ranks.get(rank, 0) + 1
        return True

    @staticmethod
    def _lane(
        shape: _Shape, text: str, stream: int | None, offset: int, lines: int, state: _FileState
    ) -> bool:
        """Set the memo of a counted line (`text`, at stream place `offset`) as `_place` would,
        without its look-back or the sweep, when what the look-back finds is known already;
        say whether it was set. The line is `lines` lines into its run (_FileState.run_from):
        every line of the run set its stream's memo, so none since the stream's memo, if the
        run holds it, is the stream's. Then a look-back that stays inside the run finds the
        memo's time if it reaches the memo, else nothing, and the memo's host either way, as
        `_place` inherits it. It stays inside when the run holds the memo or LOOKBACK_LINES
        lines before the line, which also keeps the memo of a line so close from being the
        one the bound dropped (CACHED_STREAMS is larger). A timed shape's line needs a valid
        time of its own, read later (`_read_times`): only the last of a stream's is needed.
        An untimed one whose memo, in the run, holds a time is left to `_place`, which
        finds whether the look-back reaches it. No line may wait in the sweep (defer): its
        memo is not written yet."""
        memos = state.memos
        memo = memos.get(stream)
        in_run = memo is not None and memo.offset >= state.run_from
        if not in_run and (lines < LOOKBACK_LINES or CACHED_STREAMS <= LOOKBACK_LINES):
            return False
        if shape.timed:
            if not shape.has_time(text):
                return False
        elif in_run and (memo.time is not None or stream in state.unread_times):  # type: ignore[union-attr]
            return False
        own = shape.host[1]
        if own is not None:
            host: str | None = text[own[0] : own[1]]
        else:
            host = memo.host if memo is not None else None
        # _set_memo, inline: this runs once per line of a storm. No one else holds a memo, so
        # the stream's is reused.
        if memo is not None:
            memo.offset, memo.time, memo.host = offset, None, host
            memos.move_to_end(stream)
            made = memo
        elif len(memos) >= CACHED_STREAMS:
            # The dropped memo is reused, and a time left unread for it dropped with it.
            dropped, made = memos.popitem(last=False)
            if state.unread_times:
                state.unread_times.pop(dropped, None)
            made.offset, made.time, made.host = offset, None, host
            memos[stream] = made
        else:
            made = memos[stream] = _Memo(offset, None, host)
        if shape.timed:
            state.unread_times[stream] = (made, shape.plan, text[:HEAD_CHARS])
        elif state.unread_times:
            # The memo is reused: a time left unread for it is no longer its time.
            state.unread_times.pop(stream, None)
        return True

    @staticmethod
    def _read_times(state: _FileState) -> None:
        """Give every memo the lane set its line's own time (past UNREAD_TIMES of them)."""
        for memo, plan, head in state.unread_times.values():
            memo.time = read_parts_by(plan, head)[0].time
        state.unread_times.clear()

    def _exception_lines(
        self, block: bytes, starts: dict[int, frozenset[int]], state: _FileState, has_cr: bool
    ) -> set[int]:
        """The starts of the final lines of the tracebacks this block holds or continues (from
        the `Traceback` lines in `starts`): each is read once, in order, like any other
        candidate line."""
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
                    starts.setdefault(line_start, frozenset())
                left = 0
            if left > 0:
                # The block ended inside the traceback: go on at the start of the next one.
                state.tracebacks[stream] = left
                waiting.add(stream)
        return found

    def _read(self, raw: bytes, anchors: frozenset[int]) -> _Line:
        """What a line says by itself, whatever its place: a pure function of its bytes (and of
        the anchors the prefilter found on it, another). An ASCII line whose anchors' signatures
        are all digit-blind is verified once per shape: the signatures it matches, and the plan
        its head is read by, are its shape's; all else is read from its own bytes."""
        key = self._shape_key(raw, anchors)
        if key is not None:
            known = self._shapes.get(key)
            text = raw.decode()
            if known is None:
                if len(self._shapes) >= CACHED_SHAPES:
                    self._shapes.clear()
                numbers = self._verify(raw, text, anchors)
                plan = plan_of_shape(key[0].decode())
                known = self._shapes[key] = _Shape(
                    numbers,
                    self._context_only(numbers),
                    self._known(numbers),
                    plan,
                    own_host_of(plan),
                    time_test_of(plan),
                )
            parts = read_parts_by(known.plan, text)
            line = self._described(
                text, anchors, known.numbers, known.supporting, parts, known.quiet
            )
            if known.quiet is None and line.launch is None:
                known.quiet = (line.kind,)
                known.countable = bool(known.numbers) and (line.kind is None or known.known)
            return line
        text = raw.decode("utf-8", "replace")
        numbers = self._verify(raw, text, anchors)
        supporting = self._context_only(numbers)
        return self._described(text, anchors, numbers, supporting, read_line_parts(text))

    def _shape_key(
        self, raw: bytes, anchors: frozenset[int]
    ) -> tuple[bytes, frozenset[int]] | None:
        """The key of the line's shape in `_shapes`, or None for a line verified by itself: a
        non-ASCII line, or one whose anchors are not all digit-blind (`_blind_set`)."""
        shaped = self._blind_sets.get(anchors)
        if shaped is None:
            shaped = self._blind_set(anchors)
        return (ascii_shape(raw), anchors) if shaped and raw.isascii() else None

    def _blind_set(self, anchors: frozenset[int]) -> bool:
        """Whether lines holding these anchors are verified by their shape: every signature of
        the anchors is digit-blind (launcher and evidence anchors have none to verify)."""
        blind, first_extra = self._blind, self._first_extra
        shaped = bool(anchors) and all(a >= first_extra or blind[a] for a in anchors)
        if len(self._blind_sets) >= CACHED_SHAPES:
            self._blind_sets.clear()
        self._blind_sets[anchors] = shaped
        return shaped

    def _verify(self, raw: bytes, text: str, anchors: frozenset[int]) -> tuple[int, ...]:
        """The signatures of the line's anchors that match it, in order."""
        first_extra = self._first_extra
        verify = self.verifier.matching
        if len(anchors) == 1:  # nearly every line: no generator to set up
            (anchor,) = anchors
            found = tuple(sorted(verify(anchor, raw, text))) if anchor < first_extra else ()
        else:
            checked = (anchor for anchor in anchors if anchor < first_extra)
            found = tuple(sorted(n for anchor in checked for n in verify(anchor, raw, text)))
        # A traceback's raise line holds a template (evidence.py); read only on a rare match.
        if found and evidence.is_raise_line(evidence.body_of(read_line_body(text)[1])):
            return ()
        return found

    def _known(self, numbers: tuple[int, ...]) -> bool:
        """Whether the signatures make a line a known entry's: one of them defining or
        harmless (as Tally._known reads its roles)."""
        signatures = self.index.signatures
        return any(signatures[n].role in KNOWN_ROLES for n in numbers)

    def _context_only(self, numbers: tuple[int, ...]) -> bool:
        """Whether the signatures only support a finding (all of them `context`)."""
        signatures = self.index.signatures
        return bool(numbers) and all(signatures[n].role == "context" for n in numbers)

    def _described(
        self,
        text: str,
        anchors: frozenset[int],
        numbers: tuple[int, ...],
        supporting: bool,
        parts: tuple[LineInfo, str, str],
        quiet: tuple[Kind | None] | None = None,
    ) -> _Line:
        """The line read from its verified signatures and its head's parts (read_line_parts).
        `quiet` holds the evidence kind when a line of its shape was no launcher's report."""
        info, rest, head = parts
        launch: LaunchReport | None = None
        kind: Kind | None = None
        extra = bool(anchors) and max(anchors) >= self._first_extra
        if quiet is not None:
            (kind,) = quiet
        elif extra or not anchors:  # a line with no anchor is a traceback's end
            # The whole line: a flattened traceback states its error past the head.
            body = evidence.body_of(rest) + text[HEAD_CHARS:]
            launch = read_launch(body)
            kind = evidence.classify(body, launch is not None and launch.signal is not None)
        shown = head if len(text) <= HEAD_CHARS else unwrap(text).text
        return _Line(numbers, extra, shown, info, launch, kind, supporting)

    def _match(
        self,
        block: bytes,
        start: int,
        offset_base: int,
        line: int,
        read: _Line,
        state: _FileState,
        exceptions: set[int] | frozenset[int] = frozenset(),
        tail_cr: bool = True,
    ) -> LineMatch | None:
        info = read.info
        kind: Kind | None = None
        launch: LaunchReport | None = None
        launch_rank: int | None = None
        if read.extra or start in exceptions:
            launch = read.launch
            offset = offset_base + start
            if launch is not None:
                launch_rank = self._summary_rank(launch, offset, state)
                if launch.summary in ("rank", "field") and launch_rank is not None:
                    root = state.summary is not None and state.summary[2]
                    launch = replace(launch, rank=launch_rank, root=root)
            kind = "python-exception" if start in exceptions else read.kind
            if launch is not None and launch.summary in ("root-header", "other-header"):
                launch = None
            if not read.numbers and kind is None and (launch is None or not launch.failed):
                return None
        stream = info.prefix_rank
        if read.supporting and kind is None and launch is None:
            # A line that only supports a finding is counted, never reported: no time or host
            # is looked for, and it is no stream's last match (healthy runs print such lines
            # from every rank, and each would cost a look-back).
            time = host = None
        else:
            time, host = self._place(block, start, offset_base, info, state, tail_cr)
        offset = offset_base + start
        if not read.supporting or kind is not None or launch is not None:
            _set_memo(state, stream, _Memo(offset, time, host))
        # The first rank known, most specific first.
        rank = info.prefix_rank
        if rank is None:
            rank = launch_rank
            if rank is None:
                rank = state.file_rank if state.file_rank is not None else info.text_rank
        return LineMatch(
            state.name,
            state.file_index,
            line,
            offset,
            read.text,
            read.numbers,
            rank,
            stream,
            time,
            host,
            kind,
            launch,
            info.prefix_rank is None and launch_rank is not None,
        )

    def _place(
        self,
        block: bytes,
        start: int,
        offset_base: int,
        info: LineInfo,
        state: _FileState,
        tail_cr: bool,
    ) -> tuple[Timestamp | None, str | None]:
        """The time and host of the matched line at `start`: its own, else what its look-back
        finds (by the sweep when it can answer), and its stream's last host."""
        time, host = info.time, info.host
        if time is None or host is None:
            stream = info.prefix_rank
            unread = state.unread_times.pop(stream, None) if state.unread_times else None
            if unread is not None:
                unread[0].time = read_parts_by(unread[1], unread[2])[0].time
            memo = state.memos.get(stream)
            swept = None
            if state.sweep is not None:
                # Only lines that look back move the sweep on: a log's supporting lines
                # (NCCL INFO from every rank) never make it read the lines between them.
                state.sweep.reach(start)
                swept = state.sweep.answer(start, stream, memo)
            found_time, found_host = swept or self._look_back(
                block, start, offset_base, stream, state, tail_cr
            )
            time = time or found_time
            host = host or found_host
            if host is None and memo is not None:
                host = memo.host  # a stream's host does not change
        return time, host

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
        self,
        block: bytes,
        start: int,
        offset_base: int,
        stream: int | None,
        state: _FileState,
        has_cr: bool = True,
    ) -> tuple[Timestamp | None, str | None]:
        """The latest time and host printed before `start` by the same stream, if close.

        `has_cr` may be True when the window holds no CR (it only adds a search). The lines
        walked are kept in `state.heads` by their place in the stream, so the look-backs of a
        storm of matches read each line once, however many windows it lies in."""
        if start < LOOKBACK_BYTES and state.prev_tail:
            keep = LOOKBACK_BYTES - start
            window = state.prev_tail[-keep:] + block[:start]
            window_offset = offset_base - min(keep, len(state.prev_tail))
        else:
            window, window_offset = block, offset_base
        pos = start + offset_base - window_offset
        floor = max(0, pos - LOOKBACK_BYTES)
        memo = state.memos.get(stream)
        memo_at = memo.offset - window_offset if memo is not None else -1
        heads = state.heads
        time: Timestamp | None = None
        host: str | None = None
        lines = 0
        while lines < LOOKBACK_LINES and pos > floor:
            known = heads.get(window_offset + pos)
            info: LineInfo | None = None
            if known is None:
                line_start = _line_start(window, pos - 1, floor, has_cr)
            else:
                # A line kept by a wider window (a walk from nearer the block's start reaches
                # further into the previous block) may start before this window's floor: as
                # the uncached walk would, take it as starting at the floor, which cuts it.
                line_start, info = max(known[0] - window_offset, floor), known[1]
            if line_start <= memo_at:
                # Every line since the stream's last match was read: inherit from it.
                return time or memo.time, host or memo.host  # type: ignore[union-attr]
            if not (line_start > floor or (line_start == 0 and window_offset == 0)):
                # A line the window's floor cuts is not read: its head would depend on where
                # the floor fell, and a copy read whole by an earlier walk would say more.
                break
            if known is None:
                head = window[line_start : min(pos - 1, line_start + HEAD_CHARS)]
                info = read_line(head.decode("utf-8", "replace")) if head else None
                if len(heads) < CACHED_HEADS:
                    heads[window_offset + pos] = (window_offset + line_start, info)
            pos = line_start
            if info is None:
                continue
            lines += 1
            if info.prefix_rank != stream:
                continue
            time = time or info.time
            host = host or info.host
            if time is not None and host is not None:
                break
        return time, host
