"""Folders of any depth are walked without recursion (generator/walk.py; issue 39, defect 5).

Python 3.11's os.walk and Path.rglob recurse once a level: a folder 1,000 levels deep ended
`diagnose`, `validate --entries` and `diagnose --entries DIR --public` with a RecursionError
traceback (and `diagnose` with exit 1, which --fail-on-match means "a known failure")."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.cli import main
from generator.walk import walk_files

ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered\n"


@pytest.fixture()
def tmp_path(tmp_path: Path) -> Iterator[Path]:
    """pytest's own folder, emptied bottom-up after the test: shutil.rmtree, which pytest
    cleans old folders with, recurses once a level too."""
    yield tmp_path
    for folder, _, files in sorted(_tree(tmp_path), key=lambda t: -len(t[0].parts)):
        for name in files:
            (folder / name).unlink()
        if folder != tmp_path:
            folder.rmdir()


def _tree(root: Path) -> list[tuple[Path, list[str], list[str]]]:
    found = []
    stack = [root]
    while stack:
        folder = stack.pop()
        subfolders, files = [], []
        for entry in os.scandir(folder):
            (subfolders if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
        found.append((folder, subfolders, files))
        stack.extend(folder / name for name in subfolders)
    return found


def deep(root: Path, levels: int) -> Path:
    """`root/d/d/.../d` made one level at a time (os.makedirs recurses too)."""
    here = root
    for _ in range(levels):
        here = here / "d"
        here.mkdir()
    return here


def test_every_file_at_any_depth_and_no_link_to_a_folder_is_followed(tmp_path: Path) -> None:
    (tmp_path / "top").mkdir()
    bottom = deep(tmp_path / "top", 1000)
    (bottom / "rank0.log").write_text(ILLEGAL)
    (bottom / ".hidden").write_text("x")
    os.symlink(tmp_path / "top", bottom / "loop")  # a loop, had the walk followed it
    top = str(tmp_path / "top")
    assert sorted(walk_files(top)) == sorted(
        [str(bottom / "rank0.log"), str(bottom / ".hidden"), str(bottom / "loop")]
    )
    assert sorted(walk_files(top, skip_hidden=True)) == sorted(
        [str(bottom / "rank0.log"), str(bottom / "loop")]
    )


def test_diagnose_and_validate_read_a_folder_1000_levels_deep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "top").mkdir()
    (deep(tmp_path / "top", 1000) / "rank0.log").write_text(ILLEGAL)
    monkeypatch.chdir(tmp_path)
    index = Path(__file__).resolve().parents[1] / "generator" / "bundled" / "signatures.json"
    assert main(["diagnose", "--index", str(index), "--fail-on-match", "top"]) == 1
    out, err = capsys.readouterr()
    assert "ROOT CAUSE  CUDA error: an illegal memory access was encountered" in out
    assert err == ""
    assert main(["validate", "--entries", "top"]) == 0
    assert capsys.readouterr() == ("", "0 file(s) OK\n")
