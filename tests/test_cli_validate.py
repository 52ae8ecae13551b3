"""`trainwreck validate` as an editor and CI run it: exit codes and every output format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from entry_factory import entry_yaml

from generator.cli import main

GOOD = "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
BROKEN = "entries/gpu-hardware/xid-48-double-bit-ecc.yaml"


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "entries/gpu-hardware").mkdir(parents=True)
    (tmp_path / GOOD).write_text(entry_yaml())
    broken = entry_yaml("xid-48-double-bit-ecc").replace("severity: critical", "severity: urgent")
    broken = broken.replace("related: []", "related: [nope]")
    (tmp_path / BROKEN).write_text(broken)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_clean_file_exits_zero(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", GOOD]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "1 file(s) OK\n"


def test_text_format_lists_every_problem_and_exits_one(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{BROKEN}:6:11: error [schema] severity: Input should be 'critical', 'high', "
        "'medium' or 'low'",
    ]
    assert err == "1 problem(s) in 2 file(s)\n"


def test_cross_entry_problems_are_checked_against_the_whole_catalog(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixed = (repo / BROKEN).read_text().replace("severity: urgent", "severity: high")
    (repo / BROKEN).write_text(fixed)
    assert main(["validate", BROKEN]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        f"{BROKEN}:57:11: error [unknown-id] related names unknown entry 'nope'",
    ]


def test_github_format_annotates_the_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--format", "github"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        f"::error file={BROKEN},line=6,col=11::[schema] severity: Input should be 'critical', "
        "'high', 'medium' or 'low'",
    ]


def test_json_format(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--format", "json"]) == 1
    out, _ = capsys.readouterr()
    assert json.loads(out) == [
        {
            "path": BROKEN,
            "line": 6,
            "col": 11,
            "level": "error",
            "check": "schema",
            "message": "severity: Input should be 'critical', 'high', 'medium' or 'low'",
        }
    ]


def test_wrong_type_at_line_12_names_line_12(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = entry_yaml().replace("root_cause: The GPU", "root_cause: [The GPU")
    text = text.replace("failing board).", "failing board)]")
    (repo / GOOD).write_text(text)
    assert text.splitlines()[11].startswith("root_cause: [")
    assert main(["validate", GOOD]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        f"{GOOD}:12:13: error [schema] root_cause: Input should be a valid string",
    ]


def test_missing_path_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "entries/nope.yaml"]) == 2
    _, err = capsys.readouterr()
    assert err == "trainwreck: entries/nope.yaml: no such file or directory\n"


def test_unreadable_file_is_a_problem_not_a_traceback(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dangling = repo / "entries/gpu-hardware/dangling.yaml"
    dangling.symlink_to(repo / "does-not-exist.yaml")
    assert main(["validate", "entries/gpu-hardware"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        "entries/gpu-hardware/dangling.yaml:1:1: error [file-unreadable] No such file or directory",
        f"{BROKEN}:6:11: error [schema] severity: Input should be 'critical', 'high', "
        "'medium' or 'low'",
    ]


def test_a_20_mb_file_is_refused_without_reading_it_and_the_rest_still_report(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = repo / "entries/gpu-hardware/huge.yaml"
    with huge.open("w") as handle:
        handle.write("title: ")
        for _ in range(20):
            handle.write("x" * (1 << 20))
    assert main(["validate"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        "entries/gpu-hardware/huge.yaml:1:1: error [file-too-large] file is larger than the "
        "524,288-byte limit for an entry",
        f"{BROKEN}:6:11: error [schema] severity: Input should be 'critical', 'high', "
        "'medium' or 'low'",
    ]


# ESC ] 0 ; ... BEL retitles the terminal; the line break would start a second, forged
# annotation in --format github.
HOSTILE_NAME = "x\x1b]0;pwned\x07\n::error file=f.yaml::forged\n.yaml"
HOSTILE_SHOWN = "x[U+001B]]0;pwned[U+0007][U+000A]::error file=f.yaml::forged[U+000A].yaml"
MISMATCH = (
    "[id-filename] id 'xid-79-gpu-fallen-off-bus' does not match the file name "
    "'x\\x1b]0;pwned\\x07\\n::error file=f.yaml::forged\\n'"
)


def test_a_file_name_with_escapes_and_line_breaks_prints_as_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / BROKEN).unlink()
    (repo / GOOD).unlink()
    (repo / "entries/gpu-hardware" / HOSTILE_NAME).write_text(entry_yaml())
    assert main(["validate"]) == 1
    out, err = capsys.readouterr()
    assert out == f"entries/gpu-hardware/{HOSTILE_SHOWN}:2:5: error {MISMATCH}\n"
    assert err == "1 problem(s) in 1 file(s)\n"
    assert main(["validate", "--format", "github"]) == 1
    out, _ = capsys.readouterr()
    path = f"entries/gpu-hardware/{HOSTILE_SHOWN}".replace(":", "%3A")
    assert out == f"::error file={path},line=2,col=5::{MISMATCH}\n"
    assert main(["validate", "entries/nope\x1b[2J.yaml"]) == 2
    assert capsys.readouterr() == (
        "",
        "trainwreck: entries/nope[U+001B][2J.yaml: no such file or directory\n",
    )
