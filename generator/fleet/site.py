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


def rule_files(entries: Sequence[Entry], site_url: str) -> dict[str, str]:
    """/api/rules/: every Sigma rule in one file, the Loki ruler file, and each engine's
    queries (the documents `trainwreck export` writes)."""
    from generator.fleet.backends import loki_ruler
    from generator.fleet.export import queries_document

    rules = rule_set(entries, site_url)
    files = {
        f"{RULES_DIR}/sigma.yml": "---\n".join(rule_yaml(r) for r in rules.rules),
        f"{RULES_DIR}/loki-rules.yaml": loki_ruler(entries, site_url),
    }
    for target in QUERY_TARGETS:
        document = queries_document(entries, site_url, target)
        files[f"{RULES_DIR}/{target}.json"] = (
            json.dumps(document, indent=1, ensure_ascii=False) + "\n"
        )
    return files
