"""What a trend (trends.py) says, in words and as a sparkline, for the reports; the browser's
report.js words them alike."""

from __future__ import annotations

import math
from typing import Any

from generator.diagnose.trends import Trend

_BARS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
_METRIC_WORDS = {
    "loss": "the loss",
    "eval_loss": "the evaluation loss",
    "grad_norm": "the grad norm",
    "loss_scale": "the fp16 loss scale",
    "iter_ms": "the time per iteration",
    "rank_ms": "a rank's own compute time (Megatron's timers)",
    "progress": "progress",
    "steps": "progress",
    "stacks": "the stack dumps",
    "watchdog": "the NCCL watchdog",
}
KIND_TITLES = {
    "non-finite": "non-finite values",
    "loss-scale-collapse": "fp16 loss-scale collapse",
    "stall": "progress stopped",
    "divergence": "divergence",
    "spike": "loss spike",
    "slowdown": "slowdown",
}


def number(value: float | None) -> str:
    """A value as the reports print it: four significant digits, no exponent for the sizes a
    loss, a scale or a time takes, `nan` and `inf` as Python prints them."""
    if value is None:
        return "?"
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    # Rounded half up by hand, as the browser's report.js does: Python's round() and format()
    # round a tie to even, JavaScript's toFixed() away from zero.
    if value == 0 or abs(value) >= 1000:
        return str(math.floor(value + 0.5))
    digits = max(0, 3 - math.floor(math.log10(abs(value))))
    scale = 10.0**digits
    text = f"{math.floor(value * scale + 0.5) / scale:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _at_step(t: Trend) -> str:
    return f" at step {t.point.step}" if t.point.step is not None else ""


def trend_says(t: Trend) -> str:
    what = _METRIC_WORDS.get(t.metric.split("/")[0], t.metric)
    if t.kind == "non-finite":
        was = f" (it was {number(t.before)} before)" if t.before is not None else ""
        return f"{what} became {number(t.after)}{_at_step(t)}{was}"
    if t.kind == "loss-scale-collapse":
        return f"{what} fell from {number(t.before)} to {number(t.after)}{_at_step(t)}"
    if t.kind == "spike":
        # Without steps (the Trainer's dict has none), the recovery is counted in lines.
        unit = "steps" if t.point.step is not None else "progress lines"
        back = (
            f"; back {t.recovered_after} {unit} later"
            if t.recovered_after is not None
            else "; not back by the end of the log"
        )
        return (
            f"{what} jumped from about {number(t.before)} to {number(t.after)}{_at_step(t)}{back}"
        )
    if t.kind == "divergence":
        return (
            f"{what} climbed from about {number(t.before)} to {number(t.after)}"
            f"{_at_step(t)} and stayed up"
        )
    if t.kind == "slowdown":
        rise = math.floor(100 * ((t.after or 0) / (t.before or 1) - 1) + 0.5)
        who = f" on rank {t.rank}" if t.rank is not None and len(t.ranks) >= 2 else ""
        return (
            f"{what} rose from {number(t.before)} ms to {number(t.after)} ms (+{rise}%)"
            f"{_at_step(t)}{who}, and stayed up"
        )
    if t.metric == "stacks":
        return stacks_say(t)
    if t.metric == "watchdog":
        (_, quiet), (waited, timed) = t.groups
        one = len(quiet) == 1
        return (
            f"{_rank_list(quiet)} printed no watchdog timeout of {'its' if one else 'their'} own"
            f" while {_rank_list(timed)} {waited}: the collective waited for "
            f"{'it' if one else 'them'}"
        )
    if t.metric == "steps":
        return (
            f"rank {t.rank} stopped at step {number(t.before)} while the other ranks went on "
            f"to step {number(t.after)}"
        )
    return (
        f"progress stopped{_at_step(t)}: the log goes on {number(t.after)} s after the last "
        f"progress line (they came every {number(t.before)} s)"
    )


def _rank_list(ranks: tuple[int, ...]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(str(r) for r in ranks)


def stacks_say(t: Trend) -> str:
    """Where a hang's ranks wait, the odd ones out first."""
    (where, ranks), *rest = t.groups
    said = f"{_rank_list(ranks)} {'waits' if len(ranks) == 1 else 'wait'} in {where}"
    if rest:
        said += "; the others wait for it: " + "; ".join(
            f"{_rank_list(rs)} in {key}" for key, rs in rest
        )
    return said


def sparkline(t: Trend) -> str:
    """The values around the trend as bars, lowest to highest; a non-finite value is a
    multiplication sign (U+00D7)."""
    finite = [v for _, v in t.series if math.isfinite(v)]
    if not finite:
        return ""
    lo, hi = min(finite), max(finite)
    span = hi - lo
    out = []
    for _, v in t.series:
        if not math.isfinite(v):
            out.append("\u00d7")
        else:
            k = 0 if span == 0 else min(7, int((v - lo) / span * 8))
            out.append(_BARS[k])
    return "".join(out)


def _json_number(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return value
    return number(value)


def trend_data(t: Trend, entry: str | None) -> dict[str, Any]:
    p = t.point
    return {
        "kind": t.kind,
        "entry": entry,
        "metric": t.metric.split("/")[0],
        "says": trend_says(t),
        "file": t.file,
        "line": p.line,
        "rank": t.rank,
        "ranks": list(t.ranks),
        "step": p.step,
        "time": p.time.text if p.time else None,
        "text": p.text,
        "before": _json_number(t.before),
        "after": _json_number(t.after),
        "recovered_after": t.recovered_after,
        "series": [[step, _json_number(v)] for step, v in t.series],
        **({"stacks": [{"where": k, "ranks": list(rs)} for k, rs in t.groups]} if t.groups else {}),
    }
