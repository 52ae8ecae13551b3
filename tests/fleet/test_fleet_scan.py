"""`trainwreck fleet scan` on Spark in local mode equals `trainwreck diagnose` run job by job,
on a generated fleet of 200 jobs built from real logs: the real-log fixtures, the multi-rank
fixtures, every entry's examples and the benign corpus, plain and gzipped, flat and nested."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from generator.cli import main
from generator.diagnose.index import build_index, index_json
from tests.fleet.corpus import ROOT, catalog_entries

pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
JOBS = 200


def _sources() -> list[tuple[str, bytes]]:
    logs = ROOT / "tests" / "fixtures" / "logs"
    found = [(p.name, p.read_bytes()) for p in sorted((logs / "real").glob("*.log"))]
    found += [(p.name, p.read_bytes()) for p in sorted((ROOT / "corpus" / "benign").glob("*.log"))]
    for e in catalog_entries():
        found += [(f"{e.id}.log", x.log.encode()) for x in e.examples]
    return found


def _fleet(root: Path) -> None:
    """Jobs of one to four logs: some a multi-rank fixture folder whole, the others ranks
    drawn from the real logs and examples, a third of the files gzipped, some nested."""
    rng = random.Random(19)
    sources = _sources()
    multi = [
        ROOT / "tests" / "fixtures" / "logs" / d for d in ("per-rank", "storm", "torchrun", "srun")
    ]
    for n in range(JOBS):
        job = root / f"job-{n:04d}"
        if n % 25 == 0:
            folder = multi[(n // 25) % len(multi)]
            for path in sorted(folder.iterdir()):
                (job / path.name).parent.mkdir(parents=True, exist_ok=True)
                (job / path.name).write_bytes(path.read_bytes())
            continue
        for rank in range(rng.randint(1, 4)):
            _, raw = rng.choice(sources)
            where = job / (f"node{rank // 2}" if rng.random() < 0.2 else "") / f"rank{rank}.log"
            where.parent.mkdir(parents=True, exist_ok=True)
            if rng.random() < 0.33:
                where.with_name(where.name + ".gz").write_bytes(gzip.compress(raw, mtime=0))
            else:
                where.write_bytes(raw)


def test_fleet_scan_equals_diagnose(tmp_path, spark, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    fleet = tmp_path / "fleet"
    _fleet(fleet)
    index = tmp_path / "signatures.json"
    index.write_text(index_json(build_index(catalog_entries())), encoding="utf-8")
    out = tmp_path / "out"
    code = main(
        ["fleet", "scan", str(fleet), "--out", str(out), "--format", "json", "--index", str(index)]
    )
    assert code == 0
    rows = [
        json.loads(line)
        for part in sorted((out / "jobs").glob("part-*.json"))
        for line in part.read_text(encoding="utf-8").splitlines()
    ]
    assert [r["job"] for r in rows] == [f"job-{n:04d}" for n in range(JOBS)]
    capsys.readouterr()
    monkeypatch.chdir(fleet)
    found: dict[str, int] = {}
    for row in rows:
        assert main(["diagnose", row["job"], "--json", "--index", str(index)]) == 0
        expected = capsys.readouterr().out
        assert row["report"] == expected, row["job"]
        report = json.loads(expected)
        roots = [f for f in report["findings"] if f["role"] == "root-cause"]
        assert row.get("root_causes", []) == [f["id"] for f in roots]
        assert row.get("first_failed_rank") == report["first_failed_rank"]
        assert row.get("time") == (roots[0]["first"]["time"] if roots else None)
        for entry in row.get("root_causes", []):
            found[entry] = found.get(entry, 0) + 1
    # The fleet is varied: many root causes, and jobs with none.
    assert len(found) > 40
    assert sum(1 for r in rows if not r.get("root_causes")) > 0
    summary = [
        json.loads(line)
        for part in sorted((out / "summary").glob("part-*.json"))
        for line in part.read_text(encoding="utf-8").splitlines()
    ]
    got = {s["entry"]: s["root_cause_jobs"] for s in summary if s["root_cause_jobs"]}
    assert got == found
