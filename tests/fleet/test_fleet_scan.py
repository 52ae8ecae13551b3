"""`trainwreck fleet scan` on Spark in local mode equals `trainwreck diagnose` run job by job,
on a generated fleet of 200 jobs built from real logs: the real-log fixtures, the multi-rank
fixtures, every entry's examples and the benign corpus, plain and gzipped, flat and nested."""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path

import pytest

from generator.cli import main
from generator.diagnose.index import build_index, index_json, load_index
from generator.diagnose.report import json_report
from generator.diagnose.triage import Tally, triage
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


ILLEGAL = b"RuntimeError: CUDA error: an illegal memory access was encountered\n"
MISALIGNED = b"RuntimeError: CUDA error: misaligned address\n"
HEALTHY = b"epoch 1 step 10 loss 2.31\n"


def _scan(fleet: Path, out: Path, index: Path) -> list[dict]:  # type: ignore[type-arg]
    code = main(
        ["fleet", "scan", str(fleet), "--out", str(out), "--format", "json", "--index", str(index)]
    )
    assert code == 0
    return _rows(out)


def _rows(out: Path) -> list[dict]:  # type: ignore[type-arg]
    return [
        json.loads(line)
        for part in sorted((out / "jobs").glob("part-*.json"))
        for line in part.read_text(encoding="utf-8").splitlines()
    ]


def _index(tmp_path: Path) -> Path:
    index = tmp_path / "signatures.json"
    index.write_text(index_json(build_index(catalog_entries())), encoding="utf-8")
    return index


def _diagnosed(fleet: Path, job: str, index: Path, capsys) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    """`diagnose <job> --json` run in the fleet's folder: the report, and its root causes."""
    capsys.readouterr()
    cwd = Path.cwd()
    os.chdir(fleet)
    try:
        assert main(["diagnose", job, "--json", "--index", str(index)]) == 0
    finally:
        os.chdir(cwd)
    report = capsys.readouterr().out
    roots = [f["id"] for f in json.loads(report)["findings"] if f["role"] == "root-cause"]
    return report, roots


