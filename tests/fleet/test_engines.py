"""Every exported query, run in a real engine (sqlite, DuckDB, Spark) or in an evaluator of
its language (LogQL, Lucene), fires on exactly the logs where the Python engine finds one of
its entry's defining signatures: the entry's own examples, never the benign corpus, and on
every other log of the corpus as the Python engine decides."""

from __future__ import annotations

import re
import sqlite3
from functools import cache

import pytest

from generator.fleet.backends import convert
from generator.fleet.evaluate import logql, lucene
from tests.fleet.corpus import SITE, Corpus

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _check(corpus: Corpus, fired: dict[str, frozenset[int]], target: str) -> None:
    exported = set(fired)
    skipped = {e.id for e in corpus.entries} - exported
    assert skipped == {
        "accelerate-kernel-version-warning",
        "c10d-destroy-process-group-warning",
        "c10d-ipv6-gai-warning",
        "c10d-unknown-device-id-warning",
        "ds-invalidate-trace-cache-noise",
        "nccl-net-plugin-not-found-noise",
        "tokenizers-fork-warning",
        "torchrun-omp-threads-warning",
        # only the numbers in progress lines show these: no line to query for
        "loss-divergence",
        "loss-spike",
        "training-slowdown-straggler",
        "training-stall-no-progress",
    }
    for entry in sorted(exported):
        assert corpus.own[entry] <= fired[entry], (target, entry, "misses its own examples")
        assert not fired[entry] & corpus.benign, (target, entry, "fires on the benign corpus")
    differ = {e: (fired[e], corpus.expected[e]) for e in exported if fired[e] != corpus.expected[e]}
    assert differ == {}


def _queries(corpus: Corpus, target: str) -> dict[str, str]:
    return {q.entry: q.query for q in convert(corpus.entries, SITE, target).queries}


def test_sqlite(corpus: Corpus) -> None:
    db = sqlite3.connect(":memory:")

    @cache
    def compiled(pattern: str) -> re.Pattern[str]:
        return re.compile(pattern)

    # `X REGEXP Y` calls regexp(Y, X); the pattern is Python's re, as with most REGEXP functions.
    db.create_function("regexp", 2, lambda p, v: compiled(p).search(v) is not None)
    db.execute("CREATE TABLE logs (log_id INTEGER, message TEXT)")
    db.executemany("INSERT INTO logs VALUES (?, ?)", corpus.rows)
    fired = {
        entry: frozenset(r[0] for r in db.execute(f"SELECT DISTINCT log_id FROM ({query})"))
        for entry, query in _queries(corpus, "sqlite").items()
    }
    _check(corpus, fired, "sqlite")


def test_duckdb(corpus: Corpus) -> None:
    import duckdb

    db = duckdb.connect(":memory:")
    db.execute("CREATE TABLE logs (log_id INTEGER, message VARCHAR)")
    db.executemany("INSERT INTO logs VALUES (?, ?)", [list(r) for r in corpus.rows])
    fired = {
        entry: frozenset(
            r[0] for r in db.execute(f"SELECT DISTINCT log_id FROM ({query})").fetchall()
        )
        for entry, query in _queries(corpus, "duckdb").items()
    }
    _check(corpus, fired, "duckdb")


@pytest.mark.spark
def test_spark(corpus: Corpus, spark) -> None:  # type: ignore[no-untyped-def]
    from pyspark.sql import functions as F

    queries = _queries(corpus, "spark")
    df = spark.createDataFrame(list(corpus.rows), "log_id INT, message STRING")
    # One pass over the rows: each condition, as the backend wrote it, names its entry.
    hits = F.array(*[F.when(F.expr(cond), F.lit(entry)) for entry, cond in queries.items()])
    found = (
        df.select("log_id", F.explode(hits).alias("entry"))
        .where("entry IS NOT NULL")
        .distinct()
        .collect()
    )
    fired: dict[str, set[int]] = {entry: set() for entry in queries}
    for row in found:
        fired[row["entry"]].add(row["log_id"])
    _check(corpus, {k: frozenset(v) for k, v in fired.items()}, "spark")


def _evaluated(corpus: Corpus, target: str, build) -> dict[str, frozenset[int]]:  # type: ignore[no-untyped-def]
    fired = {}
    for entry, query in _queries(corpus, target).items():
        predicate = build(query)
        fired[entry] = frozenset(log_id for log_id, line in corpus.rows if predicate(line))
    return fired


def test_logql_evaluator(corpus: Corpus) -> None:
    _check(corpus, _evaluated(corpus, "loki", logql), "loki")


def test_lucene_evaluator(corpus: Corpus) -> None:
    _check(corpus, _evaluated(corpus, "elasticsearch", lucene), "elasticsearch")
