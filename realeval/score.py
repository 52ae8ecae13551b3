"""The score: what a diagnosis report says about a case, and the figures over all cases.

Pure functions of a case's labels and the engine's JSON report (docs/diagnose.md's shape), so
that the Python engine and the browser engine are scored by the same code.

- named: the top root cause is one of the case's expected ids;
- line shown: the labelled error line is in the text of a root-cause or collateral finding's
  line, or of an unrecognised line (a `not-the-cause` note does not state the failure);
- useful: named or line shown;
- silent: no root cause, no collateral and no unrecognised line;
- first rank right: the first failed rank is the labelled one, where a case has one;
- clean (negatives): no root cause and no unrecognised line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from realeval.cases import GROUPS, Case

SHOWN_ROLES = ("root-cause", "collateral")
# A line as the score file keeps it: enough to recognise it in a diff.
SAID_CHARS = 160


@dataclass(frozen=True)
class Said:
    """What the engine said on a case, as much of it as a reader takes in at a glance."""

    roots: tuple[str, ...]
    collateral: tuple[str, ...]
    first_failed_rank: int | None
    unrecognized: str | None  # the unrecognised line's kind
    line: str | None  # the line the report puts first: the top root cause's, else unrecognised

    def to_data(self) -> dict[str, Any]:
        data = asdict(self)
        data["roots"], data["collateral"] = list(self.roots), list(self.collateral)
        return data


@dataclass(frozen=True)
class Outcome:
    case: str
    named: bool | None  # None on a negative
    line_shown: bool | None
    silent: bool
    first_rank_right: bool | None  # None where the case has no first rank
    clean: bool | None  # only on a negative
    said: Said

    @property
    def useful(self) -> bool | None:
        return None if self.named is None else bool(self.named or self.line_shown)

    def to_data(self) -> dict[str, Any]:
        return {
            "named": self.named,
            "line_shown": self.line_shown,
            "silent": self.silent,
            "first_rank_right": self.first_rank_right,
            "clean": self.clean,
            "said": self.said.to_data(),
        }


def _shown_lines(report: dict[str, Any]) -> list[str]:
    lines = [f["first"]["text"] for f in report["findings"] if f["role"] in SHOWN_ROLES]
    return lines + [u["text"] for u in report["unrecognized"]]


def said_of(report: dict[str, Any]) -> Said:
    roots = tuple(f["id"] for f in report["findings"] if f["role"] == "root-cause")
    collateral = tuple(f["id"] for f in report["findings"] if f["role"] == "collateral")
    shown = _shown_lines(report)
    first = shown[0] if shown else None
    return Said(
        roots,
        collateral,
        report["first_failed_rank"],
        report["unrecognized"][0]["kind"] if report["unrecognized"] else None,
        first[:SAID_CHARS] if first is not None else None,
    )


def outcome(case: Case, report: dict[str, Any]) -> Outcome:
    said = said_of(report)
    silent = not said.roots and not said.collateral and not report["unrecognized"]
    rank_right = None if case.first_rank is None else report["first_failed_rank"] == case.first_rank
    if not case.failing:
        clean = not said.roots and not report["unrecognized"]
        return Outcome(case.id, None, None, silent, rank_right, clean, said)
    named = bool(said.roots) and said.roots[0] in case.expected
    error_line = case.error_line or ""
    shown = any(error_line in text for text in _shown_lines(report))
    return Outcome(case.id, named, shown, silent, rank_right, None, said)


def _group_figures(pairs: Sequence[tuple[Case, Outcome]]) -> dict[str, Any]:
    failing = [(c, o) for c, o in pairs if c.failing]
    ranked = [o.first_rank_right for _, o in pairs if o.first_rank_right is not None]
    covered = [o.named for c, o in failing if c.expected]
    figures: dict[str, Any] = {"cases": len(pairs)}
    if failing:
        figures |= {
            "named": sum(bool(o.named) for _, o in failing),
            "line_shown": sum(bool(o.line_shown) for _, o in failing),
            "useful": sum(bool(o.useful) for _, o in failing),
            "silent": sum(o.silent for _, o in failing),
            # Of the failures the catalog has an entry for, how many it names.
            "covered": {"named": sum(map(bool, covered)), "of": len(covered)},
        }
    if ranked:
        figures["first_rank"] = {"right": sum(ranked), "of": len(ranked)}
    negatives = [o.clean for c, o in pairs if not c.failing]
    if negatives:
        figures["clean"] = sum(map(bool, negatives))
    return figures


def figures(cases: Sequence[Case], outcomes: dict[str, Outcome]) -> dict[str, Any]:
    """Per group, the failing groups together, and per framework."""
    pairs = [(c, outcomes[c.id]) for c in cases]
    by_group = {g: [p for p in pairs if p[0].group == g] for g in GROUPS}
    failing = [p for p in pairs if p[0].failing]
    frameworks = sorted({c.framework for c, _ in failing})
    return {
        "groups": {g: _group_figures(ps) for g, ps in by_group.items() if ps},
        "failing": _group_figures(failing),
        "frameworks": {
            fw: _group_figures([p for p in failing if p[0].framework == fw]) for fw in frameworks
        },
    }


MISS_KINDS = {
    "no-entry": "the catalog has no entry for it, and the error line was not shown",
    "no-entry-line-shown": "the catalog has no entry for it; the error line was shown",
    "entry-not-matched": "an entry exists, but its signatures missed the lines as pasted",
    "other-entry": "another entry was named as the root cause",
    "wrong-rank": "the first failed rank was wrong",
    "not-clean": "a healthy log was reported as failing",
}


def misses(case: Case, result: Outcome) -> list[str]:
    """The kinds of miss a case shows (MISS_KINDS), empty for a full hit."""
    kinds: list[str] = []
    if not case.failing:
        return [] if result.clean else ["not-clean"]
    if not result.named:
        if result.said.roots:
            kinds.append("other-entry")
        elif not case.expected:
            kinds.append("no-entry-line-shown" if result.line_shown else "no-entry")
        else:
            kinds.append("entry-not-matched")
    if result.first_rank_right is False:
        kinds.append("wrong-rank")
    return kinds


def miss_counts(cases: Iterable[Case], outcomes: dict[str, Outcome]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for case in cases:
        counts.update(misses(case, outcomes[case.id]))
    return {kind: counts[kind] for kind in MISS_KINDS if counts[kind]}
