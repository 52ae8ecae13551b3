"""Findings from the numbers in progress lines (progress.py): what a person sees by reading
them when a run prints no error.

Each kind names the entry that declares it in `codes.progress`:

- `non-finite`: the loss (training or evaluation) is NaN or Inf: the first such line of each
  rank, the earliest rank first; or the grad norm is non-finite on the last `PERSIST` lines and
  every line since it first was (an fp16 run's odd overflow step prints one and goes on);
- `loss-scale-collapse`: the fp16 loss scale fell to `SCALE_FLOOR` (1, DeepSpeed's and
  Megatron's default minimum; a bf16 run's constant 1.0 is no fall), or ends `PERSIST * 2`
  halvings in a row below `SCALE_LOW`;
- `spike`: a loss `SPIKE_RATIO` above the median of the `WINDOW` values before it (at least
  `MIN_BEFORE` of them), and at least `SPIKE_MADS` median absolute deviations above it, so a
  noisy fine-tuning loss is no spike; recovered when a later value is back within `BACK_RATIO`
  (or 3 deviations) of that median;
- `divergence`: the loss does not come back: after a spike, the median of the last `WINDOW`
  values stays above the middle of the jump, or at `DIVERGE_RATIO` times the level before it;
  or the last `PERSIST + 2` values or more each rise and end `RISE_RATIO` times the first; or
  the median of the last `WINDOW` values is `DIVERGE_RATIO` times the lowest median of any
  earlier `WINDOW` values;
- `slowdown`: the time per iteration goes up and stays up: the median of the last `WINDOW`
  values is `SLOW_RATIO` times that of the first `WINDOW` after `WARMUP`, and the second
  fastest of the last is slower than the second slowest of the first (the change is no
  noise). Where several ranks report their own times, the rank whose time rose most is named;
- `stall`: one rank's progress stops while at least two others go on `STALL_LEAD` steps and
  more, or every rank stops before its last step while the log's last line comes `STALL_GAP`
  times the usual interval (and at least `STALL_SECONDS`) after the last progress line.

The thresholds were chosen on the real-failure benchmark's logs and the healthy corpus: none of
the healthy logs gives a finding (tests/diagnose/test_trends.py, docs/progress.md).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

from generator.diagnose.context import decoded
from generator.diagnose.hangs import Where, main_thread, odd_ones_out, where_of
from generator.diagnose.lineinfo import Timestamp, read_line
from generator.diagnose.paste import unwrap
from generator.diagnose.progress import LogProgress, Point, Series

TrendKind = Literal["non-finite", "loss-scale-collapse", "stall", "divergence", "spike", "slowdown"]
TREND_KINDS: tuple[TrendKind, ...] = get_args(TrendKind)  # the likeliest cause of the rest first

WINDOW = 10
MIN_BEFORE = 4  # a pasted excerpt may hold only a few lines before the jump
WARMUP = 3
PERSIST = 3
SPIKE_RATIO = 1.5
SPIKE_MADS = 6.0
BACK_RATIO = 1.1
DIVERGE_RATIO = 2.0
RISE_RATIO = 1.5
SLOW_RATIO = 1.05
SHORT_SERIES = 5
SCALE_FLOOR = 1.0
SCALE_LOW = 128.0
STALL_LEAD = 2
STALL_GAP = 10.0
STALL_SECONDS = 120.0
SERIES_POINTS = 48  # the values around a finding that it carries (the sparkline, the JSON)


@dataclass(frozen=True)
class Trend:
    kind: TrendKind
    metric: str  # loss, eval_loss, grad_norm, loss_scale, iter_ms
    file: str
    file_index: int
    rank: int | None
    point: Point  # the line it read: where the numbers turned
    before: float | None  # the level before it (a median), where there is one
    after: float | None  # the value or level after it
    recovered_after: int | None = None  # spike: steps (or lines) until it was back
    ranks: tuple[int, ...] = ()  # the ranks that show it, where several do
    series: tuple[tuple[int | None, float], ...] = ()  # (step, value) around the point
    entry: str | None = None  # the entry that declares this kind (trend_findings.with_trends)
    # A hang's stack dumps: where the ranks wait, the odd ones out first (hangs.py).
    groups: tuple[tuple[str, tuple[int, ...]], ...] = ()


def _median(values: Sequence[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _mad(values: Sequence[float], middle: float) -> float:
    return _median([abs(v - middle) for v in values])


def _around(points: Sequence[Point], i: int) -> tuple[tuple[int | None, float], ...]:
    lo = max(0, min(i - SERIES_POINTS // 2, len(points) - SERIES_POINTS))
    return tuple((p.step, p.value) for p in points[lo : lo + SERIES_POINTS])


def shown(text: str) -> str:
    """A progress line as a report shows it: without a paste's wrappers, its first 240
    characters."""
    return unwrap(text).text.strip()[:240]


def _trend(
    kind: TrendKind, log: LogProgress, s: Series, points: Sequence[Point], i: int, **kw: object
) -> Trend:
    point = replace(points[i], text=shown(points[i].text))
    return Trend(kind, s.metric, log.file, log.file_index, s.rank, point,
                 series=_around(points, i), **kw)  # type: ignore[arg-type]  # fmt: skip


def _nonfinite(log: LogProgress, s: Series) -> Trend | None:
    if s.metric in ("loss", "eval_loss") and s.first_nonfinite is not None:
        bad = s.first_nonfinite
        finite = [p.value for p in s.points if p.line < bad.line and math.isfinite(p.value)]
        points = s.points if bad in s.points else sorted([*s.points, bad], key=lambda p: p.line)
        return _trend("non-finite", log, s, points, points.index(bad),
                      before=finite[-1] if finite else None, after=bad.value)  # fmt: skip
    if s.metric != "grad_norm" or len(s.points) < PERSIST:
        return None
    run = len(s.points)
    while run > 0 and not math.isfinite(s.points[run - 1].value):
        run -= 1
    if len(s.points) - run < PERSIST:
        return None
    before = s.points[run - 1].value if run else None
    return _trend("non-finite", log, s, s.points, run, before=before, after=s.points[run].value)


def _collapse(log: LogProgress, s: Series) -> Trend | None:
    if s.metric != "loss_scale" or not s.points:
        return None
    values = [p.value for p in s.points]
    # bf16 runs print a constant `loss scale: 1.0`: the floor counts when the scale fell to it,
    # or a scaler said it skipped a step there.
    for i, v in enumerate(values):
        if v <= SCALE_FLOOR and (s.overflows or max(values[: i + 1]) > SCALE_FLOOR):
            return _trend("loss-scale-collapse", log, s, s.points, i, before=max(values[: i + 1]),
                          after=v)  # fmt: skip
    run = len(values) - 1
    while run > 0 and values[run] < values[run - 1]:
        run -= 1
    if len(values) - 1 - run >= PERSIST * 2 and values[-1] < SCALE_LOW:
        return _trend("loss-scale-collapse", log, s, s.points, run + 1, before=values[run],
                      after=values[-1])  # fmt: skip
    return None


def _steps_between(a: Point, b: Point, ia: int, ib: int) -> int:
    if a.step is not None and b.step is not None:
        return b.step - a.step
    return ib - ia


def _loss_trends(log: LogProgress, s: Series) -> list[Trend]:
    if s.metric != "loss":
        return []
    points = [p for p in s.points if math.isfinite(p.value)]
    found: list[Trend] = []
    for i in range(MIN_BEFORE, len(points)):
        window = [p.value for p in points[max(0, i - WINDOW) : i]]
        base = _median(window)
        if base <= 0:
            continue
        mad = _mad(window, base)
        x = points[i].value
        if x < SPIKE_RATIO * base or x - base < SPIKE_MADS * mad:
            continue
        back = base + max((BACK_RATIO - 1) * base, 3 * mad)
        later = points[i + 1 :]
        j = next((k for k, p in enumerate(later) if p.value <= back), None)
        if j is not None:
            steps = _steps_between(points[i], later[j], i, i + 1 + j)
            found.append(_trend("spike", log, s, points, i, before=base, after=x,
                                recovered_after=steps))  # fmt: skip
            break
        tail = _median([p.value for p in later[-WINDOW:]]) if later else 0.0
        if len(later) >= WINDOW and (tail >= base + (x - base) / 2 or tail >= DIVERGE_RATIO * base):
            found.append(_trend("divergence", log, s, points, i, before=base, after=tail))
        else:
            found.append(_trend("spike", log, s, points, i, before=base, after=x))
        return found
    run = len(points) - 1
    while run > 0 and points[run].value > points[run - 1].value:
        run -= 1
    low = points[run].value if points else 0.0
    if len(points) - run >= PERSIST + 2 and low > 0 and points[-1].value >= RISE_RATIO * low:
        found.append(_trend("divergence", log, s, points, run + 1, before=low,
                            after=points[-1].value))  # fmt: skip
        return found
    if len(points) < 2 * WINDOW:
        return found
    values = [p.value for p in points]
    last = _median(values[-WINDOW:])
    lows = [(_median(values[k : k + WINDOW]), k) for k in range(0, len(values) - 2 * WINDOW + 1)]
    best, at = min(lows)
    if best <= 0 or last < DIVERGE_RATIO * best:
        return found
    middle = best + (last - best) / 2
    start = next(k for k in range(at + WINDOW, len(values)) if values[k] >= middle)
    found.append(_trend("divergence", log, s, points, start, before=best, after=last))
    return found


def _slowdown(log: LogProgress, s: Series) -> Trend | None:
    if s.metric not in ("iter_ms", "rank_ms"):
        return None
    points = [p for p in s.points if math.isfinite(p.value) and p.value > 0]
    values = [p.value for p in points]
    if len(points) < WARMUP + 3 * WINDOW:
        return _level_shift(log, s, points, values)
    first = values[WARMUP : WARMUP + WINDOW]
    last = values[-WINDOW:]
    b, a = _median(first), _median(last)
    if a < SLOW_RATIO * b or sorted(last)[1] <= sorted(first)[-2]:
        return None
    middle = (a + b) / 2
    start = next(
        k
        for k in range(WARMUP + WINDOW, len(values) - WINDOW + 1)
        if _median(values[k : k + WINDOW]) >= middle
    )
    return _trend("slowdown", log, s, points, start, before=b, after=a)


def _level_shift(
    log: LogProgress, s: Series, points: Sequence[Point], values: Sequence[float]
) -> Trend | None:
    """A short series' slowdown: from some line to the end every time is above every time of
    the `WINDOW` before it, and their medians differ by `SLOW_RATIO`."""
    if len(values) < SHORT_SERIES:
        return None
    for k in range(2, len(values) - 1):
        before, after = values[max(0, k - WINDOW) : k], values[k:]
        b, a = _median(before), _median(after)
        if min(after) > max(before) and a >= SLOW_RATIO * b:
            return _trend("slowdown", log, s, points, k, before=b, after=a)
    return None


def _lines_by_rank(log: LogProgress) -> dict[int | None, list[Point]]:
    """Each rank's progress lines, one point a line (a line gives several metrics), in order."""
    by_rank: dict[int | None, dict[int, Point]] = {}
    for s in log.series.values():
        for p in s.points:
            by_rank.setdefault(s.rank, {})[p.line] = p
    return {r: [lines[n] for n in sorted(lines)] for r, lines in by_rank.items()}


