"""Issue 39, defects 4 and 9: entry text in the exported YAML files. Line separators (U+2028,
U+2029, U+0085) are written escaped, so a reader that keeps them as text (js-yaml) reads the
same rule; and no entry text reaches Loki's Go templates, which every rule file's annotations
are expanded with: Prometheus's own rule parser (promtool) accepts every rule file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.cli import main
from generator.fleet.regex import signature_regex
from generator.fleet.sigma import rule_set
from generator.model.entry import Entry, Role, Signature
from tests.fleet.corpus import SITE, Corpus

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
BREAKS = "\x85\u2028\u2029"


def _entry(corpus: Corpus, **changes: object) -> Entry:
    base = next(e for e in corpus.entries if e.id == "cuda-misaligned-address")
    return base.model_copy(update=changes)


def test_line_separators_are_written_escaped(corpus: Corpus) -> None:
    from generator.fleet.backends import loki_ruler

    seen_in = "https://github.com/pytorch/pytorch"
    entry = _entry(
        corpus,
        title="CUDA error:\u2028misaligned\u2029address\x85",
        summary="A kernel\u2028read an address\u2029not aligned\x85to its type.",
        signatures=(
            Signature(
                pattern="misaligned\u2028address {token} here", role=Role.DEFINING, seen_in=seen_in
            ),
        ),
    )
    (rule,) = rule_set([entry], SITE).rules
    from generator.fleet.sigma import rule_yaml

    written = {"sigma": rule_yaml(rule), "loki": loki_ruler([entry], SITE)}
    for name, text in written.items():
        assert not set(text) & set(BREAKS), name
    # Read back, the same text: {token}'s class names the separators as escapes.
    assert yaml.safe_load(written["sigma"]) == rule
    # Titles and summaries are one line: the separators are spaces there.
    assert (rule["title"], rule["description"]) == (
        "CUDA error: misaligned address",
        "A kernel read an address not aligned to its type.",
    )
    assert rule["detection"]["keywords"]["|re"] == [
        signature_regex("misaligned\u2028address {token} here")
    ]
    (alert,) = yaml.safe_load(written["loki"])["groups"][0]["rules"]
    assert alert["annotations"]["summary"] == rule["title"]


# promtool reads `expr` as PromQL; a Loki rule's is LogQL (checked by the LogQL evaluator in
# tests/fleet/test_engines.py), so it is swapped for a PromQL one that always fires.
FIRES = "vector(1)"
GO_TEMPLATES = {
    "title": "Chat template fails on {{ message['content'] }}",
    "summary": 'A summary that quotes {{ query "up" }}, {{- $labels }} and {{{{ nested }}}}.',
}


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.fail("Debian's prometheus (promtool) is not installed; `make test` installs it")
    return found


def _promql(ruler_text: str) -> dict[str, Any]:
    ruler: dict[str, Any] = yaml.safe_load(ruler_text)
    for group in ruler["groups"]:
        for rule in group["rules"]:
            rule["expr"] = FIRES
    return ruler


def _check_rules(path: Path, ruler_text: str) -> None:
    path.write_text(yaml.safe_dump(_promql(ruler_text), allow_unicode=True), encoding="utf-8")
    done = subprocess.run(
        [_promtool(), "check", "rules", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(yaml.safe_load(ruler_text)['groups'][0]['rules'])} rules found" in (
        done.stdout + done.stderr
    )


def test_entry_text_reaches_alerts_as_text_not_go_templates(corpus: Corpus, tmp_path: Path) -> None:
    """Prometheus's own rule tester expands each annotation as Loki's ruler does: every one is
    the entry's text, byte for byte, and nothing in it ran."""
    from generator.fleet.backends import loki_ruler

    entry = _entry(corpus, **GO_TEMPLATES)
    site = "https://trainwreck.example/{{ $value }}/"
    ruler_text = loki_ruler([entry], site)
    _check_rules(tmp_path / "check.yaml", ruler_text)
    (rule,) = _promql(ruler_text)["groups"][0]["rules"]
    (tmp_path / "rules.yaml").write_text(
        yaml.safe_dump({"groups": [{"name": "trainwreck", "rules": [rule]}]}), encoding="utf-8"
    )
    expected_annotations = {
        "summary": GO_TEMPLATES["title"],
        "description": GO_TEMPLATES["summary"],
        "entry": entry.id,
        "severity": "high",
        "url": f"{site}failures/{entry.id}/",
    }
    unit = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [],
                "alert_rule_test": [
                    {
                        "eval_time": "1m",
                        "alertname": entry.id,
                        "exp_alerts": [
                            {
                                "exp_labels": {"severity": "high", "entry": entry.id},
                                "exp_annotations": expected_annotations,
                            }
                        ],
                    }
                ],
            }
        ],
    }
    (tmp_path / "unit.yaml").write_text(yaml.safe_dump(unit), encoding="utf-8")
    done = subprocess.run(
        [_promtool(), "test", "rules", "unit.yaml"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_rule_file_passes_prometheus_rule_checks(
    corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`export loki`'s rules.yaml and the site's /api/rules/loki-rules.yaml, of the catalog."""
    from generator.fleet import site

    assert main(["export", "loki", "--out", str(tmp_path / "export"), "--base-url", SITE]) == 0
    capsys.readouterr()
    exported = (tmp_path / "export" / "loki" / "rules.yaml").read_text(encoding="utf-8")
    _check_rules(tmp_path / "export.yaml", exported)
    files = site.rule_files(list(corpus.entries), SITE)
    assert files["api/rules/loki-rules.yaml"] == exported
    _check_rules(tmp_path / "site.yaml", files["api/rules/loki-rules.yaml"])
