"""What a log line says about where and when it was printed: rank, timestamp and host.

Ranks come from line prefixes (torchrun's `[rank3]:` and `[default3]:`, srun `--label`'s
`3: `), from the message (`Rank 3`), or from the file's path (`rank3.log`, `...-rank-3...`,
torchrun's `attempt_0/3/stdout.log`, `node2/...`). Timestamps are read in ISO 8601 and Python
logging form, glog form (`E0626 06:24:44.903`, and PyTorch's `[E626 06:24:44.903881913 ...]`),
`dmesg -T` form, syslog form and raw `dmesg` form (`[  123.456]`, seconds since boot). Hosts come
from NCCL's `host:pid:tid [dev]` prefix and from syslog lines.

Only the start of a line is read (`HEAD_CHARS`): prefixes and timestamps live there, and a
bound keeps the cost of a line fixed.

Every pattern here is ASCII-only (`re.ASCII`): a digit is 0-9 and a word character is A-Z a-z 0-9
and _, as in the browser engine's regular expressions (templates/static/javascripts/engine/),
so both engines read the same rank, time and host from the same line. (Without the flag Python
reads `Rank ٣` as rank 3 and crashes on a `²` folder name.)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from generator.diagnose.paste import Span, wrapper_spans
from generator.diagnose.records import quick_init

HEAD_CHARS = 512

# English month names, as logs print them (calendar.month_abbr in the C locale; not imported,
# nor datetime until a line names its year: bench/startup.py).
_MONTHS = {
    name: i + 1
    for i, name in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    )
}
_MONTH_RE = "|".join(_MONTHS)
# Seconds from the start of a leap year to each month, so that Feb 29 has a place.
_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTH_START = [0.0] * 13
for _m in range(2, 13):
    _MONTH_START[_m] = _MONTH_START[_m - 1] + _MONTH_DAYS[_m - 2] * 86400.0


@quick_init
@dataclass(frozen=True)
class Timestamp:
    """A point in time as a log line gives it, with the keys it can be compared by.

    `absolute` (seconds since the epoch, UTC; a time without a zone is taken as UTC) exists
    when the line names the year; `yearless` (seconds since January 1) exists for every
    wall-clock time; `boot` (seconds since the machine booted) only for raw dmesg lines.
    """

    text: str
    absolute: float | None
    yearless: float | None
    boot: float | None


@quick_init
@dataclass(frozen=True)
class LineInfo:
    prefix_rank: int | None  # torchrun [rankN]: / [defaultN]:, or srun's "N: "
    text_rank: int | None  # "Rank N" in the message
    time: Timestamp | None
    host: str | None


_SRUN = re.compile(r" {0,8}(\d{1,6}): ", re.ASCII)
_TORCHRUN = re.compile(r"\[(?:rank|default)(\d{1,6})\]:", re.ASCII)
# Open MPI's --tag-output: `[jobid,rank]<stdout>:` (or <stderr>), the world rank second.
_MPI_TAG = re.compile(r"\[\d{1,9},(\d{1,6})\]<std(?:out|err)>:", re.ASCII)
_TEXT_RANK = re.compile(r"(?<![A-Za-z])Rank (\d{1,6})(?![0-9])", re.ASCII)

_ISO = re.compile(
    r"(?<![0-9])(\d{4})-(\d{2})-(\d{2})[T _](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"(Z|[+-]\d{2}:?\d{2}(?![0-9]))?(?![0-9])",
    re.ASCII,
)
_GLOG = re.compile(
    r"(?<![A-Za-z0-9])[IWEF](\d{3,4}|\d{8}) (\d{2}):(\d{2}):(\d{2})\.(\d{1,9})", re.ASCII
)
_DMESG_T = re.compile(
    rf"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ({_MONTH_RE}) {{1,2}}(\d{{1,2}}) "
    r"(\d{2}):(\d{2}):(\d{2}) (\d{4})\]",
    re.ASCII,
)
_SYSLOG = re.compile(
    rf"({_MONTH_RE}) {{1,2}}(\d{{1,2}}) (\d{{2}}):(\d{{2}}):(\d{{2}}) ([A-Za-z0-9][\w.-]*) ",
    re.ASCII,
)
_DMESG_RAW = re.compile(r"\[ *(\d{1,10})\.(\d{1,9})\]", re.ASCII)
_NCCL_HOST = re.compile(r"([A-Za-z0-9][\w.-]*):\d+:\d+ \[\d+\] ", re.ASCII)
# What follows the host in _NCCL_HOST: it starts with a literal, so it is found fast.
_NCCL_TAIL = re.compile(r":\d+:\d+ \[\d+\] ", re.ASCII)
_ALNUM = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_HOST_CHARS = _ALNUM | frozenset("_.-")
_ISO_DASHES = 8  # dashes tried one by one before _iso_search hands over to a plain search


def _iso_search(rest: str) -> re.Match[str] | None:
    """`_ISO.search(rest)`, the same match, tried only where one can start: four characters
    before a dash. Python's engine tries _ISO at every character, the most costly step of
    reading a line; a line of many dashes goes to that search after the first few."""
    dash = rest.find("-", 4)
    for _ in range(_ISO_DASHES):
        if dash < 0:
            return None
        m = _ISO.match(rest, dash - 4)  # the look-behind still sees the character before
        if m is not None:
            return m
        dash = rest.find("-", dash + 1)
    return _ISO.search(rest, dash - 4) if dash >= 0 else None


def _nccl_host_search(rest: str, endpos: int) -> tuple[int, str] | None:
    """Where `_NCCL_HOST.search(rest, 0, endpos)` matches, and its host, found from the tail.

    A host is a run of host characters that starts with a letter or digit, and the run ends at
    the tail's colon; runs ending at different colons do not overlap. So the leftmost match is
    at the first tail whose run holds a letter or digit, from the first of them. Trying the
    host pattern at every character, as the engine does, costs time quadratic in a long word."""
    at = 0
    while True:
        tail = _NCCL_TAIL.search(rest, at, endpos)
        if tail is None:
            return None
        colon = start = tail.start()
        while start > 0 and rest[start - 1] in _HOST_CHARS:
            start -= 1
        while start < colon and rest[start] not in _ALNUM:
            start += 1
        if start < colon:
            return start, rest[start:colon]
        at = colon + 1


def _fraction(digits: str | None) -> float:
    return int(digits) / 10 ** len(digits) if digits else 0.0


def _valid(month: int, day: int, hour: int, minute: int, second: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61


def _yearless(month: int, day: int, hour: int, minute: int, second: float) -> float:
    return _MONTH_START[month] + (day - 1) * 86400.0 + hour * 3600.0 + minute * 60.0 + second


def _wall(
    year: int | None,
    month: int,
    day: int,
    hms: tuple[int, int, int],
    frac: str | None,
    zone: str | None = None,
) -> Timestamp | None:
    hour, minute, second = hms
    if not _valid(month, day, hour, minute, second):
        return None
    seconds = second + _fraction(frac)
    dot = "." + frac if frac else ""
    if year is None:
        # One %-format: half the cost of f-strings with format specs, on each line of a storm.
        return Timestamp(
            "--%02d-%02dT%02d:%02d:%02d%s" % (month, day, hour, minute, second, dot),  # noqa: UP031
            None,
            _yearless(month, day, hour, minute, seconds),
            None,
        )
    clock = "%02d:%02d:%02d%s" % (hour, minute, second, dot)  # noqa: UP031
    import datetime as dt

    try:
        when = dt.datetime(year, month, day, hour, minute, min(second, 59), tzinfo=dt.UTC)
    except ValueError:
        return None
    offset = 0.0
    suffix = ""
    if zone:
        suffix = "Z" if zone == "Z" else f"{zone[:3]}:{zone[-2:]}"
        if zone != "Z":
            sign = -1 if zone[0] == "-" else 1
            offset = sign * (int(zone[1:3]) * 3600 + int(zone[-2:]) * 60)
    absolute = when.timestamp() + (seconds - min(second, 59)) - offset
    yearless = _yearless(month, day, hour, minute, seconds)
    if offset:
        try:
            utc = dt.datetime.fromtimestamp(absolute, dt.UTC)
        except (ValueError, OverflowError):
            return None  # the zone moves it out of years 1-9999: not a time a log prints
        yearless = _yearless(
            utc.month, utc.day, utc.hour, utc.minute, utc.second + utc.microsecond / 1e6
        )
    return Timestamp(f"{year:04d}-{month:02d}-{day:02d}T{clock}{suffix}", absolute, yearless, None)


@functools.lru_cache(maxsize=1024)
def _glog_second(date: str, hour: str, minute: str, second: str) -> tuple[str, float, int] | None:
    """A glog time without a year to the second (`626 06:24:44`), or None when it is no valid
    time: its text, seconds from January 1 to its minute, and its second. The lines of a storm
    print the same second many times, each with its own fraction."""
    month, day, h, m, sec = int(date[-4:-2]), int(date[-2:]), int(hour), int(minute), int(second)
    if not _valid(month, day, h, m, sec):
        return None
    # The first four terms of _yearless, summed in its order: adding the seconds last gives
    # the very float it gives.
    to_minute = _MONTH_START[month] + (day - 1) * 86400.0 + h * 3600.0 + m * 60.0
    return "--%02d-%02dT%02d:%02d:%02d" % (month, day, h, m, sec), to_minute, sec  # noqa: UP031


@functools.lru_cache(maxsize=1024)
def _glog_second_of(clock: str) -> tuple[str, float, int] | None:
    """`_glog_second` of a glog time's date to its second as one text (`626 06:24:44`)."""
    return _glog_second(clock[:-9], clock[-8:-6], clock[-5:-3], clock[-2:])


