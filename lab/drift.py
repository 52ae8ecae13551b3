"""Compare two releases' lab logs scenario by scenario.

    python lab/drift.py corpus/lab/2.13.0 corpus/lab/2.14.1 [--markdown]

For each scenario with a log in both folders: the verdict on each side, and the signatures that
match a line of one log and no line of the other. Needs only the project (no PyTorch).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import verdict as lab


def compare(a: Path, b: Path) -> list[dict[str, object]]:
    rows = []
    for s in lab.scenarios():
        la, lb = a / f"{s['name']}.log", b / f"{s['name']}.log"
        if not (la.exists() and lb.exists()):
            continue
        va, vb = lab.diagnose(la), lab.diagnose(lb)
        sa, sb = lab.signatures_matched(la), lab.signatures_matched(lb)
        # Where the manifest takes any rank (every rank fails at once), the rank is not compared.
        ra, rb = (
            ("any", "any")
            if s.get("first_rank") == "any"
            else (va.first_failed_rank, vb.first_failed_rank)
        )
        rows.append(
            {
                "name": s["name"],
                "a": f"{va.top or '-'} / {ra}",
                "b": f"{vb.top or '-'} / {rb}",
                "only_a": {k: sa[k] for k in sorted(set(sa) - set(sb))},
                "only_b": {k: sb[k] for k in sorted(set(sb) - set(sa))},
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--markdown", action="store_true", help="a table for docs/lab.md")
    args = parser.parse_args()
    rows = compare(args.a, args.b)
    an, bn = args.a.name, args.b.name
    changed = [r for r in rows if r["a"] != r["b"] or r["only_a"] or r["only_b"]]
    if args.markdown:
        print(f"| scenario | {an} | {bn} | signatures only {an} matches | only {bn} matches |")
        print("| --- | --- | --- | --- | --- |")
        for r in changed:
            oa = "<br>".join(f"`{k}`" for k in r["only_a"]) or "-"  # type: ignore[attr-defined]
            ob = "<br>".join(f"`{k}`" for k in r["only_b"]) or "-"  # type: ignore[attr-defined]
            print(f"| {r['name']} | {r['a']} | {r['b']} | {oa} | {ob} |")
    else:
        for r in changed:
            print(f"{r['name']}: {an} {r['a']}  |  {bn} {r['b']}")
            for side, key in ((an, "only_a"), (bn, "only_b")):
                for sig, line in r[key].items():  # type: ignore[attr-defined]
                    print(f"  only {side}: {sig}\n      line: {line.strip()[:160]}")
    same = len(rows) - len(changed)
    print(f"{len(rows)} scenario(s) in both; {same} the same, {len(changed)} differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
