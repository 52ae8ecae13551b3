"""The editor's loop from the command line: new, validate, fill in, fmt, schema, build."""

from __future__ import annotations

import datetime as dt
import io
import shutil
from pathlib import Path

import pytest
import yaml
from entry_factory import entry_yaml
from ruamel.yaml import YAML

from generator.cli import main
from generator.model.json_schema import SCHEMA_PATH, editor_schema_text

REPO = Path(__file__).resolve().parents[1]
NEW = "entries/memory/host-oom-killer.yaml"
TODAY = dt.date.today().isoformat()


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    (tmp_path / "entries").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fill_in(skeleton: str) -> str:
    """Give every field of the skeleton the factory entry's value, keeping the comments."""
    rt = YAML(typ="rt")
    data = rt.load(skeleton)
    content = yaml.safe_load(entry_yaml("host-oom-killer"))
    for key, value in content.items():
        if key not in ("id", "category", "last_reviewed"):
            data[key] = value
    out = io.StringIO()
    rt.dump(data, out)
    return out.getvalue()


def test_new_skeleton_fails_only_on_what_needs_writing_then_validates_and_builds(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "host-oom-killer", "--category", "memory"]) == 0
    out, err = capsys.readouterr()
    assert out == f"{NEW}\n"
    assert err == f"next: fill it in, then `trainwreck validate {NEW}`\n"

    assert main(["validate"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        f"{NEW}:7:8: error [schema] title: must not be empty — write what a reader searches "
        "for, usually the error as printed",
        f"{NEW}:10:7: error [schema] tags: needs at least 1 item — write one to eight "
        "kebab-case tags, the ways in besides the category",
        f"{NEW}:16:10: error [schema] summary: must not be empty — write the quick answer, "
        "one to three sentences",
        f"{NEW}:18:12: error [schema] quick_fix: must not be empty — write the first action "
        "to take, in one line (code spans and emphasis only)",
        f"{NEW}:20:10: error [schema] symptom: must not be empty — write what the engineer "
        "sees when it happens",
        f"{NEW}:22:13: error [schema] root_cause: must not be empty — write what actually broke",
        f"{NEW}:25:17: error [schema] mechanism.mistaken_for: must not be empty — write what "
        "people usually blame for this failure",
        f"{NEW}:27:13: error [schema] mechanism.actually: must not be empty — write what is "
        "really happening, step by step",
        f"{NEW}:29:11: error [schema] observed: must not be empty — write raw log lines that "
        "a user typically sees",
        f"{NEW}:33:11: error [schema] symptoms: needs at least 1 item — write rows of the "
        "symptom table: a symptom and why it happens",
        f"{NEW}:35:19: error [schema] affected_systems: needs at least 1 item — write "
        "hardware, software and setups where it happens",
        f"{NEW}:40:10: error [schema] confirm: needs at least 1 item — write a checklist of "
        "real commands, what to look for, and whether root is needed",
        f"{NEW}:46:13: error [schema] signatures: needs at least 1 item — write lines the "
        "software prints that identify this failure in a log",
        f"{NEW}:56:6: error [schema] fix: needs at least 1 item — write ordered steps to fix "
        "it, with commands and code per stack where they differ",
        f"{NEW}:58:13: error [schema] prevention: needs at least 1 item — write what stops it "
        "from happening again",
        f"{NEW}:71:13: error [schema] references: needs at least 1 item — write upstream docs "
        "and issue threads you have read (https URLs)",
        f"{NEW}:80:11: error [schema] examples: needs at least 1 item — write real log "
        "excerpts, each with the thread (url) or lab log (lab) it comes from",
        f"{NEW}:84:6: error [schema] faq: needs at least 3 items — write three to six "
        "questions people ask, answered for this failure",
    ]

    path = repo / NEW
    filled = fill_in(path.read_text())
    assert filled.startswith("# yaml-language-server: $schema=../../schema/entry.schema.json\n")
    path.write_text(filled)
    assert main(["fmt", NEW]) == 0
    assert main(["validate"]) == 0
    assert main(["build"]) == 0
    page = (repo / "site/failures/host-oom-killer/index.html").read_text()
    assert "Xid 79: GPU has fallen off the bus" in page
    assert f'<time datetime="{TODAY}">' in page


def test_new_refuses_what_exists_and_what_is_unknown(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "host-oom-killer", "--category", "memory"]) == 0
    capsys.readouterr()
    assert main(["new", "host-oom-killer", "--category", "numerics"]) == 2
    assert main(["new", "another", "--category", "gpu"]) == 2
    assert main(["new", "Not_Kebab", "--category", "memory"]) == 2
    _, err = capsys.readouterr()
    assert err.splitlines() == [
        f"trainwreck: {NEW} already exists",
        "trainwreck: unknown category 'gpu'; one of: gpu-hardware, interconnect, "
        "nccl-distributed, memory, cuda-runtime, numerics, framework, data-pipeline, "
        "storage-checkpoint, scheduler, environment",
        "trainwreck: 'Not_Kebab' is not a kebab-case id (e.g. nccl-watchdog-timeout)",
    ]
    assert sorted(p.name for p in (repo / "entries").rglob("*.yaml")) == ["host-oom-killer.yaml"]