def _with_steps(log: LogProgress) -> dict[int, list[Point]]:
    """Each rank's progress lines that give a step, in order."""
    by_rank = _lines_by_rank(log)
    return {r: [p for p in ps if p.step is not None] for r, ps in by_rank.items() if r is not None}


def _stalls(log: LogProgress, last_line: tuple[int, Timestamp | None] | None) -> list[Trend]:
    ranks = {r: ps for r, ps in _with_steps(log).items() if len(ps) >= PERSIST}
    found: list[Trend] = []
    if len(ranks) >= 3:
        last_step = {r: max(p.step or 0 for p in ps) for r, ps in ranks.items()}
        top = max(last_step.values())
        behind = [r for r, step in last_step.items() if step + STALL_LEAD <= top]
        if behind and 2 * len(behind) < len(ranks):
            r = min(behind, key=lambda r: (last_step[r], r))
            ps = ranks[r]
            s = Series(r, "steps", ps)  # the steps each rank reached
            ahead = sorted(last_step[o] for o in ranks if o not in behind)
            found.append(_trend("stall", log, s, ps, len(ps) - 1, before=float(last_step[r]),
                                after=float(ahead[0]), ranks=tuple(sorted(behind))))  # fmt: skip
            return found
    last, rank = None, None
    for s in log.series.values():
        for p in s.points:
            if last is None or p.line > last.line:
                last, rank = p, s.rank
    if last is None or last_line is None or last_line[1] is None or last_line[0] <= last.line:
        return found
    if last.total is not None and last.step is not None and last.step >= last.total:
        return found  # the run reached its last step
    went_on = _went_on(log, last, last_line[1])
    usual = _usual_interval(log)
    if went_on is None or usual is None:
        return found
    if went_on >= max(STALL_GAP * usual, STALL_SECONDS):
        s = Series(rank, "progress", [last])
        found.append(_trend("stall", log, s, [last], 0, before=_ms(usual), after=_ms(went_on)))
    return found


