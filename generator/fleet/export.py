"""`trainwreck export TARGET`: the rule files written to a folder, and what was left out.

Layout under OUT/<target>/: `sigma` writes `<entry>.yml` per rule; every other target writes
`queries.json` (one query per entry, the target's notes and the skipped entries) and
`queries.txt` (the same queries, readable); `loki` also writes `rules.yaml`, a ruler file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from generator.fleet.sigma import Skipped, entry_of, rule_set, rule_yaml
from generator.model.entry import Entry

if TYPE_CHECKING:
    from generator.fleet.backends import Converted

TARGET_NAMES = ("sigma", "loki", "elasticsearch", "splunk", "sqlite", "duckdb", "spark")


@dataclass
class Export:
    files: list[Path] = field(default_factory=list)
    rules: int = 0
    skipped: tuple[Skipped, ...] = ()
    note: str = ""
    entry_notes: tuple[tuple[str, str], ...] = ()  # (entry, where its query is not exact)


def _write(path: Path, text: str, done: Export) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    done.files.append(path)


def queries_document(
    entries: Sequence[Entry], site_url: str, target: str, converted: Converted | None = None
) -> dict[str, object]:
    """The target's queries.json; `converted`: the entries' conversion for it, when made."""
    from generator.fleet.backends import convert

    if converted is None:
        converted = convert(entries, site_url, target)
    return {
        "target": target,
        "note": converted.target.note,
        "queries": [
            {
                "entry": q.entry,
                "title": q.title,
                "level": q.level,
                "rule_id": q.rule_id,
                "url": f"{site_url}failures/{q.entry}/",
                "query": q.query,
                "note": q.note,
            }
            for q in converted.queries
        ],
        "skipped": [{"entry": s.entry, "reason": s.reason} for s in converted.rules.skipped],
    }


def export(entries: Sequence[Entry], site_url: str, target: str, out: Path) -> Export:
    done = Export()
    folder = out / target
    if target == "sigma":
        rules = rule_set(entries, site_url)
        for data in rules.rules:
            _write(folder / f"{entry_of(data)}.yml", rule_yaml(data), done)
        done.rules, done.skipped = len(rules.rules), rules.skipped
        return done
    from generator.fleet.backends import TARGETS, loki_ruler

    document = queries_document(entries, site_url, target)
    _write(
        folder / "queries.json",
        json.dumps(document, indent=1, ensure_ascii=False) + "\n",
        done,
    )
    queries = document["queries"]
    assert isinstance(queries, list)
    text = "".join(f"# {q['entry']} ({q['level']}): {q['url']}\n{q['query']}\n\n" for q in queries)
    _write(folder / "queries.txt", text, done)
    if target == "loki":
        _write(folder / "rules.yaml", loki_ruler(entries, site_url), done)
    done.rules = len(queries)
    done.skipped = rule_set(entries, site_url).skipped
    done.note = TARGETS[target].note
    done.entry_notes = tuple((str(q["entry"]), str(q["note"])) for q in queries if q["note"])
    return done
