"""The real catalog, a corpus of log rows, and the Python engine's verdict on each log.

The corpus is every entry's examples, the benign corpus and the real logs of
tests/fixtures/logs/real/: each log is one set of rows, one row per line, as a log shipper
sends them. The Python engine's verdict for (entry, log) is whether any line of the log
matches one of the entry's defining signatures, which is when a rule must fire.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.diagnose.engine import LogBytes, scan_log
from generator.diagnose.index import SignatureIndex, build_index
from generator.diagnose.scan import Scanner
from generator.loading.discovery import find_entry_files, read_benign, read_sources
from generator.model.entry import Entry
from generator.validation import load_doc

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://trainwreck.example/"
_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Corpus:
    entries: tuple[Entry, ...]
    logs: tuple[LogBytes, ...]  # log_id is the position
    rows: tuple[tuple[int, str], ...]  # (log_id, line)
    expected: dict[str, frozenset[int]]  # entry -> logs a rule must fire on
    own: dict[str, frozenset[int]]  # entry -> its own examples
    benign: frozenset[int]


def catalog_entries() -> list[Entry]:
    sources, problems = read_sources(find_entry_files(ROOT / "entries"), ROOT)
    assert problems == []
    entries = []
    for source in sources:
        doc, found = load_doc(source)
        assert doc is not None, found
        entries.append(doc.entry)
    return sorted(entries, key=lambda e: e.id)


def split_rows(raw: bytes) -> list[str]:
    lines = _BREAK.split(raw.decode("utf-8", "replace"))
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def build_corpus() -> Corpus:
    entries = catalog_entries()
    logs: list[LogBytes] = []
    own: dict[str, set[int]] = {}
    for e in entries:
        for n, example in enumerate(e.examples):
            own.setdefault(e.id, set()).add(len(logs))
            logs.append(LogBytes(f"{e.id}/example-{n}.log", example.log.encode()))
    benign_logs, problems = read_benign(ROOT / "corpus" / "benign", ROOT)
    assert problems == []
    benign = set(range(len(logs), len(logs) + len(benign_logs)))
    logs.extend(benign_logs)
    for path in sorted((ROOT / "tests" / "fixtures" / "logs" / "real").glob("*.log")):
        logs.append(LogBytes(path.name, path.read_bytes()))
    index = SignatureIndex(build_index(entries))
    scanner = Scanner(index)
    defining = {s.number: s.entry for s in index.signatures if s.role == "defining"}
    expected: dict[str, set[int]] = {e.id: set() for e in entries}
    for log_id, log in enumerate(logs):
        for match in scan_log(scanner, log):
            for number in match.signatures:
                if number in defining:
                    expected[defining[number]].add(log_id)
    rows = tuple((log_id, line) for log_id, log in enumerate(logs) for line in split_rows(log.raw))
    return Corpus(
        tuple(entries),
        tuple(logs),
        rows,
        {k: frozenset(v) for k, v in expected.items()},
        {k: frozenset(v) for k, v in own.items()},
        frozenset(benign),
    )
