"""The README's first lines for each kind of user say what works: each block of commands is
run (the engineer's in a fresh virtualenv, in tests/test_install.py), or checked against the
file that makes it true."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from generator.cli import main
from generator.loading.categories import parse_categories
from generator.model.categories import CATEGORIES
from tests.diagnose.catalog import SPECS, render
from tests.test_overlay import CATEGORIES_YAML, HEARTBEAT, JOB_LOG

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def block_after(marker: str, language: str = "sh") -> list[str]:
    """The lines of the first ```language block after `marker`, comments and blanks dropped."""
    rest = README[README.index(marker) :]
    found = re.search(rf"```{language}\n(.*?)```", rest, re.S)
    assert found is not None, marker
    lines = [line.split("  #")[0].rstrip() for line in found.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def readme_commands(marker: str) -> list[list[str]]:
    return [shlex.split(line) for line in block_after(marker)]


def test_the_readme_starts_with_make_serve_and_make_test() -> None:
    first = re.search(r"```sh\n(.*?)```", README, re.S)
    assert first is not None
    assert [line.split("#")[0].strip() for line in first.group(1).splitlines()] == [
        "make serve",
        "make test",
    ]
    makefile = (REPO / "Makefile").read_text()
    assert re.search(r"^serve: ", makefile, re.M)
    assert re.search(r"^test: ", makefile, re.M)


def test_the_readers_address_is_the_sites() -> None:
    mkdocs = (REPO / "mkdocs.yml").read_text()
    default = re.search(r'site_url: !ENV \[TRAINWRECK_SITE_URL, "([^"]+)"\]', mkdocs)
    assert default is not None
    reader = README[README.index("**Reading the encyclopedia.**") :].split("\n\n")[0]
    assert "`TRAINWRECK_SITE_URL`" in reader
    assert default.group(1) in reader
    # `make serve` serves at that address.
    makefile = (REPO / "Makefile").read_text()
    assert "DEV_ADDR ?= 127.0.0.1:8000\n" in makefile
    assert "serve --dev-addr $(DEV_ADDR)" in makefile
    assert default.group(1) == "http://127.0.0.1:8000/"


def test_the_engineers_commands_are_what_test_install_runs() -> None:
    assert readme_commands("**Diagnosing a log, on any machine.**") == [
        ["pipx", "install", "./trainwreck"],
        ["trainwreck", "diagnose", "logs/"],
    ]


def test_the_editors_command_is_a_make_target() -> None:
    assert block_after("**Editing entries.**") == ["make serve"]


@pytest.fixture()
def clone_beside_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The README's layout: a clone of this repository (here the test catalog) in trainwreck/,
    the team's own entries in ours/ beside it."""
    clone = tmp_path / "trainwreck"
    clone.mkdir()
    shutil.copy(REPO / "mkdocs.yml", clone / "mkdocs.yml")
    shutil.copytree(REPO / "templates", clone / "templates")
    for spec in SPECS:
        (clone / spec.path).parent.mkdir(parents=True, exist_ok=True)
        (clone / spec.path).write_text(render(spec))
    ours = tmp_path / "ours"
    (ours / "acme-launcher").mkdir(parents=True)
    (ours / "categories.yaml").write_text(CATEGORIES_YAML)
    (ours / "acme-launcher/acme-heartbeat-lost.yaml").write_text(render(HEARTBEAT))
    (clone / "job.log").write_text(JOB_LOG)
    monkeypatch.chdir(tmp_path)
    return clone


def test_the_teams_commands_run_over_both_catalogs(
    clone_beside_ours: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = readme_commands("**A team with its own catalog.**")
    assert commands[0] == ["cd", "trainwreck"]
    monkeypatch.chdir(clone_beside_ours)
    for command in commands[1:]:
        assert command[0] == "trainwreck"
        assert main(command[1:]) == 0, command
    out, _ = capsys.readouterr()
    assert (clone_beside_ours / "site/failures/acme-heartbeat-lost/index.html").is_file()
    lines = out.splitlines()
    assert lines[:4] == [
        "trainwreck diagnose: 1 file, 4 lines read",
        "First failed rank: 2 (job.log:1)",
        "",
        "ROOT CAUSE  acme-agent: lost heartbeat from worker  acme-heartbeat-lost · severity high",
    ]
    assert (
        "COLLATERAL  NCCL watchdog timeout: Watchdog caught collective operation timeout  "
        "nccl-watchdog-timeout · severity high" in lines
    )


def test_the_readmes_categories_file_declares_its_category() -> None:
    text = "\n".join(block_after("**A team with its own catalog.**", "yaml")) + "\n"
    declared, problems = parse_categories("ours/categories.yaml", text.encode(), CATEGORIES)
    assert problems == []
    assert [(c.id, c.title) for c in declared] == [("acme-launcher", "Acme launcher")]
    assert text == CATEGORIES_YAML.split("\n", 1)[1]
