"""`trainwreck fleet scan`: one diagnosis per job directory, on Spark.

The Python engine runs inside Spark tasks; nothing is translated. Each task compiles the
signature index once (it travels as JSON in a broadcast) and diagnoses its jobs exactly as
`trainwreck diagnose <job>` does from the input folder: the same file order, names,
decompression and triage, so a job's `report` is byte for byte what `diagnose <job> --json`
prints.

A folder on this machine's file system (a file: URL, or a path while Hadoop's default file
system is the local one; on a cluster, one every node mounts) is listed and read by the tasks
in Python, as `diagnose` reads a folder: Hadoop's paths cannot hold every name a file system
allows (a colon, as in a timestamped log, makes its checksum file system throw), nor a name
that is not UTF-8. Any other prefix Hadoop reads
(s3a://, gs://, abfss://, hdfs://) is read by Spark as bytes (`binaryFile`) and grouped by
the first directory below the input (the job); a file Spark cannot read or skips (an empty
one) is named in its job's row instead of failing the scan, and Hadoop's hidden files (names
starting with `_` or `.`) are left out.

Every job gets a row: a job with no log it could read says why in `problems`, and a failure
inside one job's diagnosis is that job's problem, never the others'.

Output under OUT: `jobs/` (one row per job) and `summary/` (one row per entry), Parquet or JSON
lines.
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from generator.diagnose.context import END_BYTES, Tail, read_lines
from generator.diagnose.ending import with_ending
from generator.diagnose.engine import LinesOf, with_culprit
from generator.diagnose.exception_line import with_exception_line
from generator.diagnose.index import SignatureIndex, index_json, load_index
from generator.diagnose.inputs import LogInput, OpenLog, _natural
from generator.diagnose.lineinfo import rank_from_path
from generator.diagnose.progress import ProgressReader
from generator.diagnose.report import json_report
from generator.diagnose.scan import LogReadError, Scanner, ScanProblem, ScanStats, Settled
from generator.diagnose.trend_findings import trends_in, with_trends
from generator.diagnose.triage import Tally, triage

JOB_SCHEMA = (
    "job STRING, root_causes ARRAY<STRING>, collateral ARRAY<STRING>, first_failed_rank INT, "
    "time STRING, first_file STRING, first_line INT, unrecognized STRING, files INT, "
    "problems ARRAY<STRING>, report STRING"
)


def _order(rel: str) -> list[list[tuple[int, int | str]]]:
    return [_natural(part) for part in rel.split("/")]


def _text(name: str) -> str:
    """A name as table text: the bytes of a name that is not UTF-8 (held as surrogates,
    which Spark cannot carry) as \\xHH."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# (the name to report it by, open it: raises LogReadError, its size in bytes)
Log = tuple[str, Callable[[], OpenLog], int | None]


def diagnose_job(
    index: SignatureIndex,
    job: str,
    files: Iterable[tuple[str, bytes]],
    scanner: Scanner | None = None,
    notes: Sequence[str] = (),
) -> tuple:  # type: ignore[type-arg]
    """One job's row: `files` are (path below the job folder, raw bytes), in any order;
    `notes`, problems of the job found before (files that were listed and not read).

    A scanner keeps no state between logs, so one per task serves all its jobs: building one
    compiles the prefilter, the slow part of starting a diagnosis."""
    ordered = sorted(files, key=lambda f: _order(f[0]))
    logs: list[Log] = [
        (
            f"{job}/{rel}",
            lambda name=f"{job}/{rel}", raw=raw: OpenLog(  # type: ignore[misc]
                LogInput(name, None, False, len(raw)), io.BytesIO(raw)
            ),
            len(raw),
        )
        for rel, raw in ordered
    ]
    return _diagnose(index, job, logs, list(notes), scanner or Scanner(index))


