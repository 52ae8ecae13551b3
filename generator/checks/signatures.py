"""Two-sided signature checks: every example names its entry, and no signature fires on health.

These run on the compiled index, so they see only entries that passed every other check (an
index cannot be keyed by a duplicate id or follow a relation to an entry that does not exist);
an entry with other errors is checked here again once those are fixed. They mirror Sigma's
regression and goodlog runs and elastic-recheck's rule that a fingerprint must not fire on
successful jobs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from generator.checks.base import Check, EntryDoc, register
from generator.diagnose.engine import LogBytes, diagnose_logs, scan_log
from generator.diagnose.index import SignatureIndex, build_index
from generator.diagnose.scan import LineMatch, Scanner
from generator.model.entry import Entry
from generator.problems import Level, Problem

SHOWN = 100


class IndexCheck(Check):
    """A check on the compiled signature index, given the benign log corpus when there is one."""

    phase = "index"

    def check_index(
        self, docs: Sequence[EntryDoc], benign: Sequence[LogBytes] | None
    ) -> Iterable[Problem]:
        return ()


@dataclass(frozen=True)
class _Compiled:
    index: SignatureIndex
    scanner: Scanner
    # owner entry id and position of every signature, by signature number
    owners: tuple[tuple[str, int], ...]


@lru_cache(maxsize=4)
def _compile(entries: tuple[Entry, ...]) -> _Compiled:
    index = SignatureIndex(build_index(entries))
    position: dict[str, int] = {}
    owners = []
    for sig in index.signatures:
        owners.append((sig.entry, position.get(sig.entry, 0)))
        position[sig.entry] = position.get(sig.entry, 0) + 1
    return _Compiled(index, Scanner(index), tuple(owners))


def _compiled(docs: Sequence[EntryDoc]) -> _Compiled:
    return _compile(tuple(doc.entry for doc in docs))


def _example_name(doc: EntryDoc, number: int) -> str:
    return f"{doc.entry.id} examples[{number}]"


@lru_cache(maxsize=4)
def _example_matches(entries: tuple[Entry, ...]) -> tuple[tuple[str, int, LineMatch], ...]:
    """Every matched line of every example: (entry id, example number, match)."""
    compiled = _compile(entries)
    found = []
    for entry in entries:
        for number, example in enumerate(entry.examples):
            log = LogBytes(f"{entry.id} examples[{number}]", example.log.encode())
            for match in scan_log(compiled.scanner, log):
                found.append((entry.id, number, match))
    return tuple(found)


def _quote(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "...")


@register
class ExampleDiagnosis(IndexCheck):
    """Each of an entry's `examples` diagnoses to that entry as the top root cause.

    Passes: an example holding `NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, ...` in the Xid 79
    entry. Fails: an example that matches none of the entry's defining signatures, or whose
    earliest root cause is another entry.
    """

    id = "example-diagnosis"

    def check_index(
        self, docs: Sequence[EntryDoc], benign: Sequence[LogBytes] | None
    ) -> Iterable[Problem]:
        compiled = _compiled(docs)
        for doc in docs:
            for number, example in enumerate(doc.entry.examples):
                log = LogBytes(_example_name(doc, number), example.log.encode())
                diagnosis = diagnose_logs(compiled.index, [log], compiled.scanner).diagnosis
                top = diagnosis.findings[0] if diagnosis.findings else None
                if top is not None and top.id == doc.entry.id and top.role == "root-cause":
                    continue
                mine = next((f for f in diagnosis.findings if f.id == doc.entry.id), None)
                if mine is None:
                    message = (
                        f"examples[{number}] does not diagnose to this entry: no line matches "
                        "one of its defining signatures"
                    )
                elif top is not None and mine.role == "collateral":
                    message = (
                        f"examples[{number}] diagnoses to {top.id!r} as the top root cause; "
                        f"this entry comes out as collateral of {', '.join(mine.caused_by)}"
                    )
                else:
                    assert top is not None
                    message = (
                        f"examples[{number}] diagnoses to {top.id!r} as the top root cause "
                        f"(line {top.first.line}), before this entry (line {mine.first.line})"
                    )
                yield doc.problem(self.id, message, ("examples", number, "log"))


@register
class BenignCorpus(IndexCheck):
    """No signature, defining or context, matches a line of the benign corpus.

    The corpus (`corpus/benign/*.log`) holds real healthy output: NCCL start-up, torchrun
    start-up, training progress, nvidia-smi, dmesg boot. Fails: a pattern such as
    `NCCL INFO {*}` that also fires on a healthy start-up line.
    """

    id = "benign-match"

    def check_index(
        self, docs: Sequence[EntryDoc], benign: Sequence[LogBytes] | None
    ) -> Iterable[Problem]:
        if not benign:
            return
        compiled = _compiled(docs)
        by_path = {doc.entry.id: doc for doc in docs}
        for number, log in enumerate(benign):
            hits: dict[int, list[LineMatch]] = {}
            for match in scan_log(compiled.scanner, log, number):
                for sig in match.signatures:
                    hits.setdefault(sig, []).append(match)
            for sig, matches in sorted(hits.items()):
                owner, position = compiled.owners[sig]
                more = f" and {len(matches) - 1} more line(s)" if len(matches) > 1 else ""
                yield by_path[owner].problem(
                    self.id,
                    f"matches healthy log {log.name}:{matches[0].line}{more}: "
                    f"{_quote(matches[0].text)}",
                    ("signatures", position, "pattern"),
                )


@register
class SignatureAmbiguity(IndexCheck):
    """A signature that fires on another entry's example names a relation between the two.

    When neither entry lists the other in `related` (or `collateral`), the overlap is reported
    at the signature: an error for a defining signature, a warning for a context one (context
    lines are shared wrappers by nature and never name a failure alone).
    """

    id = "signature-ambiguity"

    def check_index(
        self, docs: Sequence[EntryDoc], benign: Sequence[LogBytes] | None
    ) -> Iterable[Problem]:
        compiled = _compiled(docs)
        by_id = {doc.entry.id: doc for doc in docs}

        def declared(a: Entry, b: Entry) -> bool:
            return b.id in (*a.related, *a.collateral) or a.id in (*b.related, *b.collateral)

        reported: set[tuple[int, str]] = set()
        for example_owner, number, match in _example_matches(tuple(d.entry for d in docs)):
            for sig in match.signatures:
                owner, position = compiled.owners[sig]
                if owner == example_owner or (sig, example_owner) in reported:
                    continue
                doc = by_id[owner]
                if declared(doc.entry, by_id[example_owner].entry):
                    continue
                reported.add((sig, example_owner))
                role = compiled.index.signatures[sig].role
                yield doc.problem(
                    self.id,
                    f"this {role} signature also matches {example_owner!r} examples[{number}] "
                    f"line {match.line}: {_quote(match.text)}; list the entries as related, "
                    "or make the pattern more specific",
                    ("signatures", position, "pattern"),
                    level=Level.ERROR if role == "defining" else Level.WARNING,
                )
