"""What the progress lines' numbers show, joined to a diagnosis (trends.py finds them).

A line that states an error outranks the numbers: when a signature names a root cause, or a
strong line states an error the catalog lacks, the trends are reported beside it as what the
numbers showed; except where the trend's entry declares that root cause as its collateral and
the trend names a rank (a hang's stack dumps show the rank the watchdog's victims waited for).
When nothing does (the run printed no error), the likeliest trend that an entry declares in
`codes.progress` is the root cause, on the progress line where the numbers turned, and names
the first failed rank where the numbers tell it: the rank whose loss went NaN first while
others followed, the rank that stopped while the others went on or that the stack dumps show
outside a collective, the rank whose own compute time rose most.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from generator.diagnose.evidence import STRONG
from generator.diagnose.index import SignatureIndex
from generator.diagnose.lineinfo import read_line
from generator.diagnose.progress import LogProgress, ProgressReader
from generator.diagnose.trends import Trend, trends_of
from generator.diagnose.triage import TEXT_CHARS, Diagnosis, Finding, Hit

LastLine = tuple[int, int, str]  # context.Tail.last_line(): number, offset, text


def hit_of(t: Trend) -> Hit:
    p = t.point
    return Hit(t.file, t.file_index, p.line, p.offset, t.rank, p.time, None, p.text[:TEXT_CHARS])


def first_rank_of(t: Trend) -> int | None:
    """The rank the numbers blame, or None when they cannot tell (one rank printed them)."""
    if t.kind == "stall" and t.metric in ("steps", "stacks", "watchdog"):
        return t.ranks[0]
    if len(t.ranks) >= 2 and t.kind in ("non-finite", "slowdown"):
        return t.rank
    if t.kind == "slowdown" and t.metric.startswith("rank_ms"):
        return t.rank  # a rank's own compute time rose: its timers are Megatron's, per rank
    return None


def entry_for(index: SignatureIndex, t: Trend) -> str | None:
    return next((e for e in sorted(index.entries) if t.kind in index.entries[e].progress), None)


def with_trends(diagnosis: Diagnosis, trends: Sequence[Trend], index: SignatureIndex) -> Diagnosis:
    if not trends:
        return diagnosis
    roots = {f.id for f in diagnosis.root_causes}
    strong = any(u.kind in STRONG for u in diagnosis.unrecognized)
    trends = [replace(t, entry=entry_for(index, t)) for t in trends]
    # Which ranks timed out says something only where nothing else explains the hang.
    trends = [
        t for t in trends if t.metric != "watchdog" or (not strong and _yields(roots, t, index))
    ]
    if not trends:
        return diagnosis
    diagnosis = replace(diagnosis, trends=tuple(trends))
    if strong:
        return diagnosis
    for t in trends:
        entry_id = t.entry
        if entry_id is None or not _yields(roots, t, index):
            continue
        rank = first_rank_of(t)
        hit = hit_of(t)
        ranks = t.ranks or ((t.rank,) if t.rank is not None else ())
        # One line, the one the numbers turned on; `ranks` are every rank that shows it.
        root = Finding(entry_id, index.entries[entry_id], "root-cause", 1, ranks,
                       ((hit.rank, 1),), hit, 0, (), True)  # fmt: skip
        others = tuple(
            replace(f, role="collateral", caused_by=(entry_id,)) if f.id in roots else f
            for f in diagnosis.findings
            if f.id != entry_id
        )
        return replace(
            diagnosis,
            findings=(root, *others),
            unrecognized=(),
            first_failed_rank=rank if rank is not None else diagnosis.first_failed_rank,
            first_failure=replace(hit, rank=rank) if rank is not None else diagnosis.first_failure,
        )
    return diagnosis


def _yields(roots: set[str], t: Trend, index: SignatureIndex) -> bool:
    """Whether the root causes give way to the trend: there are none, or the trend's entry
    declares them all as its collateral (the watchdog that ends a hang, the kill that ends it
    sooner) and the trend names the rank the others waited for."""
    if not roots:
        return True
    if t.entry is None or first_rank_of(t) is None:
        return False
    return roots <= set(index.entries[t.entry].collateral)


def trends_in(
    readers: Sequence[ProgressReader], endings: Sequence[tuple[int, str, LastLine | None]]
) -> list[Trend]:
    """The trends of logs read through `readers`, with each log's ending as with_ending takes
    it: (index, name, Tail.last_line())."""
    last_lines = [None if e[2] is None else (e[2][0], read_line(e[2][2]).time) for e in endings]
    logs: list[LogProgress] = [r.log for r in readers]
    return trends_of(logs, last_lines)