def _ms(seconds: float) -> float:
    """Seconds to the millisecond, rounded half up as the browser engine rounds: a difference
    of two clock readings carries float noise (617.4000000003725)."""
    return math.floor(seconds * 1000 + 0.5) / 1000


def _line_of(p: Point) -> int:
    return p.line


def _went_on(log: LogProgress, last: Point, end: Timestamp) -> float | None:
    """Seconds from the last progress line (or the first line after it with a time) to the
    log's last line, on a clock both have."""
    start = last.time
    if start is None:
        times = (read_line(decoded(raw)).time for _, raw in log.after)
        start = next((t for t in times if t is not None), None)
    if start is None:
        return None
    for clock in ("absolute", "yearless"):
        a, b = getattr(start, clock), getattr(end, clock)
        if a is not None and b is not None:
            return b - a if b >= a else None
    return None


def _usual_interval(log: LogProgress) -> float | None:
    """Seconds between one rank's progress lines: from their times, else from the time per
    iteration and the steps between lines. (Ranks print the same step a moment apart.)"""
    ranks = list(_lines_by_rank(log).values())
    for clock in ("absolute", "yearless"):
        gaps = []
        for points in ranks:
            stamps = [getattr(p.time, clock) for p in points if p.time is not None]
            stamps = [x for x in stamps if x is not None]
            gaps += [b - a for a, b in itertools.pairwise(stamps) if b > a]
        if len(gaps) >= PERSIST - 1:
            return _median(gaps)
    times = [p.value for s in log.series.values() if s.metric == "iter_ms" for p in s.points]
    times = [t for t in times if math.isfinite(t) and t > 0]
    if not times:
        return None
    gaps_in_steps = []
    for ps in ranks:
        steps = [p.step for p in ps if p.step is not None]
        gaps_in_steps += [b - a for a, b in itertools.pairwise(steps) if b > a]
    per_line = _median(gaps_in_steps) if gaps_in_steps else 1
    return _median(times) / 1000 * per_line