def _yearless_glog(date: str, hour: str, minute: str, second: str, frac: str) -> Timestamp | None:
    """`_wall(None, ...)` of a glog time, by `_glog_second`."""
    known = _glog_second(date, hour, minute, second)
    if known is None:
        return None
    text, to_minute, sec = known
    seconds = sec + _fraction(frac)
    return Timestamp(text + "." + frac if frac else text, None, to_minute + seconds, None)


def _from_groups(kind: str, g: tuple[str, ...]) -> Timestamp | None:
    """The time a timestamp pattern's groups give, or None when they name no valid time. A
    group the match left out is empty text (`_Candidate`): only a fraction and a zone can be,
    and both are read as absent when empty."""
    if kind == "iso":
        return _wall(int(g[0]), int(g[1]), int(g[2]), (int(g[3]), int(g[4]), int(g[5])), g[6], g[7])
    if kind == "glog":
        date = g[0]
        if len(date) != 8:
            return _yearless_glog(date, g[1], g[2], g[3], g[4])
        month, day = int(date[-4:-2]), int(date[-2:])
        return _wall(int(date[:4]), month, day, (int(g[1]), int(g[2]), int(g[3])), g[4])
    if kind == "dmesg-T":
        return _wall(int(g[5]), _MONTHS[g[0]], int(g[1]), (int(g[2]), int(g[3]), int(g[4])), None)
    if kind == "syslog":
        return _wall(None, _MONTHS[g[0]], int(g[1]), (int(g[2]), int(g[3]), int(g[4])), None)
    # raw dmesg: seconds since boot
    seconds = int(g[0]) + _fraction(g[1])
    return Timestamp(f"boot+{int(g[0])}.{g[1]}s", None, None, seconds)


