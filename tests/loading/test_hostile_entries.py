"""Hostile entry files from the second outside battery (issue 15): each one gives a complete,
placed problem list from every command, never a traceback, a hang or a silent skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.cli import main
from generator.loading.fmt import FormatError, format_text
from generator.loading.yaml_source import load_yaml
from generator.validation import SourceFile, validate_sources

DEEP = "a: " + "[" * 400 + "]" * 400 + "\n"  # 800 bytes, 400 levels
TOO_DEEP = (
    "error [yaml-too-deep] lists and mappings are nested more than 32 levels deep; "
    "an entry needs a few"
)


def problems(files: dict[str, str | bytes]) -> list[str]:
    sources = [
        SourceFile(path, text.encode() if isinstance(text, str) else text)
        for path, text in files.items()
    ]
    return [p.text() for p in validate_sources(sources).problems]


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "entries/framework").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_deep_nesting_is_a_placed_problem_in_flow_and_block_style() -> None:
    block = "a:\n" + "".join("  " * level + "b:\n" for level in range(1, 40))
    assert problems({"entries/x/flow.yaml": DEEP, "entries/x/block.yaml": block}) == [
        f"entries/x/block.yaml:33:65: {TOO_DEEP}",
        f"entries/x/flow.yaml:1:35: {TOO_DEEP}",
    ]


def test_nesting_up_to_the_limit_loads() -> None:
    # The root mapping is level 1; 31 lists inside it make 32.
    nested: object = load_yaml(("a: " + "[" * 31 + "]" * 31 + "\n").encode()).data["a"]
    lists = 1
    while nested:
        assert isinstance(nested, list)
        nested, lists = nested[0], lists + 1
    assert (lists, nested) == (31, [])


def test_deep_nesting_in_validate_and_fmt_is_reported_not_raised(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "entries/framework/deep.yaml").write_text(DEEP)
    assert main(["validate"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [f"entries/framework/deep.yaml:1:35: {TOO_DEEP}"]
    assert main(["fmt"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        "entries/framework/deep.yaml:1:35: error [fmt] cannot format: lists and mappings are "
        "nested more than 32 levels deep; an entry needs a few"
    ]
    assert (repo / "entries/framework/deep.yaml").read_text() == DEEP


def test_fmt_refuses_deep_nesting_with_its_place() -> None:
    with pytest.raises(FormatError) as caught:
        format_text(DEEP)
    assert (caught.value.line, caught.value.col) == (1, 35)
