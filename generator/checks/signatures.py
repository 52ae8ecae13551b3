"""Two-sided signature checks: every example names its entry, and no signature fires on health.

These run on the compiled index, so they see only entries that passed every other check (an
index cannot be keyed by a duplicate id or follow a relation to an entry that does not exist);
an entry with other errors is checked here again once those are fixed. They mirror Sigma's
regression and goodlog runs and elastic-recheck's rule that a fingerprint must not fire on
successful jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from generator.checks.base import Check, EntryDoc, register
from generator.diagnose.engine import LogBytes, log_trends, scan_log
from generator.diagnose.index import SignatureIndex, build_index
from generator.diagnose.scan import LineMatch, Scanner
from generator.diagnose.trend_findings import with_trends
from generator.diagnose.triage import Tally, triage
from generator.model.entry import Entry, Role
from generator.problems import Level, Problem

SHOWN = 100


class IndexCheck(Check):
    """A check on the compiled signature index, given the benign log corpus when there is one."""

    phase = "index"

    def check_index(
        self, docs: Sequence[EntryDoc], benign: Sequence[LogBytes] | None
    ) -> Iterable[Problem]:
        return ()


_ExamplesKey = tuple[str, tuple[str, ...]]
_T = TypeVar("_T")


def _kept(store: dict[_ExamplesKey, _T], entry: Entry, compute: Callable[[], _T]) -> _T:
    """`compute()` for this entry's examples, from `store` when they were seen before."""
    key = (entry.id, tuple(example.log for example in entry.examples))
    if key not in store:
        store[key] = compute()
    return store[key]


@dataclass(frozen=True)
class _Compiled:
    index: SignatureIndex
    scanner: Scanner
    # owner entry id and position of every signature, by signature number
    owners: tuple[tuple[str, int], ...]
    # Each entry's example matches and verdicts, by (entry id, example logs): the preview asks
    # again after every save, and with the signatures unchanged only an edited example needs
    # a new scan.
    _matches: dict[_ExamplesKey, tuple[tuple[int, LineMatch], ...]] = field(
        default_factory=dict, compare=False
    )
    _verdicts: dict[_ExamplesKey, tuple[tuple[int, str], ...]] = field(
        default_factory=dict, compare=False
    )

    def example_matches(self, entry: Entry) -> tuple[tuple[int, LineMatch], ...]:
        """Every matched line of the entry's examples, with the example's number."""
        return _kept(
            self._matches,
            entry,
            lambda: tuple(
                (number, match)
                for number, example in enumerate(entry.examples)
                for match in scan_log(
                    self.scanner, LogBytes(_example_name(entry, number), example.log.encode())
                )
            ),
        )

    def example_verdicts(self, entry: Entry) -> tuple[tuple[int, str], ...]:
        """Why each of the entry's examples that does not diagnose to it fails, by number."""
        # Both checks read both of an entry's results. Scanned one after the other, its
        # examples' lines are still in the scanner's cache of line readings (4,096 lines) for
        # the second scan; scanned a whole catalog apart, from about 1,500 entries on they
        # were not, and every line was read twice.
        matches = self.example_matches(entry)
        return _kept(
            self._verdicts,
            entry,
            lambda: tuple(
                (number, message)
                for number in range(len(entry.examples))
                if (message := self._verdict(entry, number, matches)) is not None
            ),
        )

    def _verdict(
        self, entry: Entry, number: int, matches: tuple[tuple[int, LineMatch], ...]
    ) -> str | None:
        # The example's diagnosis, from the lines its scan matched: what diagnose_logs gives
        # for it alone (its scan is the same one, under the same name), without scanning it
        # a second time.
        tally = Tally(self.index).add_all(m for n, m in matches if n == number)
        log = LogBytes(_example_name(entry, number), entry.examples[number].log.encode())
        diagnosis = with_trends(triage(tally), log_trends(log), self.index)
        roles = [s.role for s in entry.signatures if s.role is not Role.CONTEXT]
        if roles and all(role is Role.HARMLESS for role in roles):
            # An entry about a harmless line: its example shows the line, named as not the cause.
            if any(f.id == entry.id for f in diagnosis.not_the_cause):
                return None
            return (
                f"examples[{number}] does not show this entry as not the cause: no line "
                "matches one of its harmless signatures"
            )
        top = diagnosis.findings[0] if diagnosis.findings else None
        if top is not None and top.id == entry.id and top.role == "root-cause":
            return None
        mine = next((f for f in diagnosis.findings if f.id == entry.id), None)
        if mine is None:
            return (
                f"examples[{number}] does not diagnose to this entry: no line matches "
                "one of its defining signatures"
                + (", and its progress lines show none of " + ", ".join(entry.codes.progress))
                * bool(entry.codes.progress)
            )
        if top is not None and mine.role == "collateral":
            return (
                f"examples[{number}] diagnoses to {top.id!r} as the top root cause; "
                f"this entry comes out as collateral of {', '.join(mine.caused_by)}"
            )
        assert top is not None
        return (
            f"examples[{number}] diagnoses to {top.id!r} as the top root cause "
            f"(line {top.first.line}), before this entry (line {mine.first.line})"
        )


