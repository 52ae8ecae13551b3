"""Install anywhere (issue 17): the wheel and sdist carry the public catalog's signature index,
and `trainwreck diagnose`, installed from the wheel into a fresh virtualenv outside the
repository, diagnoses a multi-rank log with no flag and no checkout."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "generator" / "bundled" / "signatures.json"
LOGS = REPO / "tests" / "fixtures" / "logs" / "per-rank"

# The public catalog's diagnosis of the four per-rank logs: rank 1's ECC error is the root
# cause, the watchdog timeouts of the other three ranks are its collateral.
PER_RANK: dict[str, Any] = {
    "findings": [
        {
            "id": "cuda-ecc-uncorrectable",
            "title": "CUDA error: uncorrectable ECC error encountered",
            "role": "root-cause",
            "count": 1,
            "ranks": [1],
            "first": {
                "file": "per-rank/rank1.log",
                "line": 9,
                "rank": 1,
                "time": "2024-07-02T11:42:07.481Z",
                "text": "RuntimeError: CUDA error: uncorrectable ECC error encountered",
            },
        },
        {
            "id": "nccl-watchdog-timeout",
            "title": "NCCL watchdog timeout: Watchdog caught collective operation timeout",
            "role": "collateral",
            "count": 3,
            "ranks": [0, 2, 3],
            "first": {
                "file": "per-rank/rank0.log",
                "line": 5,
                "rank": 0,
                "time": "--07-02T11:52:07.600000000",
                "text": "[E702 11:52:07.600000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog "
                "caught collective operation timeout: WorkNCCL(SeqNum=2210, "
                "OpType=_ALLGATHER_BASE, NumelIn=19008, NumelOut=76032, Timeout(ms)=600000) "
                "ran for 600030 milliseconds before timing out.",
            },
        },
    ],
    "first_failed_rank": 1,
    "unrecognized": [],
    # The frame above rank 1's error: the user's code that made the failing call.
    "culprit": {
        "file": "per-rank/rank1.log",
        "line": 9,
        "package": None,
        "raised_in": None,
        "called_from": {"path": "/srv/job/train.py", "line": 301, "function": "train_step"},
        "names": [],
        "versions": [],
    },
    "launcher": [],
    # Ranks 0, 2 and 3 print no progress after step 600 and wait ten minutes for the watchdog.
    "trends": [
        {
            "kind": "stall",
            "entry": "training-stall-no-progress",
            "metric": "progress",
            "says": "progress stopped at step 600: the log goes on 617.4 s after the last "
            "progress line (they came every 15 s)",
            "file": "per-rank/rank0.log",
            "line": 4,
            "rank": 0,
            "ranks": [0, 2, 3],
            "step": 600,
            "time": "2024-07-02T11:41:50.200Z",
            "text": "2024-07-02T11:41:50.200Z INFO step=600 loss=3.000",
            "before": 15.0,
            "after": 617.4,
            "recovered_after": None,
            "series": [[600, 3.0]],
        }
    ],
}


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{command}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's files as a fresh clone has them, in a folder `trainwreck`."""
    source = tmp_path_factory.mktemp("source") / "trainwreck"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        src = REPO / os.fsdecode(name)
        if src.is_file() and not src.is_symlink():
            (source / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, source / os.fsdecode(name))
    return source


