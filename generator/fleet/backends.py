"""The rules converted by pySigma's maintained backends: one query per entry and engine.

No query string is written here. Each engine gets the entry's Sigma rule in the variant its
backend turns into a line search (`Target`), and the backend writes the query. What a variant
changes, and why, is in `Target.note`; `export` prints these notes and docs/fleet.md lists them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from generator.diagnose.pattern import Run, parse
from generator.fleet.regex import Dialect
from generator.fleet.sigma import RuleSet, defining_patterns, dump_yaml, entry_of, rule_set
from generator.model.entry import Entry


@dataclass(frozen=True)
class Target:
    name: str
    backend: str  # module:class
    field: str | None  # None: an unbound keyword search over the line
    dialect: Dialect
    note: str
    # Characters the backend leaves unescaped in its string literal, written as \xHH instead.
    hex_chars: str = ""


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "loki",
            "sigma.backends.loki:LogQLBackend",
            None,
            "portable",
            "LogQL line filters (`|~`, RE2) over each log line; the stream selector is "
            '`{job=~".+"}`: narrow it to your training jobs\' streams.',
        ),
        Target(
            "elasticsearch",
            "sigma.backends.elasticsearch:LuceneBackend",
            "message",
            "lucene",
            "Lucene regexp queries on `message`, which must be a `keyword` (with `ignore_above` "
            "over your longest line) or `wildcard` field: a Lucene regexp matches a whole "
            "indexed term, so on an analysed `text` field it would match single words.",
        ),
        Target(
            "splunk",
            "sigma.backends.splunk:SplunkBackend",
            "_raw",
            "atomic",
            "`| regex _raw=...` (PCRE, case-sensitive) over every event: Splunk's own search "
            "terms ignore case and split on punctuation, so they are not used.",
        ),
        Target(
            "sqlite",
            "sigma.backends.sqlite:sqliteBackend",
            "message",
            "atomic",
            "`message REGEXP ...` over a table `logs` with one row per line; sqlite needs a "
            "REGEXP function (Python's re, or sqlean's regexp extension).",
        ),
        Target(
            "duckdb",
            "sigma_backend_duckdb:DuckDBBackend",
            "message",
            "portable",
            "`regexp_matches(message, ...)` (RE2) over a table `logs` with one row per line; "
            "the backend does not escape `'`, so the regexes write it as \\x27.",
            hex_chars="'",
        ),
        Target(
            "spark",
            "sigma.backends.databricks:DatabricksBackend",
            "message",
            "atomic",
            "Spark SQL `message rlike ...` (Java regex, Spark's escaped string literals) "
            "over a table with one row per line, as a WHERE condition.",
        ),
    )
}


@dataclass(frozen=True)
class Query:
    entry: str
    title: str
    level: str
    rule_id: str
    query: str
    note: str | None = None  # where this entry's query is not exactly its signatures


@dataclass(frozen=True)
class Converted:
    target: Target
    queries: tuple[Query, ...]
    rules: RuleSet
    # The Loki backend's "ruler" output, one alerting rule per query, when it was asked for.
    ruler: tuple[dict[str, Any], ...] | None = None


def _backend(target: Target) -> Any:
    module, name = target.backend.split(":")
    return getattr(importlib.import_module(module), name)()


def _hexed(rules: RuleSet, chars: str) -> RuleSet:
    def fix(value: str) -> str:
        for ch in chars:
            value = value.replace(ch, f"\\x{ord(ch):02x}")
        return value

    out = []
    for r in rules.rules:
        selection = dict(r["detection"]["selection"])
        selection = {k: [fix(v) for v in values] for k, values in selection.items()}
        out.append({**r, "detection": {**r["detection"], "selection": selection}})
    return RuleSet(tuple(out), rules.skipped)


LUCENE_TOKEN_NOTE = (
    "{token} here also accepts VT, FF and U+001C-U+001F, which the Python engine counts as "
    "space (Lucene cannot name them): it matches more only on lines holding those characters"
)


def _note(entry: Entry, target: Target) -> str | None:
    if target.dialect != "lucene":
        return None
    tokens = [t for p in defining_patterns(entry) for t in parse(p)]
    if any(isinstance(t, Run) and t.cls.non_ascii == "non-space" for t in tokens):
        return LUCENE_TOKEN_NOTE
    return None


def target_rules(entries: Iterable[Entry], site_url: str, target: Target) -> RuleSet:
    rules = rule_set(entries, site_url, field=target.field, dialect=target.dialect)
    return _hexed(rules, target.hex_chars) if target.hex_chars else rules


def convert(entries: Sequence[Entry], site_url: str, target_name: str) -> Converted:
    """Every entry's query for one engine, through its pySigma backend."""
    return convert_many(entries, site_url, (target_name,))[target_name]


