"""Signatures that every exported query can run in time linear in the line.

`trainwreck export` writes each signature for Python's re (sqlite), Java (Spark) and PCRE
(Splunk), which backtrack, in a form that reads each line in linear time
(`generator/fleet/regex.py`, `atomic_regex`). A few shapes have no such form; they are
refused here, so that no entry can give a log engine a query it stalls on.
"""

from __future__ import annotations

from collections.abc import Iterable

from generator.checks.base import Check, EntryDoc, register
from generator.diagnose.pattern import PatternError, parse
from generator.fleet.regex import export_problems
from generator.model.entry import Role
from generator.problems import Problem


@register
class SignatureExport(Check):
    """Every defining signature's exported queries run in time linear in the line.

    Passes: `pdsh@{token}: {token}: ssh exited with exit code {int}`, and any number of `{*}`.
    Fails: `{int}{word}` (two placeholders in a row), `x{int}ab{token}: y` (`ab` is all
    `{token}` characters and follows another placeholder), `x{token}'{int}` (the `'` after
    `{token}` is a `{token}` character and more follows before a `{*}` or the end).
    """

    id = "signature-export"

    def validate(self, doc: EntryDoc) -> Iterable[Problem]:
        for i, signature in enumerate(doc.entry.signatures):
            if signature.role != Role.DEFINING:
                continue  # only defining signatures are exported
            try:
                tokens = parse(signature.pattern)
            except PatternError:
                continue  # the schema reports it
            for message in export_problems(tokens):
                yield doc.problem(self.id, message, ("signatures", i, "pattern"))