def _diagnose(
    index: SignatureIndex,
    job: str,
    logs: Sequence[Log],
    notes: list[str],
    scanner: Scanner,
) -> tuple:  # type: ignore[type-arg]
    """The row of a job whose logs are `logs`, in order; `notes` are problems found before."""
    tally, stats, settled = Tally(index), ScanStats(), Settled()
    problems: list[ScanProblem] = []
    empty: list[str] = []
    endings, readers = [], []  # each log's last line and progress lines, as `diagnose` reads them
    for number, (name, opener, size) in enumerate(logs):
        try:
            opened = opener()
        except LogReadError as exc:
            problems.append(ScanProblem(name, str(exc), "read"))
            continue
        if size == 0:
            empty.append(f"{name}: the file is empty")
        with opened:
            tail = Tail(opened.read, END_BYTES)
            progress = ProgressReader(tail, name, number, rank_from_path(name))
            readers.append(progress)
            tally.add_all(
                scanner.scan(
                    progress.read,
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
            endings.append((number, name, tail.last_line()))

    def reopen(number: int) -> LinesOf:
        def lines_of(wanted: set[int], max_bytes: int) -> dict[int, bytes]:
            try:
                with logs[number][1]() as again:
                    return read_lines(again.read, wanted, max_bytes)
            except (LogReadError, OSError):
                return {}  # gone since it was read, as `diagnose` says: no culprit named

        return lines_of

    # The same report as `diagnose --json`, whose first key names the catalog it used.
    diagnosis = with_trends(triage(tally), trends_in(readers, endings), index)
    diagnosis = with_exception_line(with_ending(diagnosis, endings), reopen)
    diagnosis = with_culprit(diagnosis, reopen)
    report = json_report(diagnosis, {"catalog": index.data.catalog})
    data = json.loads(report)
    roots = [f for f in data["findings"] if f["role"] == "root-cause"]
    first = roots[0]["first"] if roots else None
    unrecognized = data["unrecognized"][0]["kind"] if data["unrecognized"] else None
    named = sorted([*notes, *empty, *(f"{p.file}: {p.message}" for p in problems)])
    if not logs:
        named.append(f"{job}: no file to diagnose")
    return (
        _text(job),
        [f["id"] for f in roots],
        [f["id"] for f in data["findings"] if f["role"] == "collateral"],
        data["first_failed_rank"],
        first["time"] if first else None,
        _text(first["file"]) if first else None,
        first["line"] if first else None,
        unrecognized,
        len(logs),
        [_text(p) for p in named],
        report,
    )


def _failed(job: str, exc: BaseException) -> tuple:  # type: ignore[type-arg]
    """The row of a job whose diagnosis raised: the error is its problem, no one else's."""
    problem = f"{job}: diagnosis failed: {type(exc).__name__}: {exc}"
    return (_text(job), [], [], None, None, None, None, None, 0, [_text(problem)], "")


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _job_logs(root: str, job: str) -> tuple[list[Log], list[str]]:
    """The logs of a job folder in `diagnose`'s order (hidden names skipped), and a note for
    each thing in it that is not a log: a FIFO, a device, a link to nothing, a folder that
    cannot be listed. Never opens anything but folders."""
    found: list[tuple[str, str, int]] = []
    notes: list[str] = []
    top = os.path.join(root, job)

    def unlisted(exc: OSError) -> None:
        where = os.path.relpath(exc.filename, root) if exc.filename else job
        notes.append(f"{where.replace(os.sep, '/')}: cannot be listed: {exc.strerror or exc}")

    for folder, subfolders, files in os.walk(top, onerror=unlisted):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        for name in files:
            if name.startswith("."):
                continue
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, top)
            shown = f"{job}/{rel.replace(os.sep, '/')}"
            try:
                info = os.stat(full)
            except OSError as exc:
                notes.append(f"{shown}: {exc.strerror or exc}; skipped")
                continue
            if stat.S_ISREG(info.st_mode):
                found.append((rel, shown, info.st_size))
                continue
            kind = next((k for test, k in _KINDS if test(info.st_mode)), "not a regular file")
            notes.append(f"{shown}: {kind}, not a file; skipped")
    found.sort(key=lambda f: [_natural(part) for part in f[0].split(os.sep)])
    logs: list[Log] = [
        (
            shown,
            lambda shown=shown, rel=rel, size=size: OpenLog(  # type: ignore[misc]
                LogInput(shown, os.path.join(top, rel), False, size)
            ),
            size,
        )
        for rel, shown, size in found
    ]
    return logs, notes


def _diagnose_folders(index_text: str, root: str, jobs: Iterable[str]) -> Iterator[tuple]:  # type: ignore[type-arg]
    index = load_index(index_text.encode())
    scanner = Scanner(index)
    for job in jobs:
        try:
            logs, notes = _job_logs(root, job)
            yield _diagnose(index, job, logs, notes, scanner)
        except Exception as exc:
            yield _failed(job, exc)


def local_folder(source: str, default_fs: str = "file:///") -> str | None:
    """The folder `source` names on this machine, or None when Hadoop must read it: a file:
    URL, or a path that Hadoop would read from `default_fs` (its fs.defaultFS) when that is
    the local file system. A path that exists is a path even when it looks like a URL
    (`logs-10:00`, a scheme to urlsplit)."""
    parts = urlsplit(source)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            return None
        return unquote(parts.path, errors="surrogateescape")
    if parts.scheme and not os.path.exists(source):
        return None  # s3a://, gs://, hdfs://
    return source if urlsplit(default_fs).scheme == "file" else None


def _diagnose_partition(
    index_text: str, jobs: Iterable[tuple[str, list[tuple[str, bytes]], list[str]]]
) -> Iterator[tuple]:  # type: ignore[type-arg]
    index = load_index(index_text.encode())
    scanner = Scanner(index)
    for job, files, notes in jobs:
        try:
            yield diagnose_job(index, job, files, scanner, notes)
        except Exception as exc:
            yield _failed(job, exc)


UNREAD = "Spark read nothing of it (an empty file, or one it could not read: its log says which)"


def _jobs(
    rows: Iterable[Any], listed: dict[str, list[str]]
) -> Iterator[tuple[str, list[tuple[str, bytes]], list[str]]]:
    for row in rows:
        files = [(f["below"], bytes(f["content"])) for f in row["files"] or ()]
        read = {below for below, _ in files}
        job = row["job"]
        unread = [f"{job}/{below}: {UNREAD}" for below in listed[job] if below not in read]
        yield job, files, unread


@dataclass(frozen=True)
class FleetResult:
    jobs: int
    failed: int


def scan_fleet(
    index: SignatureIndex,
    source: str,
    out: str,
    fmt: str = "parquet",
    master: str | None = None,
    *,
    hadoop: bool = False,
) -> FleetResult:
    """Every job's row and the summary written under `out`. `hadoop`: read even a local
    folder through Hadoop, as an object store is (the tests' way to that path)."""
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    if "PYSPARK_GATEWAY_PORT" not in os.environ and (master or "local").startswith("local"):
        # Run here, not under spark-submit: the workers are this Python, with its packages.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("trainwreck fleet scan")
    if master:
        builder = builder.master(master)
    spark = builder.getOrCreate()
    text = spark.sparkContext.broadcast(index_json(index.data))
    default_fs = spark.sparkContext._jsc.hadoopConfiguration().get("fs.defaultFS", "file:///")
    folder = None if hadoop else local_folder(source, default_fs)
    rows = _folder_rows(spark, folder, text) if folder else _hadoop_rows(spark, source, text)
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


def _folder_rows(spark: Any, folder: str, text: Any) -> Any:
    """The jobs of a folder on this machine, each listed and read by its task in Python."""
    jobs = sorted(
        entry.name
        for entry in os.scandir(folder)
        if not entry.name.startswith(".") and entry.is_dir()
    )
    context = spark.sparkContext
    # Python objects, never Java strings: a name that is not UTF-8 reaches its task intact.
    slices = max(1, min(len(jobs), context.defaultParallelism * 4))
    return context.parallelize(jobs, slices).mapPartitions(
        lambda part: _diagnose_folders(text.value, folder, part)
    )


def _hadoop_rows(spark: Any, source: str, text: Any) -> Any:
    """The jobs under a prefix Hadoop reads, their files read by Spark as bytes."""
    from pyspark.sql import functions as F

    jvm: Any = spark.sparkContext._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(source)
    fs = hadoop_path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    root = fs.makeQualified(hadoop_path).toString().rstrip("/")
    read = (
        spark.read.format("binaryFile")
        .option("recursiveFileLookup", "true")
        # A file Spark cannot read costs its job a named problem, not the whole scan.
        .option("ignoreCorruptFiles", "true")
        .option("ignoreMissingFiles", "true")
        .load(source)
    )
    # Spark's listing, before it leaves out what it does not read (empty files among them):
    # URL-encoded, where the `path` column is not.
    root_path = urlsplit(root).path.rstrip("/") + "/"
    listed: dict[str, list[str]] = {}
    for uri in read.inputFiles():
        path = unquote(urlsplit(uri).path)
        if path.startswith(root_path) and "/" in path[len(root_path) :]:
            job, below = path[len(root_path) :].split("/", 1)
            listed.setdefault(job, []).append(below)
    # The grouping by job happens in the JVM; Python sees each job once, with all its files.
    below_root = F.expr(f"substring(path, {len(root) + 2})")
    files = (
        read.where(F.col("path").startswith(root + "/"))
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
    every = spark.createDataFrame([(job,) for job in listed], "job STRING")
    grouped = every.join(files, "job", "left")
    names = spark.sparkContext.broadcast(listed)
    return grouped.rdd.mapPartitions(
        lambda part: _diagnose_partition(text.value, _jobs(part, names.value))
    )


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
