"""Issue 39, defect 1: the exported queries of the worst signatures `validate` allows read long
hostile lines in time linear in the line, in the engines that backtrack: sqlite with Python's
re as its REGEXP (as docs/fleet.md suggests) and Spark's rlike (Java). Each engine's verdict on
every line is the Python engine's. Before the atomic form, issue 39's ten-gap signature took
more than 30 s on a 40-character line in sqlite, and minutes on 70 in Spark."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import threading
import time

import pytest

from generator.diagnose.pattern import Gap, Lit, Matcher, PatternError, Run, parse
from generator.fleet.backends import convert
from generator.fleet.regex import export_problems, signature_regex
from generator.model.entry import Entry, Role, Signature
from tests.fleet.corpus import SITE, Corpus

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# One per way a signature makes a backtracking engine work, each as long as a pattern may be.
WORST = {
    # Issue 39's signature at the length limit: 97 gaps, each a one-letter literal.
    "gaps": "zzqx redos" + "{*}a" * 96 + "{*}END",
    # Runs between literals that their class takes all of but the last character, the first
    # literal inside {token}: each run reads its stretch and gives the literal back.
    "runs": "zzqxredos" + "{token}aaaaaaaa: zzqxredos" * 14 + "{token}aaaaaaaa: END",
    # A run before a gap whose next literal lies inside its class: its first occurrence.
    "lazy": ("zzqx redos {token}aaaaaaa{*}" * 14)[:-3] + "END",
    # Every class, each followed by a literal that starts with characters the class takes.
    "classes": ("zzqx redos {int}11 {num}-.1 {hex}xa {pci}:.a {word}_a {token}'a {num}1. {hex}0x ")
    * 5,
    # The longest literal: a line of its prefix makes each place compare up to 399 characters.
    "prefix": "a" * 399 + "b",
}
LINE = 1 << 16  # characters: the Python engine's cap on a line; a log engine reads more
BUDGET = 90.0  # seconds per engine for every query on every line; linear takes a few
FILL = {"int": "1", "num": "1", "hex": "a", "pci": "a", "word": "a", "token": "a"}


def _lines(pattern: str) -> list[str]:
    """Long lines made of the pattern's own pieces, the classic ways to make a backtracking
    engine try many splits: each piece repeated, and the same with a match at the very end."""
    tokens = parse(pattern)
    texts = [t.text for t in tokens if isinstance(t, Lit)]
    matching = "".join(
        t.text if isinstance(t, Lit) else FILL[t.cls.name] * 2 if isinstance(t, Run) else "x"
        for t in tokens
    )
    pumps = [matching[:-1], "".join(texts[:-1]), *texts[:3], "a", texts[0] + "a"]
    lines = []
    for pump in dict.fromkeys(p for p in pumps if p):
        body = (pump * (LINE // len(pump) + 1))[:LINE]
        lines += [body, body[: LINE - len(matching)] + matching]
    return lines


def _worst_entries(corpus: Corpus) -> list[Entry]:
    base = next(e for e in corpus.entries if e.id == "cuda-misaligned-address")
    seen_in = base.signatures[0].seen_in
    return [
        base.model_copy(
            update={
                "id": f"worst-{name}",
                "signatures": (Signature(pattern=pattern, role=Role.DEFINING, seen_in=seen_in),),
            }
        )
        for name, pattern in WORST.items()
    ]


def _rows() -> list[tuple[int, str]]:
    lines = [line for pattern in WORST.values() for line in _lines(pattern)]
    return list(enumerate(lines))


def _expected(rows: list[tuple[int, str]]) -> dict[str, list[int]]:
    return {
        f"worst-{name}": [i for i, line in rows if Matcher(pattern).search(line)]
        for name, pattern in WORST.items()
    }


def test_the_worst_signatures_are_allowed_and_as_long_as_a_pattern_may_be() -> None:
    for pattern in WORST.values():
        assert 390 <= len(pattern) <= 400, pattern
        assert export_problems(parse(pattern)) == []
    assert sum(isinstance(t, Gap) for t in parse(WORST["gaps"])) == 97


# sqlite runs in a child process, so that a query that backtracks fails the test at the budget
# instead of holding it: Python's re cannot be interrupted.
_SQLITE = """
import json, re, sqlite3, sys, time
data = json.load(sys.stdin)
db = sqlite3.connect(":memory:")
compiled = {}
def regexp(pattern, value):
    if pattern not in compiled:
        compiled[pattern] = re.compile(pattern)
    return compiled[pattern].search(value) is not None
