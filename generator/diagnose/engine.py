"""The engine on logs held in memory: the entry point for validation and tests.

`trainwreck diagnose` streams files through the same Scanner and Tally (see inputs.py and the
command layer); this module serves callers whose logs are already bytes, such as an entry's
examples and the benign corpus.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from generator.diagnose.context import END_BYTES, Tail, decoded, read_lines, wanted_lines
from generator.diagnose.culprit import LINE_BYTES, LINES_BEFORE, culprit_of
from generator.diagnose.ending import with_ending
from generator.diagnose.exception_line import with_exception_line
from generator.diagnose.index import SignatureIndex
from generator.diagnose.lineinfo import rank_from_path
from generator.diagnose.progress import ProgressReader
from generator.diagnose.scan import LineMatch, Scanner, ScanProblem, ScanStats, Settled
from generator.diagnose.trend_findings import trends_in, with_trends
from generator.diagnose.trends import Trend
from generator.diagnose.triage import Diagnosis, Tally, triage

# Some lines of one log, read again: (wanted line numbers, bytes a line) -> {number: raw line}.
LinesOf = Callable[[set[int], int], dict[int, bytes]]


@dataclass(frozen=True)
class LogBytes:
    """A whole log in memory: the name to report it by, and its raw bytes."""

    name: str
    raw: bytes


@dataclass
class Run:
    diagnosis: Diagnosis
    stats: ScanStats = field(default_factory=ScanStats)
    problems: list[ScanProblem] = field(default_factory=list)


def scan_log(scanner: Scanner, log: LogBytes, file_index: int = 0) -> list[LineMatch]:
    stream = io.BytesIO(log.raw)
    return list(
        scanner.scan(
            stream.read,
            log.name,
            file_index,
            ScanStats(),
            [],
            file_rank=rank_from_path(log.name),
        )
    )


def log_trends(log: LogBytes, file_index: int = 0) -> list[Trend]:
    """What the progress lines of one log in memory show (an entry's example, say)."""
    tail = Tail(io.BytesIO(log.raw).read, END_BYTES)
    reader = ProgressReader(tail, log.name, file_index, rank_from_path(log.name))
    while reader.read(1 << 20):
        pass
    return trends_in([reader], [(file_index, log.name, tail.last_line())])


def with_culprit(diagnosis: Diagnosis, reopen: Callable[[int], LinesOf | None]) -> Diagnosis:
    """The diagnosis with the culprit of the line it puts first, read from the lines before that
    line: `reopen(file_index)` gives a way to read them again, or None where there is none."""
    hit = diagnosis.explained
    if hit is None:
        return diagnosis
    lines_of = reopen(hit.file_index)
    found = lines_of(wanted_lines([hit.line], LINES_BEFORE, -1), LINE_BYTES) if lines_of else {}
    before = [decoded(found[n]) for n in sorted(found)]
    return replace(diagnosis, culprit=culprit_of(hit.text, before))


def diagnose_reads(
    index: SignatureIndex,
    logs: Iterable[tuple[str, Callable[[int], bytes]]],
    scanner: Scanner | None = None,
) -> Run:
    """The diagnosis of logs given as (name, read), each read as it streams."""
    scanner = scanner or Scanner(index)
    tally, settled = Tally(index), Settled()
    stats = ScanStats()
    problems: list[ScanProblem] = []
    endings = []
    readers = []
    for i, (name, read) in enumerate(logs):
        tail = Tail(read, END_BYTES)
        file_rank = rank_from_path(name)
        progress = ProgressReader(tail, name, i, file_rank)
        readers.append(progress)
        tally.add_all(
            scanner.scan(
                progress.read, name, i, stats, problems, file_rank=file_rank, settled=settled
            ),
            settled,
        )
        tally.add_settled(settled)
        endings.append((i, name, tail.last_line()))
    diagnosis = with_trends(triage(tally), trends_in(readers, endings), scanner.index)
    return Run(with_ending(diagnosis, endings), stats, problems)


def diagnose_logs(
    index: SignatureIndex, logs: Sequence[LogBytes], scanner: Scanner | None = None
) -> Run:
    run = diagnose_reads(index, ((log.name, io.BytesIO(log.raw).read) for log in logs), scanner)

    def reopen(i: int) -> LinesOf:
        return lambda wanted, max_bytes: read_lines(io.BytesIO(logs[i].raw).read, wanted, max_bytes)

    return replace(run, diagnosis=with_culprit(with_exception_line(run.diagnosis, reopen), reopen))
