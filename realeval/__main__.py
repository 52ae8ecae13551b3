"""Score the diagnosis on the real-failure benchmark (corpus/real/README.md).

    python -m realeval                 # the Python engine: the figures, then every miss
    python -m realeval --write         # and write corpus/real/score.json (`make realeval`)
    python -m realeval --check         # exit 1 when either engine's results differ from it
    python -m realeval --engine node   # the browser engine's files, in Node

`--check` names each case whose result moved, so that a change that turns a hit into a miss
cannot pass unseen: the score file is rewritten on purpose, in the same commit.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path
from typing import Any

from realeval.cases import Case, CaseProblems, read_cases
from realeval.engines import ENGINES, catalog_index
from realeval.score import Outcome, misses
from realeval.scorefile import SCORE_FILE, moved, score, score_data


def _pct(n: int, of: int) -> str:
    return f"{n}/{of} ({100 * n / of:.0f}%)" if of else "-"


def figures_table(data: dict[str, Any]) -> list[str]:
    head = ["group", "cases", "named", "line shown", "useful", "silent", "first rank", "clean"]
    rows = [head]
    groups = {**data["figures"]["groups"], "all failing": data["figures"]["failing"]}
    for name, g in groups.items():
        n, failing = g["cases"], "named" in g
        rank = g.get("first_rank")
        rows.append(
            [
                name,
                str(n),
                *(_pct(g[k], n) if failing else "-" for k in ("named", "line_shown", "useful")),
                _pct(g["silent"], n) if failing else "-",
                _pct(rank["right"], rank["of"]) if rank else "-",
                _pct(g["clean"], n) if "clean" in g else "-",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) for r in rows]


def markdown_table(data: dict[str, Any], baseline: dict[str, Any] | None) -> list[str]:
    """The figures as docs/benchmarks.md gives them: each group now, and before where the
    baseline has the group."""
    out = [
        "| group | cases | named | line shown | useful | silent | first rank | clean |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    before_groups = baseline["figures"]["groups"] if baseline else {}
    groups = {**data["figures"]["groups"], "all failing": data["figures"]["failing"]}
    for name, g in groups.items():
        was = before_groups.get(
            name, baseline["figures"]["failing"] if baseline and name == "all failing" else None
        )
        cells = []
        for key in ("named", "line_shown", "useful", "silent"):
            now = _pct(g[key], g["cases"]) if key in g else "-"
            cells.append(f"{_pct(was[key], was['cases'])} → {now}" if was and key in was else now)
        rank, was_rank = g.get("first_rank"), (was or {}).get("first_rank")
        rank_cell = _pct(rank["right"], rank["of"]) if rank else "-"
        if rank and was_rank:
            rank_cell = f"{_pct(was_rank['right'], was_rank['of'])} → {rank_cell}"
        clean = _pct(g["clean"], g["cases"]) if "clean" in g else "-"
        if "clean" in g and was and "clean" in was:
            clean = f"{_pct(was['clean'], was['cases'])} → {clean}"
        out.append(f"| {name} | {g['cases']} | " + " | ".join([*cells, rank_cell, clean]) + " |")
    return out


def said_text(said: dict[str, Any]) -> str:
    if said["roots"]:
        text = "root cause " + ", ".join(said["roots"])
    elif said["unrecognized"]:
        text = f"unrecognised {said['unrecognized']} line"
    else:
        text = "nothing"
    if said["first_failed_rank"] is not None:
        text += f"; first failed rank {said['first_failed_rank']}"
    return text


def miss_lines(cases: list[Case], outcomes: dict[str, Outcome]) -> list[str]:
    lines = []
    for case in cases:
        kinds = misses(case, outcomes[case.id])
        if kinds:
            said = outcomes[case.id].said.to_data()
            want = ", ".join(case.expected) or f"(no entry: {case.true_failure})"
            lines.append(
                f"{case.id} {case.group:<10} {' '.join(kinds):<22} want {want}; "
                f"said {said_text(said)}"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m realeval", description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=ENGINES, default="python")
    parser.add_argument("--write", action="store_true", help=f"write {SCORE_FILE.name}")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when either engine differs from the file"
    )
    parser.add_argument("--score-file", type=Path, default=SCORE_FILE)
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="print the figures as a Markdown table, before and now",
    )
    args = parser.parse_args(argv)
    try:
        cases = read_cases()
    except CaseProblems as exc:
        print(exc, file=sys.stderr)
        return 2
    stored = json.loads(args.score_file.read_text()) if args.score_file.exists() else None
    if args.check:
        if stored is None:
            print(f"{args.score_file}: no score file; run `make realeval`", file=sys.stderr)
            return 1
        failed, index = False, catalog_index()
        for engine in ENGINES:
            outcomes = score(engine, cases, index)
            got = score_data(cases, outcomes, stored["date"])
            diff = moved(stored["cases"], got["cases"])
            if diff or got["figures"] != stored["figures"]:
                failed = True
                print(f"{engine} engine: results differ from {args.score_file.name}:")
                print("\n".join("  " + line for line in diff))
        return 1 if failed else 0
    outcomes = score(args.engine, cases)
    today = datetime.date.today().isoformat()
    data = score_data(cases, outcomes, today)
    if stored is not None and {k: v for k, v in stored.items() if k != "date"} == {
        k: v for k, v in data.items() if k != "date"
    }:
        data["date"] = stored["date"]  # unchanged results keep the date they were measured
    if args.markdown:
        baseline_file = args.score_file.with_name("baseline.json")
        baseline = json.loads(baseline_file.read_text()) if baseline_file.exists() else None
        print("\n".join(markdown_table(data, baseline)))
        return 0
    print(f"{args.engine} engine, {len(cases)} cases, {data['date']}")
    print("\n".join(figures_table(data)))
    print("\nmisses:")
    print("\n".join(miss_lines(cases, outcomes)) or "none")
    print("\nby kind: " + ", ".join(f"{k} {n}" for k, n in data["misses"].items()))
    if stored is not None:
        diff = moved(stored["cases"], data["cases"])
        if diff:
            print(f"\nmoved since {args.score_file.name}:")
            print("\n".join("  " + line for line in diff))
    if args.write:
        args.score_file.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"\nwrote {args.score_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
