"""The committed score file, corpus/real/score.json: what each engine said on each case, and
the figures; and how two score files differ, case by case."""

from __future__ import annotations

from typing import Any

from generator.diagnose.index import IndexFile
from realeval.cases import REAL, Case
from realeval.engines import catalog_index, reports
from realeval.score import MISS_KINDS, Outcome, figures, miss_counts, outcome

SCORE_FILE = REAL / "score.json"


def score(engine: str, cases: list[Case], index: IndexFile | None = None) -> dict[str, Outcome]:
    got = reports(engine, index or catalog_index(), cases)
    return {case.id: outcome(case, got[case.id]) for case in cases}


def score_data(cases: list[Case], outcomes: dict[str, Outcome], date: str) -> dict[str, Any]:
    return {
        "date": date,
        "figures": figures(cases, outcomes),
        "misses": miss_counts(cases, outcomes),
        "miss_kinds": MISS_KINDS,
        "unnamed": unnamed_failures(cases, outcomes),
        "cases": {c.id: outcomes[c.id].to_data() for c in cases},
    }


def unnamed_failures(cases: list[Case], outcomes: dict[str, Outcome]) -> list[list[Any]]:
    """The failures the tool did not name, most often missed first: [label, cases, with an
    entry]. What the catalog and the engine cannot do yet, by name."""
    missed: dict[str, list[int]] = {}
    for c in cases:
        if c.failing and not outcomes[c.id].named:
            count = missed.setdefault(c.true_failure, [0, 0])
            count[0] += 1
            count[1] += bool(c.expected)
    order = sorted(missed.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return [[label, n, with_entry] for label, (n, with_entry) in order]


def moved(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Each case whose result differs between two score files' cases, and how."""
    lines = []
    for case_id in sorted(old.keys() | new.keys()):
        a, b = old.get(case_id), new.get(case_id)
        if a == b:
            continue
        if a is None or b is None:
            lines.append(f"{case_id}: {'added' if a is None else 'removed'}")
            continue
        changed = [k for k in b if a.get(k) != b[k]]
        detail = "; ".join(f"{k}: {a.get(k)!r} -> {b[k]!r}" for k in changed)
        lines.append(f"{case_id}: {detail}")
    return lines
