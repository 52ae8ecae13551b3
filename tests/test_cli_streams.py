"""Closed or failing standard streams (`>&-`, `2>&-`, `<&-`, `>/dev/full`): a clear line and a
non-zero exit, never a traceback. With standard error closed, messages follow the report on
standard output; with standard output closed nothing is run, since no result could be seen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.diagnose.index import build_index, index_json
from generator.loading.discovery import find_entry_files, read_sources
from generator.validation import load_doc

REPO = Path(__file__).resolve().parents[1]
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5"
CLOSED = "trainwreck: standard output is closed; nothing was run (send it to a file or /dev/null)\n"
FULL = "trainwreck: cannot write to standard output: No space left on device\n"


def sh(work: Path, args: str, redirect: str) -> tuple[int, str, str]:
    """Run the CLI under sh with a redirection such as `>&-`; exit code, stdout, stderr."""
    if args.startswith("diagnose"):
        args = args.replace("diagnose", "diagnose --index signatures.json", 1)
    command = f"exec {sys.executable} -m generator.cli {args} {redirect}"
    proc = subprocess.run(
        ["sh", "-c", command],
        capture_output=True,
        cwd=work,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


@pytest.fixture(scope="module")
def index_text() -> str:
    """The catalog's signature index, compiled as `diagnose` compiles it."""
    sources, _ = read_sources(find_entry_files(REPO / "entries"), REPO)
    docs = [load_doc(source)[0] for source in sources]
    return index_json(build_index(doc.entry for doc in docs if doc is not None))


@pytest.fixture()
def work(tmp_path: Path, index_text: str) -> Path:
    (tmp_path / "rank3.log").write_text(OOM + "\n")
    (tmp_path / "signatures.json").write_text(index_text)
    return tmp_path


def _report(work: Path) -> str:
    """The human report on rank3.log, as it prints with every stream open."""
    code, out, err = sh(work, "diagnose rank3.log", "")
    assert (code, err) == (0, "")
    assert out.startswith("trainwreck diagnose: 1 file, 1 line read\nFirst failed rank: 3 ")
    return out


def test_diagnose_with_stdout_closed(work: Path) -> None:
    assert sh(work, "diagnose rank3.log", ">&-") == (2, "", CLOSED)
    assert sh(work, "diagnose rank3.log", ">&- 2>&-") == (2, "", "")


def test_diagnose_with_stderr_closed_writes_its_messages_after_the_report(work: Path) -> None:
    report = _report(work)
    assert sh(work, "diagnose rank3.log", "2>&-") == (0, report, "")
    code, out, err = sh(work, "diagnose rank3.log nope.log", "2>&-")
    assert (code, out, err) == (2, "trainwreck: nope.log: no such file or directory\n", "")
    (work / "core").write_bytes(b"\x00" * 100)
    code, out, err = sh(work, "diagnose --json rank3.log core", "2>&-")
    assert (code, err) == (2, "")
    assert out.endswith(
        '  "launcher": []\n}\ntrainwreck: core: does not look like a text log (binary data)\n'
    )


def test_diagnose_with_stdin_closed(work: Path) -> None:
    report = _report(work)
    assert sh(work, "diagnose rank3.log", "<&-") == (0, report, "")
    code, out, err = sh(work, "diagnose --json -", "<&-")
    assert (code, err) == (2, "trainwreck: <stdin>: standard input is closed\n")
    catalog = json.loads((work / "signatures.json").read_text())["catalog"]
    assert out == (
        f'{{\n  "catalog": "{catalog}",\n  "findings": [],\n  "first_failed_rank": null,\n'
        '  "unrecognized": [],\n  "culprit": null,\n  "launcher": []\n}\n'
    )


def test_diagnose_on_a_full_disk(work: Path) -> None:
    assert sh(work, "diagnose rank3.log", ">/dev/full") == (2, "", FULL)
    assert sh(work, "diagnose --format markdown rank3.log", ">/dev/full") == (2, "", FULL)


def test_validate_with_each_stream_closed(work: Path) -> None:
    assert sh(work, "validate --format json", ">&-") == (2, "", CLOSED)
    assert sh(work, "validate nope.yaml", "2>&-") == (
        2,
        "trainwreck: nope.yaml: no such file or directory\n",
        "",
    )
    (work / "x.yaml").write_text("id: [\n")
    assert sh(work, "validate x.yaml", "") == (
        1,
        "x.yaml:2:1: error [yaml-syntax] while parsing a flow node did not find expected node "
        "content\n",
        "1 problem(s) in 1 file(s)\n",
    )
    assert sh(work, "validate x.yaml", ">/dev/full") == (2, "", FULL)


@pytest.mark.parametrize("args", [["checks"], ["validate", "--format", "json", "x.yaml"]])
def test_a_reader_that_went_away_is_not_an_error(work: Path, args: list[str]) -> None:
    """`trainwreck ... | head`: the pipe's reader is gone before the first write. That gave a
    BrokenPipeError traceback in every command but diagnose; the exit code is the command's."""
    (work / "x.yaml").write_text("id: [\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the interpreter has even started
    err = proc.stderr.read().decode()
    assert (proc.wait(timeout=120), err) == (0 if args == ["checks"] else 1, "")