_STAMP_PATTERNS = (
    ("syslog", _SYSLOG, True),
    ("dmesg-raw", _DMESG_RAW, True),
    ("iso", _ISO, False),
    ("dmesg-T", _DMESG_T, False),
    ("glog", _GLOG, False),
)

# A time pattern that matched, as places: (kind, its groups' places, the syslog host's span).
# A group's place is a slice, and a group the match left out is the empty slice: `_first_time`
# then reads all groups in one step, and no group a pattern can leave out matches empty text.
_Candidate = tuple[str, tuple[slice, ...], Span | None]
_ABSENT = slice(0, 0)


def _stamp_candidates(rest: str, base: int) -> tuple[_Candidate, ...]:
    """Every time pattern that matches the head `rest` (which starts at `base` in its line),
    earliest first, the patterns' order breaking ties: the first that gives a valid time is
    the line's."""
    found: list[tuple[int, int, _Candidate]] = []
    for priority, (kind, regex, anchored) in enumerate(_STAMP_PATTERNS):
        if anchored:
            m = regex.match(rest)
        else:
            m = _iso_search(rest) if regex is _ISO else regex.search(rest)
        if m is not None:
            places = tuple(
                slice(base + m.start(i), base + m.end(i)) if m.start(i) >= 0 else _ABSENT
                for i in range(1, regex.groups + 1)
            )
            host = (base + m.start(6), base + m.end(6)) if kind == "syslog" else None
            found.append((m.start(), priority, (kind, places, host)))
    found.sort(key=lambda f: (f[0], f[1]))
    return tuple(c for _, _, c in found)


