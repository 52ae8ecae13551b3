"""Synthetic catalogs for the scale benchmarks: the real entries, copied until there are N.

    python bench/synth.py --entries 1000 --out /tmp/tw-1k
    python bench/synth.py --entries 10000 --out /tmp/tw-10k --validate

Every copy keeps what makes a real entry expensive: its prose at its real length, its
signatures and example logs, its relations, its Xid codes and their `xid_actions` rows. Copy
`k` of entry `e` becomes `e-c<k>`; every reference to another real entry inside copy `k`
(related, collateral, refines, links in the prose) points at that entry's copy `k`, so the
relation graph is the real one, repeated. Aliases get the same suffix, and titles end in the
copy number, so nothing collides.

Signatures must stay unique, or every copy's example would match every other copy's
signature and the ambiguity check would fail: each pattern of copy `k` becomes
`cp<k>x {*}<pattern>`, and each example line that one of the entry's own patterns matches
starts with `cp<k>x `, so every signature that matched the line still does.
Xid rows are copied unchanged: every copy of an Xid code carries the real catalog's row for
it, so the rows agree (the `xid-actions` check).

Copies are whole: a catalog holds ceil(N / real) copies of every entry, so a 1k catalog of the
212 real entries has 1,060. The directory it writes is a project of its own (mkdocs.yml,
templates/, corpus/benign/, entries/), outside the repository's entries/; build it there.
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.diagnose.pattern import parse, to_regex  # noqa: E402

SCHEMA_LINE = "# yaml-language-server: $schema=../../schema/entry.schema.json\n"


def load_real(entries: Path) -> list[dict[str, Any]]:
    """The real entries as plain data, in a stable order."""
    return [yaml.safe_load(p.read_text()) for p in sorted(entries.rglob("*.yaml"))]


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, change) for k, v in value.items()}
    return value


def _tag_examples(entry: dict[str, Any], tag: str, matches: Callable[[str], bool]) -> None:
    for example in entry.get("examples", []):
        lines = example["log"].split("\n")
        tagged = [f"{tag} {line}" if matches(line) else line for line in lines]
        example["log"] = "\n".join(tagged)


def catalog_matcher(real: list[dict[str, Any]]) -> Callable[[str], bool]:
    """Whether any real signature matches a line: such an example line is tagged, since an
    entry's example may hold another entry's line (a survivor's gloo error beside the SIGABRT
    that caused it), which the copy's own signatures must still match. Each copy asks about the
    same lines, so each line is tried against the catalog once."""
    regexes = [
        re.compile(to_regex(parse(s["pattern"]))) for e in real for s in e.get("signatures", [])
    ]
    seen: dict[str, bool] = {}

    def matches(line: str) -> bool:
        if line not in seen:
            seen[line] = any(r.search(line) for r in regexes)
        return seen[line]

    return matches


def copy_entry(
    entry: dict[str, Any], k: int, ids: re.Pattern[str], matches: Callable[[str], bool]
) -> dict[str, Any]:
    """Copy `k` of a real entry, its references pointing into the same copy."""
    suffix = f"-c{k}"
    tag = f"cp{k}x"
    out: dict[str, Any] = _map_strings(entry, lambda s: ids.sub(lambda m: m[0] + suffix, s))
    out["id"] = entry["id"] + suffix
    out["title"] = f"{out['title']} ({k})"
    if "aliases" in out:
        out["aliases"] = [a + suffix for a in entry["aliases"]]
    for sig in out.get("signatures", []):
        gap = "" if sig["pattern"].startswith("{*}") else "{*}"
        sig["pattern"] = f"{tag} {gap}{sig['pattern']}"
    # What progress lines show names one entry (the first by id): a copy names none, as its
    # tagged signatures keep its examples its own.
    out.get("codes", {}).pop("progress", None)
    _tag_examples(out, tag, matches)
    return out


def _dump(entry: dict[str, Any]) -> str:
    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value and not value.endswith((" ", "\t")) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return yaml.dump(entry, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)


def write_catalog(out: Path, count: int, real_entries: Path = REPO / "entries") -> int:
    """Write a project of about `count` entries (whole copies) to `out`; return how many."""
    # An entry found only by progress lines' numbers (codes.progress, no signature) cannot be
    # copied apart from its original: the copies leave it out.
    real = [e for e in load_real(real_entries) if e.get("signatures")]
    names = sorted((e["id"] for e in real), key=len, reverse=True)
    ids = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, names)) + r")(?![\w-])")
    copies = math.ceil(count / len(real))
    matches = catalog_matcher(real)
    if out.exists():
        shutil.rmtree(out)
    for k in range(copies):
        for entry in real:
            made = copy_entry(entry, k, ids, matches)
            path = out / "entries" / made["category"] / f"{made['id']}.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(SCHEMA_LINE + _dump(made))
    shutil.copy(REPO / "mkdocs.yml", out / "mkdocs.yml")
    shutil.copytree(REPO / "templates", out / "templates")
    shutil.copytree(REPO / "corpus" / "benign", out / "corpus" / "benign")
    return copies * len(real)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--validate", action="store_true", help="then run trainwreck validate")
    args = parser.parse_args()
    made = write_catalog(args.out, args.entries)
    print(f"{made} entries in {args.out}")
    if args.validate:
        import os
        import subprocess

        env = {**os.environ, "PYTHONPATH": str(REPO)}
        cli = [sys.executable, "-m", "generator.cli", "validate"]
        raise SystemExit(subprocess.run(cli, cwd=args.out, env=env).returncode)


if __name__ == "__main__":
    main()