def _compile(entries: Sequence[Entry]) -> _Compiled:
    index = SignatureIndex(build_index(entries))
    position: dict[str, int] = {}
    owners = []
    for sig in index.signatures:
        owners.append((sig.entry, position.get(sig.entry, 0)))
        position[sig.entry] = position.get(sig.entry, 0) + 1
    return _Compiled(index, Scanner(index), tuple(owners))


# What these checks' results depend on: ids, relations and signatures, not titles or prose.
_MatchingKey = tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]], ...]
_COMPILED: dict[_MatchingKey, _Compiled] = {}
_COMPILED_KEPT = 4


def _compiled(docs: Sequence[EntryDoc]) -> _Compiled:
    """The index of `docs`, compiled once for as long as their signatures and relations stay
    the same. Its display fields (titles, quick fixes) may be from an earlier edit; nothing
    here reads them."""
    entries = [doc.entry for doc in docs]
    key: _MatchingKey = tuple(
        (e.id, e.related, e.collateral, tuple((s.pattern, s.role.value) for s in e.signatures))
        for e in entries
    )
    compiled = _COMPILED.pop(key, None) or _compile(entries)
    _COMPILED[key] = compiled  # most recently used last
    while len(_COMPILED) > _COMPILED_KEPT:
        del _COMPILED[next(iter(_COMPILED))]
    return compiled


def _example_name(entry: Entry, number: int) -> str:
    return f"{entry.id} examples[{number}]"


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
            for number, message in compiled.example_verdicts(doc.entry):
                yield doc.problem(self.id, message, ("examples", number, "log"))


@register
class BenignCorpus(IndexCheck):
    """No signature, defining or context, matches a line of the benign corpus.

    Harmless signatures are exempt: they describe noise that healthy runs print too.

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
                    if compiled.index.signatures[sig].role != "harmless":
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
    lines are shared wrappers by nature and never name a failure alone). Harmless signatures
    are exempt: noise turns up beside every kind of failure.
    """

    id = "signature-ambiguity"

    def check_index(
        self, docs: Sequence[EntryDoc], benign: Sequence[LogBytes] | None
    ) -> Iterable[Problem]:
        compiled = _compiled(docs)
        by_id = {doc.entry.id: doc for doc in docs}

        def declared(a: Entry, b: Entry) -> bool:
            return (
                b.id in (*a.related, *a.collateral)
                or a.id in (*b.related, *b.collateral)
                or a.refines == b.id
                or b.refines == a.id
            )

        reported: set[tuple[int, str]] = set()
        matches = (
            (doc.entry.id, number, match)
            for doc in docs
            for number, match in compiled.example_matches(doc.entry)
        )
        for example_owner, number, match in matches:
            for sig in match.signatures:
                owner, position = compiled.owners[sig]
                if owner == example_owner or (sig, example_owner) in reported:
                    continue
                if compiled.index.signatures[sig].role == "harmless":
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