def trends_of(
    logs: Sequence[LogProgress], last_lines: Sequence[tuple[int, Timestamp | None] | None]
) -> list[Trend]:
    """Every finding the logs' progress lines give, by kind (TREND_KINDS' order), then by
    place; `last_lines` are each log's last line (number, time), in the same order."""
    found: list[Trend] = []
    for log, last_line in zip(logs, last_lines, strict=True):
        for s in log.series.values():
            for check in (_nonfinite, _collapse, _slowdown):
                t = check(log, s)
                if t is not None:
                    found.append(t)
            found.extend(_loss_trends(log, s))
        found.extend(_stalls(log, last_line))
    for hang in (_odd_ones_out(logs), _no_timeout_of_their_own(logs)):
        if hang is not None:
            found.append(hang)
    order = {k: i for i, k in enumerate(TREND_KINDS)}
    # A hang's stacks name the rank the others wait for: they come before a stall read from
    # the progress lines alone.
    named = {"stacks": 0, "watchdog": 1}
    return _merged(sorted(found, key=lambda t: (order[t.kind], named.get(t.metric, 2), _when(t))))


def _no_timeout_of_their_own(logs: Sequence[LogProgress]) -> Trend | None:
    """The ranks that print lines before the timeouts but no NCCL watchdog timeout of their own
    while most others time out: the collective the others timed out in waited for them. (The
    watchdog's own `Received a dump signal ... from rank N` names the first rank to time out, a
    waiting one.)"""
    timeouts: dict[int, tuple[Point, LogProgress]] = {}
    seen: set[int] = set()
    for log in logs:
        seen |= log.prefixed
        if log.file_rank is not None and log.lines > 1:
            seen.add(log.file_rank)
        for rank, point in log.timeouts.items():
            timeouts.setdefault(rank, (point, log))
    # A quiet rank printed something before the timeouts: a rank seen only in the aftermath
    # may have timed out in a line the excerpt does not hold.
    before = {r for log in logs for r in log.last_before}
    quiet = sorted((seen - set(timeouts)) & before)
    if len(timeouts) < 2 or not quiet or len(quiet) >= len(timeouts):
        return None
    point, log = min(timeouts.values(), key=lambda pl: (pl[1].file_index, pl[0].line))
    for other in logs:  # the quiet rank's own last line before the timeouts, where it has one
        if quiet[0] in other.last_before:
            number, offset, raw = other.last_before[quiet[0]]
            text = decoded(raw)
            shown = unwrap(text).text.strip()[:240]
            point, log = Point(0.0, None, None, number, offset, read_line(text).time, shown), other
            break
    op = next((lg.timeout_op for lg in logs if lg.timeout_op), None)
    waited = f"timed out waiting in {op}" if op else "timed out waiting"
    groups = (("no watchdog timeout of its own", tuple(quiet)), (waited, tuple(sorted(timeouts))))
    return Trend("stall", "watchdog", log.file, log.file_index, quiet[0], point, None, None,
                 ranks=tuple(quiet), groups=groups)  # fmt: skip


