"""Training progress lines, read into a series per rank: the numbers a person reads when a run
prints no error (the loss, the grad norm, the fp16 loss scale, the time per iteration).

The formats (docs/progress.md gives each one's source at a stated commit):

- Megatron-LM and Megatron-DeepSpeed: ` iteration N/ M | ... | elapsed time per iteration (ms):
  T | ... | lm loss: X | loss scale: S | grad norm: G | number of skipped iterations: K |`;
- DeepSpeed: `step=N, skipped=K, lr=[...]` and `OVERFLOW! Rank 0 Skipping step. Attempted loss
  scale: S, reducing to S/2`; Apex's `Gradient overflow.  Skipping step, loss scaler 0 reducing
  loss scale to S`;
- the Hugging Face Trainer's `{'loss': X, 'grad_norm': G, 'learning_rate': ..., 'epoch': E}`;
- nanoGPT's `iter N: loss X, time T ms`; torchtitan's `step: N  loss: X`; Keras' `N/M ... Tms/step
  - loss: X`; tqdm and Lightning bars (`N/M [00:30<00:36, 15.00it/s, loss=X]`);
- a script's own `step N ... loss X` (any of step, iter, iteration, batch, and a loss).

Reading every line of a log of many GiB in Python would cost more than the scan itself, so a
stream is read in full for its first `FULL_BYTES`, and after that only the lines that start in
a `WINDOW_BYTES` window at each multiple of `STRIDE_BYTES`: a few thousand lines whatever the
size. A pasted excerpt, a lab run and most job logs are read whole. The windows depend only on
the offset, so the browser engine (progress.js) reads the same lines.

A series keeps at most `MAX_POINTS` points: past that, every other point is dropped (the first
non-finite value is kept apart), so memory stays bounded on a run that prints for days.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from generator.diagnose.context import Tail, decoded
from generator.diagnose.hangs import MAX_RANKS, STACK_HINTS, Stacks
from generator.diagnose.lineinfo import HEAD_CHARS, Timestamp, read_line_body
from generator.diagnose.paste import unwrap
from generator.diagnose.records import quick_init

FULL_BYTES = 128 << 10
STRIDE_BYTES = 4 << 20
WINDOW_BYTES = 2 << 10
MAX_POINTS = 512
MAX_SERIES = 128  # per log: (rank, metric) pairs; later ones are not kept
LINE_BYTES = 2048  # of a progress line, what is read
AFTER_LINES = 16

# A number as the formats print one: Python's `nan`, `inf`; Megatron's `{:.6E}` prints `NAN`.
# Lightning's bar prints a NaN loss as `nan.0`.
_NUM = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|NaN|NAN|inf|Inf|INF)(?:\.0)?)"
_SEP = r"['\"]?(?:\s*[:=]\s*|\s+)['\"]?"
# `loss` read as the training loss: not `val loss`, `eval_loss`, `loss scale`.
_LOSS = re.compile(
    r"(?<![A-Za-z_])(?<!val )(?<!eval )(?<!test )(?<!valid )(?<!dev )"
    r"(?:lm |train_|train |training )?[Ll]oss" + _SEP + _NUM + r"(?![\w.])",
    re.ASCII,
)
_EVAL_LOSS = re.compile(
    r"(?<![A-Za-z])(?:val|eval|valid|validation|test|dev)[ _][Ll]oss" + _SEP + _NUM + r"(?![\w.])",
    re.ASCII,
)
_GRAD_NORM = re.compile(
    r"(?<![A-Za-z_])(?:grad[ _]norm|gnorm)" + _SEP + _NUM + r"(?![\w.])", re.ASCII | re.IGNORECASE
)
_LOSS_SCALE = re.compile(r"(?<![A-Za-z_])loss[ _]scale" + _SEP + _NUM + r"(?![\w.])", re.ASCII)
_OVERFLOW = re.compile(
    r"OVERFLOW! Rank \d+ Skipping step\. Attempted loss scale: " + _NUM + r", reducing to " + _NUM
    + r"|Gradient overflow\.\s+Skipping step, loss scaler \d+ reducing loss scale to " + _NUM,
    re.ASCII,
)  # fmt: skip
_ITER_MS = re.compile(
    r"elapsed time per iteration \((ms|s)\): " + _NUM + r"|(?<![A-Za-z_])time " + _NUM + r" ?ms\b"
    r"|(?<![\w.])" + _NUM + r" ?(ms|s|us)/step\b"
    r"|(?<![\w.])" + _NUM + r" ?(s/it|it/s)\b",
    re.ASCII,
)
_SKIPPED = re.compile(r"number of skipped iterations: *(\d+)|(?<![A-Za-z_])skipped=(\d+)", re.ASCII)
# The step and the total, where a line gives both (Megatron, tqdm and Keras print `N/M`): looked
# for first, since tqdm's description may say `Iteration:  19%` before its `967/5070`.
_STEP_OF = re.compile(
    r"iteration +(\d+)/ *(\d+) \||(?<![\w/])(\d+)/(\d+) \[[\d:]+<[\d:?]+|^ *(\d+)/(\d+) "
    r"|\]\[ *(\d+)/(\d+)\]",  # the ImageNet example's `Epoch: [0][36/64]`
    re.ASCII,
)
# ... else a step named by a word: `step=10`, `iter 3010:`, the Trainer's `'global_step': 2900`.
_STEP = re.compile(
    r"(?<![A-Za-z_])(?:global[_ ]step|step|iter|iteration|num_updates)['\"]?\s*[:=#]?\s*"
    r"['\"]?(\d+)(?![\w.])",
    re.ASCII | re.IGNORECASE,
)
# Megatron's per-rank timers (`--timing-log-option all`): a header, then each timer's name and
# one line per rank. A rank's own compute time tells the slow rank, where the time per
# iteration, which every rank waits out together, cannot; so only compute timers are read.
_TIMERS = b"times across ranks (ms):"
_TIMER_NAME = re.compile(r"([\w-]+):", re.ASCII)
_TIMER_RANK = re.compile(r"rank +(\d+): " + _NUM, re.ASCII)
COMPUTE_TIMERS = frozenset({"forward-backward", "forward-compute", "backward-compute"})
# What a line must hold to be read at all: most lines of a log hold none of these.
_HINTS = ("oss", "it/s", "s/it", "/step", "OVERFLOW!", "overflow", "elapsed time", "skipped=")
_RAW_HINTS = tuple(h.encode() for h in _HINTS)
# A rank's own timeout, in the watchdog's words, or in its status line (2.3 and later print
# `... detected by watchdog at work: 1580`, `failure detected by watchdog at work sequence id`).
_WATCHDOG = (b"Watchdog caught collective operation timeout", b"detected by watchdog at work")
_TORCHRUN_PREFIX = re.compile(rb" *\[(?:rank|default)(\d{1,6})\]:", re.ASCII)
_TIMED_OUT = re.compile(r"OpType=(\w+)", re.ASCII)


@quick_init
@dataclass(frozen=True)
class Reading:
    """What one progress line says."""

    step: int | None
    total: int | None
    loss: float | None
    eval_loss: float | None
    grad_norm: float | None
    loss_scale: float | None
    overflow: bool
    iter_ms: float | None
    skipped: int | None


def _float(text: str) -> float:
    low = text.lower().lstrip("+").removesuffix(".0")
    if low in ("nan", "-nan"):
        return math.nan
    if low in ("inf", "-inf"):
        return -math.inf if low.startswith("-") else math.inf
    return float(text)


def _first(m: re.Match[str] | None) -> str | None:
    if m is None:
        return None
    return next((g for g in m.groups() if g is not None), None)


def _iter_ms(m: re.Match[str] | None) -> float | None:
    if m is None:
        return None
    g = m.groups()
    per = {"ms": 1.0, "s": 1000.0, "us": 0.001}
    if g[1] is not None:  # Megatron-DeepSpeed prints seconds: `(s): 106.46`
        return _float(g[1]) * per[g[0]]
    if g[2] is not None:
        return _float(g[2])
    if g[3] is not None:
        return _float(g[3]) * per[g[4]]
    value = _float(g[5])
    if g[6] == "s/it":
        return value * 1000.0
    return 1000.0 / value if value > 0 else None


def read_progress(body: str) -> Reading | None:
    """The numbers of a progress line (its text after rank prefix and wrappers), or None when
    it is not one: a line needs a step or a loss together with a shape the formats print."""
    if not any(h in body for h in _HINTS):
        return None
    if "train_runtime" in body:  # the Trainer's closing summary: averages, not a step
        return None
    # Each pattern only where its literal is: the same answers, a fraction of the searches.
    lossy = "oss" in body
    overflow = _OVERFLOW.search(body) if "OVERFLOW" in body or "overflow" in body else None
    loss_m = _LOSS.search(body) if lossy else None
    eval_m = _EVAL_LOSS.search(body) if lossy else None
    grad_m = _GRAD_NORM.search(body) if "orm" in body or "ORM" in body else None
    scale_m = _LOSS_SCALE.search(body) if "scale" in body else None
    step_m = _STEP_OF.search(body) or _STEP.search(body)
    timed = "ms" in body or "/step" in body or "/it" in body or "it/s" in body or "elapsed" in body
    time_m = _ITER_MS.search(body) if timed else None
    skipped_m = _SKIPPED.search(body) if "skipped" in body else None
    losses = loss_m or eval_m or grad_m
    # A number alone is prose ("the loss 3 was fine"): a progress line gives it with a step or
    # a time per iteration, or as the Trainer's dict, or is a loss scaler's overflow report.
    if not (
        overflow
        or (losses and body.startswith("{'"))
        or (step_m and (losses or scale_m or time_m or skipped_m))
        or (time_m and loss_m)
    ):
        return None
    step = total = None
    if step_m is not None:
        g = step_m.groups()
        for k in range(0, len(g), 2):
            if g[k] is not None:
                step = int(g[k])
                total = int(g[k + 1]) if k + 1 < len(g) else None
                break
    loss_scale = _float(scale_m.group(1)) if scale_m else None
    if overflow is not None:
        loss_scale = _float(overflow.group(2) or overflow.group(3))
    return Reading(
        step=step,
        total=total,
        loss=_float(loss_m.group(1)) if loss_m else None,
        eval_loss=_float(eval_m.group(1)) if eval_m else None,
        grad_norm=_float(grad_m.group(1)) if grad_m else None,
        loss_scale=loss_scale,
        overflow=overflow is not None,
        iter_ms=_iter_ms(time_m),
        skipped=int(_first(skipped_m) or 0) if skipped_m else None,
    )


@quick_init  # one per value read: made for thousands of lines
@dataclass(frozen=True)
class Point:
    """One value of one series, with the line it was read from."""

    value: float
    step: int | None
    total: int | None
    line: int
    offset: int
    time: Timestamp | None
    text: str


METRICS = ("loss", "eval_loss", "grad_norm", "loss_scale", "iter_ms")
# ... and from Megatron's timers, a rank's own time in a compute timer ("rank_ms/<timer>").


@dataclass
class Series:
    rank: int | None
    metric: str
    points: list[Point] = field(default_factory=list)
    stride: int = 1  # every stride-th value is kept once the series has been thinned
    seen: int = 0
    first_nonfinite: Point | None = None
    overflows: int = 0  # overflow skips read into this series (loss_scale only)

    def add(self, point: Point) -> None:
        if self.first_nonfinite is None and not math.isfinite(point.value):
            self.first_nonfinite = point
        self.seen += 1
        if (self.seen - 1) % self.stride:
            return
        self.points.append(point)
        if len(self.points) > MAX_POINTS:
            del self.points[1::2]
            self.stride *= 2


@dataclass
class LogProgress:
    """What one log's progress lines gave: its series, and how many lines it has."""

    file: str
    file_index: int
    file_rank: int | None
    series: dict[tuple[int | None, str], Series] = field(default_factory=dict)
    lines: int = 0
    # The lines after the last progress line read (number, head), for the time the log went
    # on without progress (trends.py's stall): a few, since one of them usually has a time.
    after: list[tuple[int, bytes]] = field(default_factory=list)
    stacks: Stacks = field(default_factory=Stacks)  # stack dumps of a hang (hangs.py)
    # The NCCL watchdog's timeouts by rank (the first of each), and every rank a torchrun
    # prefix names: a rank that printed lines but no timeout of its own is one the others
    # waited for (trends.py).
    timeouts: dict[int, Point] = field(default_factory=dict)
    prefixed: set[int] = field(default_factory=set)
    timeout_op: str | None = None  # the collective the first timeout names (OpType=)
    # Each rank's last line before the log's first timeout: what a quiet rank printed last.
    last_before: dict[int, tuple[int, int, bytes]] = field(default_factory=dict)