def convert_many(
    entries: Sequence[Entry], site_url: str, target_names: Sequence[str], *, ruler: bool = False
) -> dict[str, Converted]:
    """Every entry's query for each of several engines: what `convert` gives for each, and
    with `ruler` (and "loki" among them) the Loki backend's ruler output of the same rules.

    The rules are converted entry by entry, each engine's in turn. pySigma compiles every
    regex of a rule it reads, and Python's re keeps the last 512 compiled patterns: read
    engine by engine, a catalog of a few hundred entries evicts each regex before the next
    engine reads it again, while entry by entry most engines find theirs still compiled.
    """

    targets = [TARGETS[name] for name in target_names]
    rule_sets = [target_rules(entries, site_url, t) for t in targets]
    backends = [_backend(t) for t in targets]
    notes = [{e.id: _note(e, t) for e in entries} for t in targets]
    queries: list[list[Query]] = [[] for _ in targets]
    loki = target_names.index("loki") if ruler else -1
    ruler_backend = _ruler_backend() if ruler else None
    alerts: list[dict[str, Any]] = []
    # Every target's rule set holds the same entries in the same order (rule_set skips the
    # entries with no defining signature, whatever the dialect).
    for rules in zip(*(r.rules for r in rule_sets), strict=True):
        parsed: list[Any] = []
        for k, data in enumerate(rules):
            collection = _parsed(data, rules[:k], parsed)
            parsed.append(collection)
            (query,) = backends[k].convert(collection)
            entry = entry_of(data)
            queries[k].append(
                Query(entry, data["title"], data["level"], data["id"], query, notes[k].get(entry))
            )
            if k == loki and ruler_backend is not None:
                alerts.extend(ruler_backend.convert(collection, "ruler"))
    return {
        t.name: Converted(t, tuple(q), r, tuple(alerts) if t.name == "loki" and ruler else None)
        for t, q, r in zip(targets, queries, rule_sets, strict=True)
    }


def _parsed(data: dict[str, Any], earlier: Sequence[dict[str, Any]], parsed: list[Any]) -> Any:
    """`data` as a SigmaCollection: the one parsed for an earlier engine when that engine's
    rule is the same (sqlite, DuckDB and Spark read the same rule unless a signature holds a
    quote; the Loki ruler reads Loki's), else a new parse. pySigma's parse (which compiles
    every regex) is most of a conversion, and none of these backends' processing pipelines
    changes these rules (DuckDB's sysmon field mapping is for Windows logsources): a parse
    shared between engines gives each the query a parse of its own would
    (tests/fleet/test_sigma.py compares the two on every rule)."""
    from sigma.collection import SigmaCollection

    for j, other in enumerate(earlier):
        if other == data:
            return parsed[j]
    return SigmaCollection.from_dicts([data])


def _ruler_backend() -> Any:
    """The Loki backend, its "ruler" output handed over as data: the rule dicts that it
    would write out as one YAML document."""
    backend = _backend(TARGETS["loki"])
    backend.finalize_output_ruler = list
    return backend


def go_template_text(text: str) -> str:
    """`text` as a Go template that prints it: the ruler expands every label and annotation
    as one, so a title quoting `{{ message['content'] }}` would not load (and the whole group
    with it), and `{{ query "..." }}` would run a query. Only `{{` opens an action."""
    return text.replace("{{", '{{ "{{" }}')


def loki_ruler(
    entries: Sequence[Entry],
    site_url: str,
    group: str = "trainwreck",
    converted: Converted | None = None,
) -> str:
    """A Loki ruler file: one alerting rule per entry, from the backend's ruler output, with
    the entry id, severity and page as labels and annotations. `converted`: the same
    entries' Loki conversion with its ruler output (`convert_many(..., ruler=True)`)."""
    if converted is None or converted.ruler is None:
        converted = convert_many(entries, site_url, ("loki",), ruler=True)["loki"]
    rules, ruled = converted.rules, converted.ruler
    assert ruled is not None
    if len(ruled) != len(rules.rules):
        raise RuntimeError(f"the Loki backend wrote {len(ruled)} of {len(rules.rules)} rules")
    alerts: list[dict[str, Any]] = []
    for data, one in zip(rules.rules, ruled, strict=True):
        entry = entry_of(data)
        labels = {**one.get("labels", {}), "severity": data["level"], "entry": entry}
        annotations = {
            "summary": data["title"],
            "description": data["description"],
            "entry": entry,
            "severity": data["level"],
            "url": data["references"][0],
        }
        alerts.append(
            {
                "alert": entry,
                "expr": one["expr"],
                "labels": {k: go_template_text(v) for k, v in labels.items()},
                "annotations": {k: go_template_text(v) for k, v in annotations.items()},
            }
        )
    return dump_yaml({"groups": [{"name": group, "rules": alerts}]})
