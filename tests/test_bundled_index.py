"""The signature index bundled in the package is the one the site publishes for entries/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.bundled import INDEX_FILE
from generator.cli import main
from generator.diagnose.index import build_index, index_json
from generator.loading.discovery import find_entry_files, read_sources
from generator.validation import validate_sources

REPO = Path(__file__).resolve().parents[1]


def test_the_bundled_index_is_the_catalogs_own() -> None:
    # What mkdocs_glue publishes at /signatures.json for the same entries.
    sources, unreadable = read_sources(find_entry_files(REPO / "entries"), REPO)
    result = validate_sources(sources)
    assert (unreadable, [p for p in result.problems if p.level == "error"]) == ([], [])
    expected = index_json(build_index(result.entries))
    assert INDEX_FILE.read_text(encoding="utf-8") == expected, (
        "generator/bundled/signatures.json is stale: run `trainwreck bundle` and commit it"
    )


def test_bundle_check_names_a_stale_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bundled = tmp_path / "signatures.json"
    monkeypatch.setattr("generator.bundled.INDEX_FILE", bundled)
    monkeypatch.chdir(REPO)
    bundled.write_text("{}\n")
    assert main(["bundle", "--check"]) == 1
    assert capsys.readouterr().err == (
        f"{bundled.as_posix()} is out of date: run `trainwreck bundle`\n"
    )
    assert main(["bundle"]) == 0
    assert capsys.readouterr().err == f"wrote {bundled.as_posix()}\n"
    assert bundled.read_text() == INDEX_FILE.read_text()
    assert main(["bundle", "--check"]) == 0


# What a start with the bundled index must not import: the entry model and the site's engine
# belong to validate and build (bench/startup.py measures the start itself).
HEAVY = ("pydantic", "jinja2", "yaml", "ruamel", "markdown_it", "mkdocs", "rich")
PROBE = """
import sys
from generator.cli import main
code = main(sys.argv[1:])
print({m.split(".")[0] for m in sys.modules}.intersection(%r), code, file=sys.stderr)
"""


@pytest.mark.parametrize(("report", "allowed"), [("--json", set()), ("--format=text", set())])
def test_diagnose_with_the_bundled_index_imports_no_heavy_library(
    tmp_path: Path, report: str, allowed: set[str]
) -> None:
    shutil.copytree(REPO / "tests/fixtures/logs/per-rank", tmp_path / "per-rank")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE % (HEAVY,), "diagnose", report, "per-rank"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == f"{allowed or set()} 0\n"
    if report == "--json":
        bundled = json.loads(INDEX_FILE.read_text())
        assert json.loads(done.stdout)["catalog"] == bundled["catalog"]
