"""The garbage collector during a command: off while it starts (bench/startup.py), on for its
work, and as it was after main() returns, with nothing left frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path

import pytest

from generator.cli import main
from generator.diagnose.scan import Scanner

LOG = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"


@pytest.fixture()
def collections() -> Iterator[list[str]]:
    """Each collection that runs adds "collected"; the test adds the scan's start."""
    seen: list[str] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append("collected")

    gc.callbacks.append(note)
    yield seen
    gc.callbacks.remove(note)


def test_diagnose_collects_only_once_its_scan_begins(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    collections: list[str],
) -> None:
    (tmp_path / "job.log").write_text(LOG)
    monkeypatch.chdir(tmp_path)  # no entries/ here: the bundled index, some thousand objects
    scan = Scanner.scan

    def scanning(self: Scanner, *args: object, **kwargs: object) -> object:
        collections.append(f"scan, collector on: {gc.isenabled()}, {gc.get_threshold()}")
        return scan(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Scanner, "scan", scanning)
    gc.collect()
    collections.clear()
    before = gc.get_threshold()
    assert main(["diagnose", "--json", "job.log"]) == 0
    young, middle, _ = before
    assert collections[:1] == [f"scan, collector on: True, {(young, middle, 1000)}"]
    assert (gc.isenabled(), gc.get_freeze_count(), gc.get_threshold()) == (True, 0, before)
    assert '"id": "cuda-out-of-memory"' in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv", [["--help"], ["diagnose"], ["diagnose", "missing.log"], ["checks"]]
)
def test_the_collector_is_on_and_nothing_frozen_after_any_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    before = gc.get_threshold()
    with pytest.raises(SystemExit) if argv in (["--help"], ["diagnose"]) else nullcontext():
        main(argv)
    assert (gc.isenabled(), gc.get_freeze_count(), gc.get_threshold()) == (True, 0, before)
