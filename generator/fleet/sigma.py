"""One Sigma rule per entry, built from its defining signatures: plain data, no pySigma.

A rule fires on a log line exactly when one of the entry's defining signatures matches that
line, as the Python engine decides it: each signature becomes one `|re` value (case-sensitive
in Sigma, as signatures are) in the portable dialect of `regex.py`. Context and harmless
signatures are left out, since neither names the failure by itself; an entry with no defining
signature has no rule and is reported as skipped.

Rules are unbound keyword searches over the whole line (`keywords: {'|re': [...]}`): a
training log line has no fields. Backends whose keyword search is not a line search get the
same regexes on the field that holds the line (`variant`).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from generator.fleet.regex import Dialect, pattern_export_problems, signature_regex
from generator.model.entry import Entry, Role

# uuid5 namespace of every rule id: uuid5(NAMESPACE_URL, "https://trainwreck.dev/sigma").
# Fixed forever, so an entry keeps its rule id across releases and machines.
RULE_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://trainwreck.dev/sigma")
LOGSOURCE = {"category": "application", "product": "ml-training"}
LEVELS = {"critical": "critical", "high": "high", "medium": "medium", "low": "low"}
QUOTED_FALSE_POSITIVE = (
    "A log that quotes the message without the failure happening (a test suite, a tutorial)"
)


def rule_id(entry_id: str) -> str:
    return str(uuid.uuid5(RULE_NAMESPACE, entry_id))


@dataclass(frozen=True)
class Skipped:
    entry: str
    reason: str


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[dict[str, Any], ...]  # in entry id order
    skipped: tuple[Skipped, ...]


def defining_patterns(entry: Entry) -> list[str]:
    return [s.pattern for s in entry.signatures if s.role == Role.DEFINING]


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def rule(
    entry: Entry,
    site_url: str,
    refined_by: Sequence[str] = (),
    *,
    field: str | None = None,
    dialect: Dialect = "portable",
) -> dict[str, Any]:
    """The entry's Sigma rule; `field` and `dialect` make a backend's variant of it."""
    regexes = [signature_regex(p, dialect) for p in defining_patterns(entry)]
    if field is None:
        detection: dict[str, Any] = {"keywords": {"|re": regexes}, "condition": "keywords"}
    else:
        detection = {"selection": {f"{field}|re": regexes}, "condition": "selection"}
    false_positives = [QUOTED_FALSE_POSITIVE]
    false_positives += [
        f"Lines of {other}, which refines this entry: the diagnosis names {other} for them"
        for other in refined_by
    ]
    return {
        "title": _one_line(entry.title),
        "id": rule_id(entry.id),
        "status": "experimental",
        "description": _one_line(entry.summary),
        "references": [f"{site_url}failures/{entry.id}/", *(r.url for r in entry.references)],
        "author": "Trainwreck contributors",
        "date": entry.last_reviewed.isoformat(),
        "tags": [f"trainwreck.{tag}" for tag in entry.tags]
        + [f"trainwreck.category-{entry.category}"],
        "logsource": dict(LOGSOURCE),
        "detection": detection,
        "falsepositives": false_positives,
        "level": LEVELS[entry.severity.value],
    }


def rule_set(
    entries: Iterable[Entry],
    site_url: str,
    *,
    field: str | None = None,
    dialect: Dialect = "portable",
) -> RuleSet:
    ordered = sorted(entries, key=lambda e: e.id)
    refined_by: dict[str, list[str]] = {}
    for e in ordered:
        if e.refines:
            refined_by.setdefault(e.refines, []).append(e.id)
    rules: list[dict[str, Any]] = []
    skipped: list[Skipped] = []
    for e in ordered:
        # Refused by `validate` (signature-export); `export` reads entries that merely load.
        unbounded = [m for p in defining_patterns(e) for m in pattern_export_problems(p)]
        if unbounded:
            skipped.append(Skipped(e.id, f"a signature has no linear query: {unbounded[0]}"))
            continue
        if not defining_patterns(e):
            roles = sorted({s.role.value for s in e.signatures})
            have = f"only {' and '.join(roles)} signatures" if roles else "no signatures"
            if "harmless" in roles:
                why = f"{have}: it is noise, never a cause, so nothing to alert on"
            elif e.codes.progress and not roles:
                why = "no signatures: the numbers in progress lines show it, no line query can"
            else:
                why = f"no defining signature ({have}), so no line names it"
            skipped.append(Skipped(e.id, why))
            continue
        rules.append(rule(e, site_url, refined_by.get(e.id, ()), field=field, dialect=dialect))
    return RuleSet(tuple(rules), tuple(skipped))


def entry_of(rule_data: dict[str, Any]) -> str:
    """The entry id of a rule, from its first reference (the entry's page)."""
    first: str = rule_data["references"][0]
    return first.rstrip("/").rsplit("/", 1)[-1]


def rule_yaml(rule_data: dict[str, Any]) -> str:
    return dump_yaml(rule_data)


# YAML 1.1 line breaks that editors and some readers do not take for one: written raw, a
# reader that keeps them as text (js-yaml) reads the indentation after them into the value,
# which turns {token}'s class (it names U+2028-U+2029) into a wider range.
_SEPARATORS = frozenset("\x85\u2028\u2029")


def yaml_dumper(base: Any) -> Any:
    """`base` (a PyYAML safe dumper class), writing a string that holds a line separator
    double-quoted, the one style in which the emitters escape it (\\N, \\L, \\P)."""

    class Dumper(base):  # type: ignore[misc]
        pass

    def text(dumper: Any, value: str) -> Any:
        style = '"' if _SEPARATORS.intersection(value) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return Dumper


def dump_yaml(data: Any) -> str:
    """`yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)` with line
    separators escaped (`yaml_dumper`), through libyaml's emitter when PyYAML has it: the same
    text (tests/fleet/test_sigma.py compares the two on every rule), about eight times as
    fast, which at 1,000 entries is seconds of a build."""
    import yaml

    return yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)


@lru_cache(maxsize=1)
def _dumper() -> Any:
    import yaml

    return yaml_dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper))
