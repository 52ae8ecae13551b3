"""The `refines` relation: one entry is a special case of another, seen on the same lines."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from generator.checks.base import Check, EntryDoc, register
from generator.diagnose.pattern import Matcher, PatternError
from generator.model.entry import Entry
from generator.problems import Problem


def _defining(entry: Entry) -> list[Matcher]:
    matchers: list[Matcher] = []
    for sig in entry.signatures:
        if sig.role.value != "defining":
            continue
        try:
            matchers.append(Matcher(sig.pattern))
        except PatternError:
            continue  # the pattern's own check reports it
    return matchers


@register
class Refines(Check):
    """`refines` names another existing entry, the chain of refinements has no cycle, and the
    refinement is seen on a real line: some line of the refining entry's examples is matched by
    a defining signature of each entry. Triage folds the general entry into the specific one
    on exactly such lines (docs/diagnose.md); a specific entry may also have lines of its own
    (cudaErrorSystemNotReady outside NCCL), so not every line has to be shared.

    Passes: `cuda-oom-fragmentation` refines `cuda-out-of-memory`: its `... GiB is reserved by
    PyTorch but unallocated.` lines are OOM lines. Fails: `refines: nan-loss` there (no example
    line is both), `refines` naming the entry itself, or A refines B refines A.
    """

    id = "refines"

    def finalize(self, docs: Sequence[EntryDoc], failed_ids: frozenset[str]) -> Iterable[Problem]:
        by_id = {doc.entry.id: doc for doc in docs}
        for doc in docs:
            entry = doc.entry
            target = entry.refines
            if target is None:
                continue
            if target == entry.id:
                yield doc.problem(self.id, "refines names the entry itself", ("refines",))
                continue
            if target not in by_id:
                if target not in failed_ids:
                    yield doc.problem(
                        self.id, f"refines names unknown entry {target!r}", ("refines",)
                    )
                continue
            chain = [entry.id, target]
            step = by_id[target].entry.refines
            while step is not None and step in by_id and step not in chain:
                chain.append(step)
                step = by_id[step].entry.refines
            if step == entry.id:
                yield doc.problem(
                    self.id,
                    "refines makes a cycle: " + " -> ".join([*chain, step]),
                    ("refines",),
                )
                continue
            yield from self._same_lines(doc, by_id[target].entry)

    def _same_lines(self, doc: EntryDoc, general: Entry) -> Iterable[Problem]:
        mine, theirs = _defining(doc.entry), _defining(general)
        for example in doc.entry.examples:
            for line in example.log.splitlines():
                if any(m.search(line) for m in mine) and any(m.search(line) for m in theirs):
                    return
        yield doc.problem(
            self.id,
            f"no line of this entry's examples is matched by a defining signature of both this "
            f"entry and {general.id!r}, which it refines; add an example with the line they "
            "share, or drop refines",
            ("refines",),
        )