def _odd_ones_out(logs: Sequence[LogProgress]) -> Trend | None:
    wheres: dict[int, tuple[Where, LogProgress]] = {}
    for log in logs:
        for rank, threads in log.stacks.threads.items():
            thread = main_thread(threads)
            where = where_of(thread) if thread is not None and rank not in wheres else None
            if where is not None:
                wheres[rank] = (where, log)
    odd, groups = odd_ones_out({r: w for r, (w, _) in wheres.items()})
    if not odd:
        return None
    where, log = wheres[odd[0]]
    f = where.frame
    point = Point(0.0, None, None, f.line, f.offset, None, f.text)
    first = [(k, rs) for k, rs in groups.items() if odd[0] in rs]
    rest = [(k, rs) for k, rs in groups.items() if odd[0] not in rs]
    groups_in_order = tuple((k, tuple(rs)) for k, rs in first + rest)
    return Trend("stall", "stacks", log.file, log.file_index, odd[0], point, None, None,
                 ranks=tuple(odd), groups=groups_in_order)  # fmt: skip


def _when(t: Trend) -> tuple[float, int, int, int]:
    time = t.point.time
    stamp = None if time is None else time.absolute if time.absolute is not None else time.yearless
    step = t.point.step if t.point.step is not None else -1
    return (stamp if stamp is not None else math.inf, step, t.file_index, t.point.line)


def _merged(trends: list[Trend]) -> list[Trend]:
    """One finding per kind and metric (one per slowdown, whatever timed it): the earliest,
    with every rank that shows it; for a slowdown, the trend of the rank whose time rose most,
    when one stands out (a rank's own compute time rising while the others only wait)."""
    kept: dict[tuple[str, str], Trend] = {}
    ranks: dict[tuple[str, str], set[int]] = {}
    rise: dict[tuple[str, str], list[tuple[float, int, int]]] = {}
    for i, t in enumerate(trends):
        key: tuple[str, str] = (t.kind, "" if t.kind == "slowdown" else t.metric.split("/")[0])
        kept.setdefault(key, t)
        if t.rank is not None:
            ranks.setdefault(key, set()).add(t.rank)
            if t.kind == "slowdown" and t.before and t.after:
                rise.setdefault(key, []).append((t.after / t.before, t.rank, -i))
        ranks.setdefault(key, set()).update(t.ranks)
    merged = []
    for key, t in kept.items():
        rank = t.rank
        if key in rise and len(rise[key]) >= 2:
            ordered = sorted(rise[key], reverse=True)
            if ordered[0][0] >= SLOW_RATIO * ordered[1][0]:
                t, rank = trends[-ordered[0][2]], ordered[0][1]
            else:
                rank = None
        merged.append(replace(t, rank=rank, ranks=tuple(sorted(ranks.get(key, ())))))
    return merged