def read_line(text: str) -> LineInfo:
    """Rank, time and host as the line itself states them (nothing inherited)."""
    return read_line_body(text)[0]


def read_line_body(text: str) -> tuple[LineInfo, str]:
    """`read_line`, and the line's own text after its wrappers and rank prefix (in the head).

    The wrappers a paste adds (paste.py) come off first; a Kubernetes pod's index counts as a
    rank prefix, and a timestamp that stood before the rank prefix is the line's time when the
    line gives none after it.
    """
    info, body, _ = _read_head(text[:HEAD_CHARS])
    return info, body


def read_line_parts(text: str) -> tuple[LineInfo, str, str]:
    """`read_line_body`, and the head without its wrappers (the whole line's, when the line is
    no longer than the head)."""
    return _read_head(text[:HEAD_CHARS])


@dataclass(frozen=True)
class HeadPlan:
    """Where a head's rank, times and host lie, and which rules found them (see _read_head)."""

    head: Span  # the head without a paste's wrappers
    body: int  # where the text after the rank prefix starts
    prefix_rank: Span | None
    stamps: tuple[_Candidate, ...]  # the candidates after the rank prefix
    lead_stamps: tuple[_Candidate, ...]  # those of a timestamp before the rank prefix
    host: Span | None  # the host when no syslog time names one
    text_rank: Span | None


def _plan(text: str) -> HeadPlan:
    """How `_read_head` reads `text`, as places in it. Every rule treats the ten digits alike
    (each is matched by a digit class, never written out; paste.py's rules too): so a line with
    other digits in the same places has the same plan, and only the values differ."""
    wrappers = wrapper_spans(text)
    base = wrappers.start
    head = rest = text[wrappers.start : wrappers.end]
    prefix_rank: Span | None = None
    m = _SRUN.match(rest)
    if m is not None:
        prefix_rank = (base + m.start(1), base + m.end(1))
        base += m.end()
        rest = rest[m.end() :]
    stripped = rest.lstrip(" ")
    m = _TORCHRUN.match(stripped) or _MPI_TAG.match(stripped)
    if m is not None:
        at = base + len(rest) - len(stripped)
        prefix_rank = (at + m.start(1), at + m.end(1))
        base = at + m.end()
        rest = stripped[m.end() :]
    if prefix_rank is None:
        prefix_rank = wrappers.rank
    body = base
    stripped = rest.lstrip(" ")
    base += len(rest) - len(stripped)
    rest = stripped
    stamps = _stamp_candidates(rest, base)
    lead_stamps: tuple[_Candidate, ...] = ()
    if wrappers.time is not None:
        start, end = wrappers.time
        lead_stamps = _stamp_candidates(text[start:end], start)
    host: Span | None
    m = _NCCL_HOST.match(rest)
    if m is not None:
        host = (base + m.start(1), base + m.end(1))
    else:
        # NCCL lines often follow a timestamp or a log-level prefix.
        found = _nccl_host_search(rest, 200)
        if found is not None and found[0] > 0 and rest[found[0] - 1] not in " ]":
            found = None
        if found is not None:
            host = (base + found[0], base + found[0] + len(found[1]))
        else:
            host = wrappers.host
    m = _TEXT_RANK.search(head)
    text_rank = (wrappers.start + m.start(1), wrappers.start + m.end(1)) if m is not None else None
    return HeadPlan(
        (wrappers.start, wrappers.end), body, prefix_rank, stamps, lead_stamps, host, text_rank
    )


