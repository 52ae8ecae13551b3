"""The site's share of the fleet export: each entry's Loki, Elasticsearch and Splunk queries for
its "Monitor it" section, and the full rule sets under /api/rules/.

Both need the `fleet` extra. A build without it has neither, and says so in its log; CI and
the published site install the extra (`make test`, docs/fleet.md). The queries depend only on
an entry's defining signatures, so they are kept by those: a preview save re-converts only the
entry whose signatures changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from generator.fleet.sigma import defining_patterns, rule_set, rule_yaml
from generator.model.entry import Entry
from generator.render.pages import QUERY_TARGETS

MONITOR_TARGETS = (
    ("loki", "Loki (LogQL)"),
    ("elasticsearch", "Elasticsearch (Lucene)"),
    ("splunk", "Splunk (SPL)"),
)
RULES_DIR = "api/rules"


def available() -> bool:
    """Whether pySigma and the backends the site shows are installed."""
    try:
        import sigma.backends.elasticsearch
        import sigma.backends.loki
        import sigma.backends.splunk  # noqa: F401
    except ImportError:
        return False
    return True


Row = tuple[str, str, str, str | None]  # target, label, query, note


@lru_cache(maxsize=4096)
def _queries(entry: Entry) -> tuple[Row, ...]:
    from generator.fleet.backends import convert

    rows: list[Row] = []
    for name, label in MONITOR_TARGETS:
        # The site URL is not part of a query, only of a rule's references.
        (query,) = convert([entry], "https://x/", name).queries
        rows.append((name, label, query.query, query.note))
    return tuple(rows)


def monitor(entry: Entry) -> tuple[Row, ...]:
    """The rows of the entry's section; none when it has no defining signature."""
    if not defining_patterns(entry):
        return ()
    return _queries(entry)


def monitor_for() -> Callable[[Entry], tuple[Row, ...]] | None:
    return monitor if available() else None


@dataclass(frozen=True)
class SiteRules:
    """What a build shows of the fleet export, from one conversion of the whole catalog."""

    files: dict[str, str]  # /api/rules/
    rows: dict[str, tuple[Row, ...]]  # each entry's "Monitor it" rows, by entry id

    def monitor(self, entry: Entry) -> tuple[Row, ...]:
        """`monitor(entry)`, read from the catalog's conversion."""
        return self.rows.get(entry.id, ())


def site_rules(entries: Sequence[Entry], site_url: str) -> SiteRules:
    """/api/rules/ (every Sigma rule in one file, the Loki ruler file, and each engine's
    queries: the documents `trainwreck export` writes) and the entries' "Monitor it" rows.

    Each engine's rules are converted once, for both: an entry's query does not depend on
    the site URL or on the other entries converted with it."""
    from generator.fleet.backends import convert_many, loki_ruler
    from generator.fleet.export import queries_document

    converted = convert_many(entries, site_url, QUERY_TARGETS, ruler=True)
    rules = rule_set(entries, site_url)
    files = {
        f"{RULES_DIR}/sigma.yml": "---\n".join(rule_yaml(r) for r in rules.rules),
        f"{RULES_DIR}/loki-rules.yaml": loki_ruler(entries, site_url, converted=converted["loki"]),
    }
    for target in QUERY_TARGETS:
        document = queries_document(entries, site_url, target, converted[target])
        files[f"{RULES_DIR}/{target}.json"] = (
            json.dumps(document, indent=1, ensure_ascii=False) + "\n"
        )
    by_entry = {name: {q.entry: q for q in converted[name].queries} for name, _ in MONITOR_TARGETS}
    rows = {
        e.id: tuple(
            (name, label, by_entry[name][e.id].query, by_entry[name][e.id].note)
            for name, label in MONITOR_TARGETS
        )
        for e in entries
        if e.id in by_entry["loki"]
    }
    return SiteRules(files, rows)


def rule_files(entries: Sequence[Entry], site_url: str) -> dict[str, str]:
    """/api/rules/ alone (see `site_rules`)."""
    return site_rules(entries, site_url).files