db.create_function("regexp", 2, regexp)
db.execute("CREATE TABLE logs (line_id INTEGER, message TEXT)")
db.executemany("INSERT INTO logs VALUES (?, ?)", data["rows"])
fired = {}
for entry, query in data["queries"].items():
    fired[entry] = sorted(r[0] for r in db.execute(f"SELECT line_id FROM ({query})"))
print(json.dumps(fired))
"""


def test_sqlite_with_python_re_reads_hostile_lines_in_linear_time(corpus: Corpus) -> None:
    rows = _rows()
    queries = {q.entry: q.query for q in convert(_worst_entries(corpus), SITE, "sqlite").queries}
    assert len(queries) == len(WORST)
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SQLITE],
            input=json.dumps({"rows": rows, "queries": queries}),
            capture_output=True,
            text=True,
            timeout=BUDGET,
            check=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the sqlite queries took more than {BUDGET:.0f} s on {len(rows)} lines")
    assert time.perf_counter() - start < BUDGET
    expected = _expected(rows)
    assert all(expected.values()), "each signature matches some line"
    assert json.loads(done.stdout) == expected


@pytest.mark.spark
def test_spark_rlike_reads_hostile_lines_in_linear_time(corpus: Corpus, spark) -> None:  # type: ignore[no-untyped-def]
    from pyspark.sql import functions as F

    rows = _rows()
    queries = {q.entry: q.query for q in convert(_worst_entries(corpus), SITE, "spark").queries}
    df = spark.createDataFrame(rows, "line_id INT, message STRING")
    hits = F.array(*[F.when(F.expr(cond), F.lit(entry)) for entry, cond in queries.items()])
    context = spark.sparkContext
    context.setJobGroup("backtracking", "the worst signatures", interruptOnCancel=True)
    # Java's regex ignores interrupts: cancelled, the job fails now, its task runs on.
    timer = threading.Timer(BUDGET, context.cancelJobGroup, ["backtracking"])
    timer.start()
    start = time.perf_counter()
    try:
        found = (
            df.select("line_id", F.explode(hits).alias("entry"))
            .where("entry IS NOT NULL")
            .collect()
        )
    finally:
        timer.cancel()
        context.setJobGroup("other", "")
    assert time.perf_counter() - start < BUDGET
    fired: dict[str, list[int]] = {entry: [] for entry in queries}
    for row in found:
        fired[row["entry"]].append(row["line_id"])
    assert {k: sorted(v) for k, v in fired.items()} == _expected(rows)


# Signatures of literal text at the edges of the classes (digits, `_`, `:`, `'`, spaces...) and
# placeholders, on lines made of their literals and those characters. Drawn by a seeded
# generator: uniform draws find a lookbehind or a stretch start left out within seconds, where
# Hypothesis's draws, which favour small and simple values, did not.
_EDGES = "ab:_ .'x1-("
_PLACEHOLDERS = ["{int}", "{num}", "{hex}", "{pci}", "{word}", "{token}", "{*}"]


def test_the_atomic_form_matches_what_the_matcher_matches() -> None:
    rng = random.Random(39)
    checked = 0
    while checked < 4000:
        parts = [rng.choice(["zzqxredo", "zzqx redo ", "1a:'x_ 1a"])]
        for _ in range(rng.randint(0, 6)):
            if rng.random() < 0.5:
                parts.append(rng.choice(_PLACEHOLDERS))
            parts.append("".join(rng.choice(_EDGES) for _ in range(rng.randint(0, 3))))
        pattern = "".join(parts)
        try:
            tokens = parse(pattern)
        except PatternError:
            continue
        if export_problems(tokens):
            continue
        checked += 1
        matcher = Matcher(pattern)
        atomic = re.compile(signature_regex(pattern, "atomic"))
        for _ in range(20):
            line = "".join(
                rng.choice(matcher.literals)
                if rng.random() < 0.4
                else "".join(rng.choice(_EDGES + "\n9Z") for _ in range(rng.randint(0, 4)))
                for _ in range(rng.randint(1, 8))
            )
            want = any(matcher.search(part) for part in line.split("\n"))
            assert (atomic.search(line) is not None) == want, (pattern, line)