@pytest.fixture(scope="module")
def dist(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel that `python -m build` makes from the clone (the wheel is built
    from the sdist, as build does)."""
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(clone)], out, dict(os.environ))
    return out


def clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["TRAINWRECK_CACHE_DIR"] = str(tmp_path / "cache")
    return env


def test_the_wheel_and_the_sdist_carry_the_bundled_index(dist: Path) -> None:
    (wheel,) = dist.glob("trainwreck-*.whl")
    (sdist,) = dist.glob("trainwreck-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("generator/bundled/signatures.json") == BUNDLED.read_bytes()
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        member = archive.extractfile(f"{top}/generator/bundled/signatures.json")
        assert member is not None
        assert member.read() == BUNDLED.read_bytes()


def test_the_installed_wheel_diagnoses_a_multi_rank_log_anywhere(
    dist: Path, tmp_path: Path
) -> None:
    (wheel,) = dist.glob("trainwreck-*.whl")
    venv = tmp_path / "venv"
    env = clean_env(tmp_path)
    run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    run([str(venv / "bin/python"), "-m", "pip", "install", "-q", str(wheel)], tmp_path, env)
    work = tmp_path / "work"
    shutil.copytree(LOGS, work / "per-rank")
    tool = str(venv / "bin" / "trainwreck")

    catalog = json.loads(BUNDLED.read_text())
    version = run([tool, "--version"], work, env).stdout
    assert version == (
        f"trainwreck 0.1.0, catalog {catalog['catalog']} ({len(catalog['entries'])} entries)\n"
    )
    # Twice: the first run compiles and stores the prefilter, the second loads it.
    for _ in range(2):
        done = run([tool, "diagnose", "--json", "per-rank"], work, env)
        assert (json.loads(done.stdout), done.stderr) == (
            {"catalog": catalog["catalog"], **PER_RANK},
            "",
        )
    # The terminal report, word for word what this checkout's own code prints for the log.
    text = run([tool, "diagnose", "per-rank"], work, env).stdout
    source = {**env, "PYTHONPATH": str(REPO)}
    mine = run([sys.executable, "-m", "generator.cli", "diagnose", "per-rank"], work, source)
    assert text == mine.stdout
    assert text.splitlines()[:4] == [
        "trainwreck diagnose: 4 files, 26 lines read",
        "First failed rank: 1, at 2024-07-02T11:42:07.481Z (per-rank/rank1.log:9)",
        "",
        "ROOT CAUSE  CUDA error: uncorrectable ECC error encountered  cuda-ecc-uncorrectable "
        "· severity critical",
    ]
    # The README's lines for an engineer (its install line is the wheel here), word for word.
    from tests.test_readme import readme_commands

    install, diagnose = readme_commands("**Diagnosing a log, on any machine.**")
    assert install[:2] == ["pipx", "install"]
    shutil.copytree(LOGS, work / "logs")
    done = run([str(venv / "bin" / diagnose[0]), *diagnose[1:]], work, env)
    assert done.stdout.splitlines()[:2] == [
        "trainwreck diagnose: 4 files, 26 lines read",
        "First failed rank: 1, at 2024-07-02T11:42:07.481Z (logs/rank1.log:9)",
    ]
    # The package runs from the virtualenv, not from this checkout.
    where = run(
        [str(venv / "bin/python"), "-c", "import generator; print(generator.__file__)"], work, env
    ).stdout
    assert where.startswith(str(venv))


def test_the_readmes_pipx_line_installs_from_a_clone(clone: Path, tmp_path: Path) -> None:
    """`pipx install ./trainwreck` from the folder holding the clone, then the README's
    diagnose line, with pipx itself installed into a throwaway virtualenv."""
    from tests.test_readme import readme_commands

    install, diagnose = readme_commands("**Diagnosing a log, on any machine.**")
    env = clean_env(tmp_path)
    env["PIPX_HOME"] = str(tmp_path / "pipx")
    env["PIPX_BIN_DIR"] = str(tmp_path / "bin")
    tools = tmp_path / "tools"
    run([sys.executable, "-m", "venv", str(tools)], tmp_path, env)
    run([str(tools / "bin/python"), "-m", "pip", "install", "-q", "pipx"], tmp_path, env)
    assert install[:2] == ["pipx", "install"]
    run([str(tools / "bin" / install[0]), *install[1:]], clone.parent, env)
    work = tmp_path / "work"
    shutil.copytree(LOGS, work / "logs")
    done = run([str(tmp_path / "bin" / diagnose[0]), *diagnose[1:], "--json"], work, env)
    catalog = json.loads(BUNDLED.read_text())["catalog"]
    expected = json.loads(json.dumps(PER_RANK).replace("per-rank/", "logs/"))
    assert (json.loads(done.stdout), done.stderr) == ({"catalog": catalog, **expected}, "")


def test_make_serve_works_on_a_fresh_clone(clone: Path, tmp_path: Path) -> None:
    """The README's first command and the editor's: a fresh virtualenv (an editable install,
    which carries the bundled index from the tree), the site built, and the preview serving it."""
    from tests.serving import fetch, free_port
    from tests.test_readme import block_after

    assert block_after("**Editing entries.**") == ["make serve"]
    work = tmp_path / "trainwreck"
    shutil.copytree(clone, work)
    port = free_port()
    log = (tmp_path / "make.log").open("w")
    env = clean_env(tmp_path)
    server = subprocess.Popen(
        ["make", "serve", f"DEV_ADDR=127.0.0.1:{port}", f"PYTHON={sys.executable}"],
        cwd=work,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 900
        page = ""
        while time.monotonic() < deadline and server.poll() is None:
            try:
                page = fetch(f"http://127.0.0.1:{port}/failures/nccl-watchdog-timeout/")
                break
            except OSError:
                time.sleep(1)
        assert "Watchdog caught collective operation timeout" in page, (
            tmp_path / "make.log"
        ).read_text()[-3000:]
        assert (work / "site/signatures.json").read_bytes() == BUNDLED.read_bytes()
        # The editable install diagnoses with the index from the tree, outside it too.
        done = run(
            [str(work / ".venv/bin/trainwreck"), "diagnose", "--json", "per-rank"],
            LOGS.parent,
            env,
        )
        assert json.loads(done.stdout)["catalog"] == json.loads(BUNDLED.read_text())["catalog"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
        log.close()
