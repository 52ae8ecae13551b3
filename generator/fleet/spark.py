"""`trainwreck fleet scan`: one diagnosis per job directory, on Spark.

The Python engine runs inside Spark tasks; nothing is translated. Spark reads every file under
the input (a folder, or any prefix Hadoop reads: s3a://, gs://, abfss://, hdfs://) as bytes,
groups the files by their first directory below the input (the job), and each task compiles
the signature index once (it travels as JSON in a broadcast) and diagnoses its jobs exactly as
`trainwreck diagnose <job>` does from the input folder: the same file order, names, decompression
and triage, so a job's `report` is byte for byte what `diagnose <job> --json` prints.

Output under OUT: `jobs/` (one row per job) and `summary/` (one row per entry), Parquet or JSON
lines. Spark skips files whose names start with `_` or `.` (Hadoop's hidden files); `diagnose`
skips only `.`.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from generator.diagnose.index import SignatureIndex, index_json, load_index
from generator.diagnose.inputs import LogInput, OpenLog, _natural
from generator.diagnose.lineinfo import rank_from_path
from generator.diagnose.report import json_report
from generator.diagnose.scan import LogReadError, Scanner, ScanProblem, ScanStats, Settled
from generator.diagnose.triage import Tally, triage

JOB_SCHEMA = (
    "job STRING, root_causes ARRAY<STRING>, collateral ARRAY<STRING>, first_failed_rank INT, "
    "time STRING, first_file STRING, first_line INT, unrecognized STRING, files INT, "
    "problems ARRAY<STRING>, report STRING"
)


def _order(rel: str) -> list[list[tuple[int, int | str]]]:
    return [_natural(part) for part in rel.split("/")]


def diagnose_job(
    index: SignatureIndex,
    job: str,
    files: Iterable[tuple[str, bytes]],
    scanner: Scanner | None = None,
) -> tuple:  # type: ignore[type-arg]
    """One job's row: `files` are (path below the job folder, raw bytes), in any order.

    A scanner keeps no state between logs, so one per task serves all its jobs: building one
    compiles the prefilter, the slow part of starting a diagnosis."""
    scanner = scanner or Scanner(index)
    tally, stats, settled = Tally(index), ScanStats(), Settled()
    problems: list[ScanProblem] = []
    ordered = sorted(files, key=lambda f: _order(f[0]))
    for number, (rel, raw) in enumerate(ordered):
        name = f"{job}/{rel}"
        try:
            opened = OpenLog(LogInput(name, None, False, len(raw)), io.BytesIO(raw))
        except LogReadError as exc:
            problems.append(ScanProblem(name, str(exc), "read"))
            continue
        with opened:
            tally.add_all(
                scanner.scan(
                    opened.read,
                    name,
                    number,
                    stats,
                    problems,
                    file_rank=rank_from_path(name),
                    settled=settled,
                ),
                settled,
            )
            tally.add_settled(settled)
    # The same report as `diagnose --json`, whose first key names the catalog it used.
    report = json_report(triage(tally), {"catalog": index.data.catalog})
    data = json.loads(report)
    roots = [f for f in data["findings"] if f["role"] == "root-cause"]
    first = roots[0]["first"] if roots else None
    unrecognized = data["unrecognized"][0]["kind"] if data["unrecognized"] else None
    return (
        job,
        [f["id"] for f in roots],
        [f["id"] for f in data["findings"] if f["role"] == "collateral"],
        data["first_failed_rank"],
        first["time"] if first else None,
        first["file"] if first else None,
        first["line"] if first else None,
        unrecognized,
        len(ordered),
        [f"{p.file}: {p.message}" for p in problems],
        report,
    )


def _diagnose_partition(
    index_text: str, jobs: Iterable[tuple[str, Iterable[tuple[str, bytes]]]]
) -> Iterator[tuple]:  # type: ignore[type-arg]
    index = load_index(index_text.encode())
    scanner = Scanner(index)
    for job, files in jobs:
        yield diagnose_job(index, job, files, scanner)


def _jobs(rows: Iterable[Any]) -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    for row in rows:
        yield row["job"], [(f["below"], bytes(f["content"])) for f in row["files"]]


@dataclass(frozen=True)
class FleetResult:
    jobs: int
    failed: int


def scan_fleet(
    index: SignatureIndex, source: str, out: str, fmt: str = "parquet", master: str | None = None
) -> FleetResult:
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    if "PYSPARK_GATEWAY_PORT" not in os.environ and (master or "local").startswith("local"):
        # Run here, not under spark-submit: the workers are this Python, with its packages.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("trainwreck fleet scan")
    if master:
        builder = builder.master(master)
    spark = builder.getOrCreate()
    jvm: Any = spark.sparkContext._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(source)
    fs = hadoop_path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    root = fs.makeQualified(hadoop_path).toString().rstrip("/")
    # The grouping by job happens in the JVM; Python sees each job once, with all its files.
    below_root = F.expr(f"substring(path, {len(root) + 2})")
    files = (
        spark.read.format("binaryFile")
        .option("recursiveFileLookup", "true")
        .load(source)
        .where(F.col("path").startswith(root + "/"))
        .select(below_root.alias("rel"), "content")
        .where(F.col("rel").contains("/"))
        .select(
            F.substring_index("rel", "/", 1).alias("job"),
            F.expr("substring(rel, instr(rel, '/') + 1)").alias("below"),
            "content",
        )
        .groupBy("job")
        .agg(F.collect_list(F.struct("below", "content")).alias("files"))
    )
    text = spark.sparkContext.broadcast(index_json(index.data))
    rows = files.rdd.mapPartitions(lambda part: _diagnose_partition(text.value, _jobs(part)))
    # Cached before anything looks at it: sorting samples its input, which would otherwise run
    # every diagnosis once more.
    jobs = spark.createDataFrame(rows, JOB_SCHEMA).cache()
    total = jobs.count()
    summary = _summary(jobs, index)
    writer: Any
    for name, frame in (("jobs", jobs.orderBy("job")), ("summary", summary)):
        writer = frame.coalesce(1).write.mode("overwrite")
        (writer.parquet if fmt == "parquet" else writer.json)(f"{out}/{name}")
    failed = jobs.where(F.size("root_causes") > 0).count()
    jobs.unpersist()
    return FleetResult(total, failed)


def _summary(jobs: Any, index: SignatureIndex) -> Any:
    """One row per entry found in the fleet: jobs it is the root cause of, and collateral in."""
    from pyspark.sql import functions as F

    titles = jobs.sparkSession.createDataFrame(
        [(k, v.title, v.severity) for k, v in index.entries.items()],
        "entry STRING, title STRING, severity STRING",
    )
    root = (
        jobs.select(F.explode("root_causes").alias("entry"), "job", "time")
        .groupBy("entry")
        .agg(F.count("job").alias("root_cause_jobs"), F.min("job").alias("example_job"))
    )
    collateral = (
        jobs.select(F.explode("collateral").alias("entry"), "job")
        .groupBy("entry")
        .agg(F.count("job").alias("collateral_jobs"))
    )
    return (
        root.join(collateral, "entry", "full_outer")
        .join(titles, "entry", "left")
        .fillna(0, ["root_cause_jobs", "collateral_jobs"])
        .select("entry", "title", "severity", "root_cause_jobs", "collateral_jobs", "example_job")
        .orderBy(F.desc("root_cause_jobs"), "entry")
    )