# As bytes: bytes.translate is ten times faster than str.translate, and UTF-8 keeps every
# other character's bytes above 0x7f, so only the ASCII digits change.
DIGITS_ALIKE = bytes.maketrans(b"123456789", b"000000000")
# Plans by the head with its digits as zeros: a storm's lines differ in their numbers (rank,
# time, sequence), not in where those stand, so they share a few plans.
_plan_of_shape = functools.lru_cache(maxsize=4096)(_plan)


def _first_time(
    candidates: tuple[_Candidate, ...], text: str
) -> tuple[Timestamp | None, str | None]:
    for kind, places, host in candidates:
        stamp = _from_groups(kind, tuple(map(text.__getitem__, places)))
        if stamp is not None:
            return stamp, (text[host[0] : host[1]] if host is not None else None)
    return None, None


# A line's head is read again by the look-backs of later matches (of any stream, in a log of
# many ranks), so results are kept for recent heads (at most HEAD_CHARS characters each, so the
# cache stays small): the function is pure and its result frozen.
@functools.lru_cache(maxsize=8192)
def _read_head(text: str) -> tuple[LineInfo, str, str]:
    shape = text.encode("utf-8", "surrogatepass").translate(DIGITS_ALIKE)
    return _read_by(_plan_of_shape(shape.decode("utf-8", "surrogatepass")), text)


def ascii_shape(raw: bytes) -> bytes:
    """An ASCII line with its digits as zeros: the shape lines alike but for their numbers share."""
    return raw.translate(DIGITS_ALIKE)


def plan_of_shape(shape: str) -> HeadPlan:
    """How a head of this shape (its digits as zeros) is read: `_plan`, kept for the next head."""
    return _plan_of_shape(shape[:HEAD_CHARS])


def read_parts_by(plan: HeadPlan, text: str) -> tuple[LineInfo, str, str]:
    """`read_line_parts(text)`, by the plan of its shape (`plan_of_shape`) known already."""
    return _read_by(plan, text[:HEAD_CHARS])


def read_ranks_by(
    plan: HeadPlan, text: str, file_rank: int | None
) -> tuple[int | None, int | None]:
    """Of `read_parts_by(plan, text)`, no time read: the prefix rank, and the rank of a line
    that is no launcher's report, most specific first (the prefix's, else `file_rank`, the
    rank its file's path names, else the text's). The text's is read only when it is the one
    taken: a storm's lines name their rank in the prefix, and an `int` of each line's text
    rank was about 2% of a watchdog storm's scan. (A plan's places all lie in the head, so
    `text` need not be cut to it.)"""
    prefix = plan.prefix_rank
    if prefix is not None:
        rank = int(text[prefix[0] : prefix[1]])
        return rank, rank
    if file_rank is not None:
        return None, file_rank
    ranked = plan.text_rank
    return None, int(text[ranked[0] : ranked[1]]) if ranked is not None else None


def has_time_by(plan: HeadPlan, text: str) -> bool:
    """Whether `read_parts_by(plan, text)` reads a time, found without making it: a glog time
    without a year is valid by its second alone (`_glog_second`, kept for a storm's lines)."""
    for candidates in (plan.stamps, plan.lead_stamps):
        for kind, places, _ in candidates:
            if kind == "glog" and places[0].stop - places[0].start != 8:
                # Date to second, one slice: `626 06:24:44` (the groups' fixed layout).
                if _glog_second_of(text[places[0].start : places[3].stop]) is not None:
                    return True
            elif _from_groups(kind, tuple(map(text.__getitem__, places))) is not None:
                return True
    return False


