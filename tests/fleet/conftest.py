"""Session fixtures of the fleet tests: the corpus (tests/fleet/corpus.py) and one Spark."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from tests.fleet.corpus import Corpus, build_corpus


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    return build_corpus()


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """One local SparkSession for the whole test session: starting the JVM is the slow part."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("trainwreck-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