def _windows(start: int, end: int) -> list[tuple[int, int]]:
    """The parts of [start, end) of a stream whose lines are read (see the module's notes)."""
    parts = []
    if start < FULL_BYTES:
        parts.append((start, min(end, FULL_BYTES)))
    k = max(1, start // STRIDE_BYTES)
    while k * STRIDE_BYTES < end:
        lo, hi = k * STRIDE_BYTES, k * STRIDE_BYTES + WINDOW_BYTES
        if hi > start:
            parts.append((max(lo, start), min(hi, end)))
        k += 1
    return parts


def _prefix_rank(raw: bytes) -> int | None:
    """The rank a line's torchrun prefix names, read from its bytes; decoded only when the
    prefix may sit behind a paste's wrapper (`> [rank3]:`)."""
    m = _TORCHRUN_PREFIX.match(raw)
    if m is not None:
        return int(m.group(1))
    if b"[rank" in raw or b"[default" in raw:
        return read_line_body(decoded(raw)[:HEAD_CHARS])[0].prefix_rank
    return None


class ProgressReader:
    """A read that reads the progress lines of what passes through it: wrap a log's Tail with
    it and scan as usual. The Tail counts the lines of every block already; the reader takes
    its count rather than counting a second time (a log of many GiB)."""

    def __init__(self, tail: Tail, file: str, file_index: int, file_rank: int | None) -> None:
        self._read = tail.read
        self._tail = tail
        self.log = LogProgress(file, file_index, file_rank)
        self._offset = 0
        self._line = 1  # the number of the line the next block starts in
        self._carry: bytearray | None = None  # a read line whose end is in a later block
        self._carry_at = (0, 0)  # its line number and offset
        self._mid_line = False  # the last block ended inside a line
        self._timer: str | None = None  # inside Megatron's timers: the timer being read
        self._last_step: int | None = None

    def read(self, size: int) -> bytes:
        data = self._read(size)
        if data:
            self._feed(data)
        elif self._carry is not None:  # the log's last line, with no line break after it
            self._take(bytes(self._carry), *self._carry_at)
            self._carry = None
        return data

    def _feed(self, data: bytes) -> None:
        start = self._offset
        if self._carry is not None:
            lf = data.find(b"\n")
            room = LINE_BYTES - len(self._carry)
            self._carry += data[: min(room, len(data) if lf < 0 else lf)]
            if lf >= 0:
                self._take(bytes(self._carry), *self._carry_at)
                self._carry = None
        for lo, hi in _windows(start, start + len(data)):
            at = lo - start
            inside_a_line = data[at - 1] != 0x0A if at else self._mid_line
            if inside_a_line:  # start at the first line that begins in the window
                lf = data.find(b"\n", at)
                if lf < 0 or lf + 1 >= hi - start:
                    continue
                at = lf + 1
            number = self._line + data.count(b"\n", 0, at)
            while at < hi - start:
                lf = data.find(b"\n", at)
                if lf < 0:
                    self._carry = bytearray(data[at : at + LINE_BYTES])
                    self._carry_at = (number, start + at)
                    break
                self._take(data[at : min(lf, at + LINE_BYTES)], number, start + at)
                at, number = lf + 1, number + 1
        tail = self._tail
        self._line = tail.first_line + tail.kept.count(b"\n")
        self._offset += len(data)
        self._mid_line = data[-1] != 0x0A
        self.log.lines = self._line

    def _take(self, raw: bytes, number: int, offset: int) -> None:
        after = self.log.after
        if len(after) < AFTER_LINES:
            after.append((number, raw[:HEAD_CHARS]))
        named = _prefix_rank(raw)
        own = named if named is not None else self.log.file_rank
        if named is not None and len(self.log.prefixed) < MAX_RANKS:
            self.log.prefixed.add(named)
        if own is not None and not self.log.timeouts and len(self.log.last_before) < MAX_RANKS:
            self.log.last_before[own] = (number, offset, raw[:HEAD_CHARS])
        if any(w in raw for w in _WATCHDOG):
            self._take_timeout(raw, number, offset)
            return
        if self._timer is not None and self._read_timer(raw, number, offset):
            return
        if _TIMERS in raw:
            self._timer = ""
            return
        stacks = self.log.stacks
        in_a_dump = stacks.active or any(h in raw for h in STACK_HINTS)
        if not in_a_dump and not any(h in raw for h in _RAW_HINTS):
            return
        text = decoded(raw)
        info, body = read_line_body(text[:HEAD_CHARS])
        rank = info.prefix_rank
        if rank is None:
            rank = self.log.file_rank
        if in_a_dump and stacks.read(rank, body, number, offset, unwrap(text).text.strip()[:240]):
            return
        reading = read_progress(body.strip() + text[HEAD_CHARS:])
        if reading is None:
            return
        after.clear()
        if reading.step is not None:
            self._last_step = reading.step
        # The line as read: a trend unwraps the one it reports (trends.shown), not every line.
        shown = text
        for metric in METRICS:
            value = getattr(reading, metric)
            if value is None:
                continue
            # A tqdm bar's rate is its own bar's: an evaluation bar is slower per item than
            # the training bar, so each total has its own series of times.
            name = f"iter_ms/{reading.total}" if metric == "iter_ms" and reading.total else metric
            key = (rank, name)
            series = self.log.series.get(key)
            if series is None:
                if len(self.log.series) >= MAX_SERIES:
                    continue
                series = self.log.series[key] = Series(rank, metric)
            series.add(Point(value, reading.step, reading.total, number, offset, info.time, shown))
            if metric == "loss_scale" and reading.overflow:
                series.overflows += 1

    def _read_timer(self, raw: bytes, number: int, offset: int) -> bool:
        """A line of Megatron's timers; False (and the timers are over) when it is none."""
        text = decoded(raw)
        _, body = read_line_body(text[:HEAD_CHARS])
        body = body.strip()
        name = _TIMER_NAME.fullmatch(body)
        if name is not None:
            self._timer = name.group(1)
            return True
        m = _TIMER_RANK.fullmatch(body)
        if m is None:
            self._timer = None
            return False
        if self._timer in COMPUTE_TIMERS:
            rank = int(m.group(1))
            key = (rank, f"rank_ms/{self._timer}")
            series = self.log.series.get(key)
            if series is None and len(self.log.series) < MAX_SERIES:
                series = self.log.series[key] = Series(rank, "rank_ms")
            if series is not None:
                shown = unwrap(text).text.strip()[:240]
                value = _float(m.group(2))
                series.add(Point(value, self._last_step, None, number, offset, None, shown))
        return True

    def _take_timeout(self, raw: bytes, number: int, offset: int) -> None:
        text = decoded(raw)
        info, _ = read_line_body(text[:HEAD_CHARS])
        rank = info.prefix_rank if info.prefix_rank is not None else self.log.file_rank
        if rank is None:
            rank = info.text_rank
        if rank is None or rank in self.log.timeouts or len(self.log.timeouts) >= MAX_RANKS:
            return
        shown = unwrap(text).text.strip()[:240]
        op = _TIMED_OUT.search(text)
        self.log.timeouts[rank] = Point(0.0, None, None, number, offset, info.time, shown)
        if op is not None and self.log.timeout_op is None:
            self.log.timeout_op = op.group(1)
