"""The Sigma export: pySigma loads every rule without an error, each rule carries its entry's
metadata and exactly its defining signatures, and every regex dialect means what the
signature means (Python's re, RE2 and the Lucene translation against the engine's matcher)."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.cli import main
from generator.diagnose.pattern import Matcher
from generator.fleet.evaluate import lucene_regexp
from generator.fleet.regex import LUCENE_TOKEN_EXTRA, signature_regex
from generator.fleet.sigma import RULE_NAMESPACE, rule_id, rule_set
from generator.model.entry import Role
from tests.fleet.corpus import SITE, Corpus

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SKIPPED = {
    "accelerate-kernel-version-warning",
    "c10d-destroy-process-group-warning",
    "c10d-ipv6-gai-warning",
    "c10d-unknown-device-id-warning",
    "ds-invalidate-trace-cache-noise",
    "nccl-net-plugin-not-found-noise",
    "tokenizers-fork-warning",
    "torchrun-omp-threads-warning",
}
NOISE = "it is noise, never a cause, so nothing to alert on"
# Each skipped entry's signatures: harmless ones, and the context lines that go with some.
HAVE = {e: "only harmless signatures" for e in SKIPPED} | {
    "tokenizers-fork-warning": "only context and harmless signatures"
}
# Entries that only the numbers in progress lines show (codes.progress): no line to query for.
NUMBERS = {
    "loss-divergence",
    "loss-spike",
    "training-slowdown-straggler",
    "training-stall-no-progress",
}
NUMBERS_WHY = "no signatures: the numbers in progress lines show it, no line query can"
WHY = {e: f"{HAVE[e]}: {NOISE}" for e in SKIPPED} | dict.fromkeys(NUMBERS, NUMBERS_WHY)
NOT_EXPORTED = SKIPPED | NUMBERS


def test_rule_ids_are_uuid5_of_the_entry_id() -> None:
    # Fixed forever: a changed namespace would give every rule a new id.
    assert uuid.UUID("cd5345d8-9bef-507b-9cf5-8e9b1502229b") == RULE_NAMESPACE
    assert rule_id("cuda-out-of-memory") == str(uuid.uuid5(RULE_NAMESPACE, "cuda-out-of-memory"))
    assert uuid.UUID(rule_id("cuda-out-of-memory")).version == 5


def test_export_sigma_loads_in_pysigma(corpus: Corpus, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from sigma.collection import SigmaCollection
    from sigma.rule import SigmaLevel

    out = tmp_path / "export"
    assert main(["export", "sigma", "--out", str(out), "--base-url", SITE]) == 0
    err = capsys.readouterr().err.splitlines()
    exported = len(corpus.entries) - len(NOT_EXPORTED)
    assert err == [
        *(f"trainwreck: skipped {e}: {WHY[e]}" for e in sorted(NOT_EXPORTED)),
        f"{exported} rule(s), {len(NOT_EXPORTED)} entr(ies) skipped; "
        f"wrote {exported} file(s) under {out.as_posix()}/sigma/",
    ]
    files = sorted((out / "sigma").glob("*.yml"))
    by_id = {e.id: e for e in corpus.entries}
    assert {f.stem for f in files} == set(by_id) - NOT_EXPORTED
    collection = SigmaCollection.load_ruleset([str(f) for f in files], collect_errors=True)
    assert collection.errors == []
    assert len(collection.rules) == len(files)
    for path, rule in zip(
        files, sorted(collection.rules, key=lambda r: r.references[0]), strict=True
    ):
        entry = by_id[path.stem]
        assert rule.errors == []
        assert str(rule.id) == rule_id(entry.id)
        assert rule.title == " ".join(entry.title.split())
        assert rule.description == " ".join(entry.summary.split())
        assert rule.references == [
            f"{SITE}failures/{entry.id}/",
            *(r.url for r in entry.references),
        ]
        assert [str(t) for t in rule.tags] == [f"trainwreck.{t}" for t in entry.tags] + [
            f"trainwreck.category-{entry.category}"
        ]
        assert rule.level == SigmaLevel[entry.severity.value.upper()]
        assert rule.logsource.category == "application"
        assert rule.logsource.product == "ml-training"
        assert rule.falsepositives[0].startswith("A log that quotes the message")
        (detection,) = rule.detection.detections.values()
        (item,) = detection.detection_items
        assert item.field is None  # keywords: a search of the whole line
        regexes = [v.regexp.original for v in item.value]
        assert regexes == [
            signature_regex(s.pattern) for s in entry.signatures if s.role == Role.DEFINING
        ]


def test_refined_entries_name_their_refinements_as_false_positives(corpus: Corpus) -> None:
    rules = {r["references"][0]: r for r in rule_set(corpus.entries, SITE).rules}
    refines = [(e.id, e.refines) for e in corpus.entries if e.refines]
    assert refines, "the catalog has refinements"
    for child, parent in refines:
        text = rules[f"{SITE}failures/{parent}/"]["falsepositives"]
        assert (
            f"Lines of {child}, which refines this entry: the diagnosis names {child} for them"
            in text
        )


def test_backends_convert_every_rule(corpus: Corpus) -> None:
    from generator.fleet.backends import TARGETS, convert

    for target in TARGETS:
        converted = convert(corpus.entries, SITE, target)
        assert len(converted.queries) == len(corpus.entries) - len(NOT_EXPORTED)
        assert {s.entry for s in converted.rules.skipped} == NOT_EXPORTED


def test_loki_ruler_has_the_entry_severity_and_url(corpus: Corpus) -> None:
    from generator.fleet.backends import convert, loki_ruler

    ruler = yaml.safe_load(loki_ruler(corpus.entries, SITE))
    queries = {q.entry: q for q in convert(corpus.entries, SITE, "loki").queries}
    (group,) = ruler["groups"]
    assert [r["alert"] for r in group["rules"]] == sorted(queries)
    by_id = {e.id: e for e in corpus.entries}
    for alert in group["rules"]:
        entry = by_id[alert["alert"]]
        assert alert["annotations"]["entry"] == entry.id
        assert alert["annotations"]["severity"] == entry.severity.value
        assert alert["annotations"]["url"] == f"{SITE}failures/{entry.id}/"
        assert alert["labels"]["severity"] == entry.severity.value
        # The alert counts the very lines the plain query selects.
        assert (
            alert["expr"]
            == f"sum(count_over_time({queries[entry.id].query} [1m])) or vector(0) > 0"
        )


# Lines drawn from every class's members and their neighbours, and the spaces {token} refuses.
_ALPHABET = st.sampled_from(
    list(
        "aAfFgxX09:.-_ /\\[](){}*+?|^$'\"`\t\x0b\x0c\r\x1c\x1f\x85\xa0\u1680\u2000\u2028\u3000é€😀"
    )
)
_PATTERNS = [
    "error=74 : {int} at {hex} in {pci} by {word} of {token} is {num} then {*} end",
    "literal [x] (y) {{z}} a.b*c+d?e|f^g$h \\ i",
    "THCudaCheck FAIL file={token} line={int}",
    "NCCL WARN {*}failed",
]


@pytest.mark.parametrize("pattern", _PATTERNS)
@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.text(_ALPHABET, max_size=6), min_size=1, max_size=8))
def test_dialects_match_what_the_matcher_matches(pattern: str, parts: list[str]) -> None:
    import re2

    matcher = Matcher(pattern)
    # Splice the pattern's literals with random text, so that matches are common.
    literals = matcher.literals
    line = "".join(p + (literals[i % len(literals)] if i % 2 else "") for i, p in enumerate(parts))
    want = matcher.search(line)
    portable = signature_regex(pattern)
    assert (re.search(portable, line) is not None) == want
    assert (re2.search(portable, line) is not None) == want
    lucene = re.fullmatch(lucene_regexp(signature_regex(pattern, "lucene")), line, re.DOTALL)
    if any(ord(c) in LUCENE_TOKEN_EXTRA for c in line) and "{token}" in pattern:
        assert lucene is not None or not want  # more, never less (the reported difference)
    else:
        assert (lucene is not None) == want


def test_lucene_token_takes_the_control_spaces_and_says_so(corpus: Corpus) -> None:
    from generator.fleet.backends import LUCENE_TOKEN_NOTE, convert

    pattern = "THCudaCheck FAIL file={token} line={int}"
    lucene = lucene_regexp(signature_regex(pattern, "lucene"))
    for ch in "\x0b\x0c\x1c\x1d\x1e\x1f":
        line = f"THCudaCheck FAIL file=a{ch}b line=84"
        assert not Matcher(pattern).search(line)
        assert re.fullmatch(lucene, line, re.DOTALL)
    for ch in "\t \x85\xa0\u1680\u2000\u3000":
        assert not re.fullmatch(lucene, f"THCudaCheck FAIL file=a{ch}b line=84", re.DOTALL)
    noted = {q.entry for q in convert(corpus.entries, SITE, "elasticsearch").queries if q.note}
    with_token = {
        e.id
        for e in corpus.entries
        if any("{token}" in s.pattern for s in e.signatures if s.role == Role.DEFINING)
    }
    assert noted == with_token
    assert all(
        q.note == LUCENE_TOKEN_NOTE
        for q in convert(corpus.entries, SITE, "elasticsearch").queries
        if q.note
    )
    assert not any(q.note for q in convert(corpus.entries, SITE, "loki").queries)


def test_export_elasticsearch_names_every_skip_and_inexact_entry(
    corpus: Corpus,
    tmp_path: Path,
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    import json

    from generator.fleet.backends import LUCENE_TOKEN_NOTE, TARGETS

    out = tmp_path / "export"
    assert main(["export", "elasticsearch", "--out", str(out), "--base-url", SITE]) == 0
    err = capsys.readouterr().err.splitlines()
    document = json.loads((out / "elasticsearch" / "queries.json").read_text(encoding="utf-8"))
    noted = [q["entry"] for q in document["queries"] if q["note"]]
    exported = len(corpus.entries) - len(NOT_EXPORTED)
    assert err == [
        *(f"trainwreck: skipped {e}: {WHY[e]}" for e in sorted(NOT_EXPORTED)),
        *(f"trainwreck: note: {e}: {LUCENE_TOKEN_NOTE}" for e in noted),
        f"trainwreck: note: {TARGETS['elasticsearch'].note}",
        f"{exported} rule(s), {len(NOT_EXPORTED)} entr(ies) skipped; "
        f"wrote 2 file(s) under {out.as_posix()}/elasticsearch/",
    ]
    assert noted
    assert len(document["queries"]) == exported
    assert sorted(p.name for p in (out / "elasticsearch").iterdir()) == [
        "queries.json",
        "queries.txt",
    ]


def test_dump_yaml_writes_what_the_python_emitter_writes(corpus: Corpus) -> None:
    """libyaml's emitter (dump_yaml) writes every rule and the ruler file as PyYAML's own, but
    for where it folds a double-quoted string (one holding a line separator, escaped): at a
    space, without the `\\` PyYAML writes there. Both read back as the same rule."""
    from generator.fleet.backends import loki_ruler
    from generator.fleet.sigma import dump_yaml, rule_set, yaml_dumper

    def python(data: object) -> str:
        dumper = yaml_dumper(yaml.SafeDumper)
        return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100)

    rules = rule_set(corpus.entries, SITE).rules
    ruler = loki_ruler(corpus.entries, SITE)
    pairs = [(dump_yaml(r), python(r)) for r in rules] + [(ruler, python(yaml.safe_load(ruler)))]
    folded = [fast for fast, slow in pairs if fast != slow]
    assert folded, "some rules hold {token}, whose class names U+2028 and U+2029"
    for fast, slow in pairs:
        if fast != slow:
            assert "\\L-\\P" in fast
        assert yaml.safe_load(fast) == yaml.safe_load(slow)
    assert [yaml.safe_load(dump_yaml(r)) for r in rules] == list(rules)


def test_convert_many_is_convert_per_target(corpus: Corpus) -> None:
    """Converted entry by entry for every engine at once, each engine gets what it gets alone,
    and the Loki ruler output made alongside is the one loki_ruler makes by itself."""
    from sigma.collection import SigmaCollection

    from generator.fleet.backends import TARGETS, _ruler_backend, convert, convert_many, loki_ruler

    names = tuple(TARGETS)
    together = convert_many(corpus.entries, SITE, names, ruler=True)
    assert list(together) == list(names)
    for name in names:
        alone = convert(corpus.entries, SITE, name)
        assert (together[name].queries, together[name].rules) == (alone.queries, alone.rules)
    assert together["loki"].ruler is not None
    assert len(together["loki"].ruler) == len(together["loki"].queries)
    # The engines share a parse where their rules are the same (sqlite, DuckDB and Spark; Loki
    # and its ruler): the ruler output is still what a parse of each rule of its own gives.
    fresh = _ruler_backend()
    assert together["loki"].ruler == tuple(
        alert
        for data in together["loki"].rules.rules
        for alert in fresh.convert(SigmaCollection.from_dicts([data]), "ruler")
    )
    assert loki_ruler(corpus.entries, SITE, converted=together["loki"]) == loki_ruler(
        corpus.entries, SITE
    )