def test_every_job_gets_a_row_with_its_problem_named(tmp_path, spark, capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 39, defect 6: a job whose only log is empty, or a FIFO, or that holds no file,
    has its row, saying so; a job with such files among its logs names each."""
    fleet = tmp_path / "fleet"
    for job in ("empty", "fifo", "nothing", "mixed", "plain"):
        (fleet / job).mkdir(parents=True)
    (fleet / "empty" / "rank0.log").write_bytes(b"")
    os.mkfifo(fleet / "fifo" / "rank0.log")
    (fleet / "mixed" / "rank0.log").write_bytes(ILLEGAL)
    os.mkfifo(fleet / "mixed" / "rank1.log")
    (fleet / "mixed" / "rank2.log").write_bytes(b"")
    (fleet / "plain" / "rank0.log").write_bytes(HEALTHY)
    index = _index(tmp_path)
    rows = _scan(fleet, tmp_path / "out", index)
    loaded = load_index(index.read_bytes())
    nothing = json_report(triage(Tally(loaded)), {"catalog": loaded.data.catalog})
    got = {r["job"]: (r["files"], r["problems"], r.get("root_causes", [])) for r in rows}
    assert got == {
        "empty": (1, ["empty/rank0.log: the file is empty"], []),
        "fifo": (
            0,
            ["fifo/rank0.log: a FIFO, not a file; skipped", "fifo: no file to diagnose"],
            [],
        ),
        "nothing": (0, ["nothing: no file to diagnose"], []),
        "mixed": (
            2,
            ["mixed/rank1.log: a FIFO, not a file; skipped", "mixed/rank2.log: the file is empty"],
            ["cuda-illegal-memory-access"],
        ),
        "plain": (1, [], []),
    }
    assert [r["job"] for r in rows] == sorted(got)
    by_job = {r["job"]: r for r in rows}
    # What diagnose reports of the same folders; of the two it refuses, the empty report.
    for job in ("empty", "mixed", "plain"):
        report, roots = _diagnosed(fleet, job, index, capsys)
        assert (by_job[job]["report"], by_job[job].get("root_causes", [])) == (report, roots)
    for job in ("fifo", "nothing"):
        assert by_job[job]["report"] == nothing


# Names a file system allows that Hadoop's paths, globs or URIs read as something else, or
# that are not UTF-8.
ODD_NAMES = [
    b"rank0-2026-12-01T10:00:00.log",  # issue 39's: a colon
    b"_rank1.log",  # Hadoop's hidden files start with _
    b"rank2 [a]{b,c}*?.log",
    b"rank3%20#x?y=z.log",
    b"rank4\\back.log",
    b"rank5\nline.log",
    b"rank6-\xff\xfe.log",
    "rank7-\u00e9\u65e5.log".encode(),
]


def test_any_file_name_is_read_and_no_job_costs_another(tmp_path, spark, capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 39, defect 2: a colon in a name (`rank0-2026-12-01T10:00:00.log`) stopped the
    whole scan (Hadoop's URISyntaxException). Every name is read, in job folders named as
    oddly, and each job's row is what diagnose says of its folder."""
    fleet = tmp_path / "fleet"
    for folder in (b"names", b"job-2026-12-01T10:00:00", b"job-\xff"):
        os.makedirs(os.path.join(os.fsencode(fleet), folder))
    for n, name in enumerate(ODD_NAMES):
        path = os.path.join(os.fsencode(fleet), b"names", name)
        with open(path, "wb") as f:
            f.write(MISALIGNED if n == 0 else HEALTHY)
    for folder in (b"job-2026-12-01T10:00:00", b"job-\xff"):
        for name in (ODD_NAMES[0], ODD_NAMES[6]):
            with open(os.path.join(os.fsencode(fleet), folder, name), "wb") as f:
                f.write(ILLEGAL)
    index = _index(tmp_path)
    rows = _scan(fleet, tmp_path / "out", index)
    # A name that is not UTF-8 shows its bytes as \\xHH in the table's text.
    assert [r["job"] for r in rows] == ["job-2026-12-01T10:00:00", "job-\\xff", "names"]
    assert [(r["files"], r["problems"]) for r in rows] == [(2, []), (2, []), (8, [])]
    for row, folder in zip(rows, (b"job-2026-12-01T10:00:00", b"job-\xff", b"names"), strict=True):
        report, roots = _diagnosed(fleet, os.fsdecode(folder), index, capsys)
        assert (row["report"], row.get("root_causes", [])) == (report, roots)
    assert [r.get("root_causes") for r in rows] == [
        ["cuda-illegal-memory-access"],
        ["cuda-illegal-memory-access"],
        ["cuda-misaligned-address"],
    ]
    assert rows[2]["first_file"] == "names/rank0-2026-12-01T10:00:00.log"


def test_through_hadoop_a_file_spark_cannot_read_costs_only_its_job(tmp_path, spark) -> None:  # type: ignore[no-untyped-def]
    """An object store is read by Spark: there a name Hadoop cannot open, or an empty file
    (which Spark skips), is named in its job's row, and every other file is diagnosed."""
    from generator.fleet.spark import UNREAD, scan_fleet

    fleet = tmp_path / "fleet"
    for job in ("colon", "empty", "plain"):
        (fleet / job).mkdir(parents=True)
    (fleet / "colon" / "rank0-2026-12-01T10:00:00.log").write_bytes(MISALIGNED)
    (fleet / "colon" / "rank1.log").write_bytes(ILLEGAL)
    (fleet / "empty" / "rank0.log").write_bytes(b"")
    (fleet / "plain" / "rank0.log").write_bytes(ILLEGAL)
    index = load_index(_index(tmp_path).read_bytes())
    out = tmp_path / "out"
    result = scan_fleet(index, str(fleet), str(out), "json", hadoop=True)
    assert (result.jobs, result.failed) == (3, 2)
    rows = _rows(out)
    assert [(r["job"], r["files"], r["problems"], r.get("root_causes", [])) for r in rows] == [
        (
            "colon",
            1,
            [f"colon/rank0-2026-12-01T10:00:00.log: {UNREAD}"],
            ["cuda-illegal-memory-access"],
        ),
        ("empty", 0, [f"empty/rank0.log: {UNREAD}", "empty: no file to diagnose"], []),
        ("plain", 1, [], ["cuda-illegal-memory-access"]),
    ]