def test_fmt_check_fails_on_a_reordered_file_and_fmt_fixes_it_keeping_comments(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = repo / "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
    path.parent.mkdir(parents=True)
    text = entry_yaml()
    lines = text.splitlines(keepends=True)
    # Move `severity:` (with a comment of its own) to the end of the file.
    severity = next(i for i, line in enumerate(lines) if line.startswith("severity:"))
    moved = lines[:severity] + lines[severity + 1 :] + ["severity: critical  # how bad\n"]
    path.write_text("".join(moved))
    assert main(["fmt", "--check"]) == 1
    out, _ = capsys.readouterr()
    assert out == "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml: would reformat\n"
    assert path.read_text() == "".join(moved)

    assert main(["fmt"]) == 0
    formatted = path.read_text()
    assert "severity: critical  # how bad\n" in formatted
    assert formatted.index("severity:") < formatted.index("layer:")
    assert formatted.startswith("# yaml-language-server:")
    assert yaml.safe_load(formatted) == yaml.safe_load(text)
    capsys.readouterr()
    assert main(["fmt", "--check"]) == 0
    assert main(["fmt"]) == 0
    assert path.read_text() == formatted


def test_fmt_keeps_everything_in_a_file_that_fails_validation(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = repo / "entries/gpu-hardware/broken.yaml"
    path.parent.mkdir(parents=True)
    text = "# keep me\nzzz_unknown: 1  # and me\ntitle: [not, a, string]\nid: Broken_Id\n"
    path.write_text(text)
    assert main(["fmt"]) == 0
    assert path.read_text() == (
        "# keep me\nid: Broken_Id\ntitle:\n  - not\n  - a\n  - string\nzzz_unknown: 1  # and me\n"
    )
    unparsable = repo / "entries/gpu-hardware/unparsable.yaml"
    unparsable.write_text("id: a\ntitle: [unclosed\n")
    capsys.readouterr()
    assert main(["fmt"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        "entries/gpu-hardware/unparsable.yaml:3:1: error [fmt] cannot format: expected ',' or "
        "']', but got '<stream end>'"
    ]
    assert unparsable.read_text() == "id: a\ntitle: [unclosed\n"


def test_committed_json_schema_is_up_to_date() -> None:
    assert (REPO / SCHEMA_PATH).read_text() == editor_schema_text(), "run `trainwreck schema`"


def test_schema_check_fails_on_a_stale_schema(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema"]) == 0
    assert main(["schema", "--check"]) == 0
    stale = repo / SCHEMA_PATH
    stale.write_text(stale.read_text().replace('"title": "Trainwreck entry"', '"title": "old"'))
    capsys.readouterr()
    assert main(["schema", "--check"]) == 1
    _, err = capsys.readouterr()
    assert err == f"{SCHEMA_PATH} is out of date: run `trainwreck schema`\n"