def time_test_of(plan: HeadPlan) -> Callable[[str], bool]:
    """`has_time_by(plan, text)` as a test of one text, for the lines of the plan's shape: a
    storm's lines mostly print a glog time without a year first, and a valid one ends it."""
    if plan.stamps:
        kind, places, _ = plan.stamps[0]
        if kind == "glog" and places[0].stop - places[0].start != 8:
            clock = slice(places[0].start, places[3].stop)

            def test(text: str) -> bool:
                return _glog_second_of(text[clock]) is not None or has_time_by(plan, text)

            return test
    return functools.partial(has_time_by, plan)


def own_host_of(plan: HeadPlan) -> tuple[bool, Span | None]:
    """Whether the plan alone decides the own host (`read_parts_by`'s `host`) of every line of
    its shape, and if so its place, or None when they name none. A syslog time names a host,
    so in a head that may hold one the host depends on which time is valid."""
    if any(kind == "syslog" for kind, _, _ in plan.stamps):
        return False, None
    if plan.host is not None and plan.host[1] <= plan.host[0]:
        return False, None  # an empty host reads as none where it is inherited
    return True, plan.host


def _read_by(plan: HeadPlan, text: str) -> tuple[LineInfo, str, str]:
    """What `text` says, read by a plan made from it or from a line of the same shape."""
    time, host = _first_time(plan.stamps, text)
    if time is None and plan.lead_stamps:
        time, _ = _first_time(plan.lead_stamps, text)
    if host is None and plan.host is not None:
        host = text[plan.host[0] : plan.host[1]]
    prefix, ranked = plan.prefix_rank, plan.text_rank  # both read, as read_ranks_by reads each
    info = LineInfo(
        int(text[prefix[0] : prefix[1]]) if prefix is not None else None,
        int(text[ranked[0] : ranked[1]]) if ranked is not None else None,
        time,
        host,
    )
    start, end = plan.head
    return info, text[plan.body : end], text[start:end]


_SUFFIXES = (".gz", ".bz2", ".xz", ".log", ".txt", ".out", ".err")
_NAME_RANK = re.compile(r"(?:^|[^A-Za-z])rank[-_.]?(\d{1,6})(?![0-9])", re.IGNORECASE | re.ASCII)
_DIR_RANK = re.compile(r"rank[-_.]?(\d{1,6})", re.IGNORECASE | re.ASCII)
_DIR_NODE = re.compile(r"node[-_.]?(\d{1,6})", re.IGNORECASE | re.ASCII)
_ATTEMPT = re.compile(r"attempt_\d+", re.ASCII)
_DIR_NUMBER = re.compile(r"\d{1,6}", re.ASCII)


def rank_from_path(path: str) -> int | None:
    """The rank a log's path names, most specific first.

    `rank3.log`, `train-rank-3.out` and `rank_3/stdout` name rank 3; so does torchrun's
    `--log-dir` layout `.../attempt_0/3/stdout.log`. A `node2/` folder names rank 2 only when
    nothing finer does (one log per node).
    """
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if not parts:
        return None
    stem = parts[-1]
    while True:
        for suffix in _SUFFIXES:
            if stem.lower().endswith(suffix) and len(stem) > len(suffix):
                stem = stem[: -len(suffix)]
                break
        else:
            break
    m = _NAME_RANK.search(stem)
    if m is not None:
        return int(m.group(1))
    dirs = parts[:-1]
    for folder in reversed(dirs):
        m = _DIR_RANK.fullmatch(folder)
        if m is not None:
            return int(m.group(1))
    if len(dirs) >= 2 and _DIR_NUMBER.fullmatch(dirs[-1]) and _ATTEMPT.fullmatch(dirs[-2]):
        return int(dirs[-1])
    for folder in reversed(dirs):
        m = _DIR_NODE.fullmatch(folder)
        if m is not None:
            return int(m.group(1))
    return None
