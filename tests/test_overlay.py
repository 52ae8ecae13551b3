"""Overlays (issue 17): a team's private entries folder on top of the public catalog, with a
category of its own and relations that point across. The site, /signatures.json and a
diagnosis hold both; ids stay unique across the folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.cli import main
from tests.diagnose.catalog import SPECS, WATCHDOG, Spec, render

REPO = Path(__file__).resolve().parents[1]

CATEGORIES_YAML = """\
# Our own categories, beside the public ones.
categories:
  - id: acme-launcher
    title: Acme launcher
    blurb: Our in-house job launcher, its agents and their heartbeats.
"""

HEARTBEAT = Spec(
    "acme-heartbeat-lost",
    "acme-launcher",
    "acme-agent: lost heartbeat from worker",
    "Restart the acme agent on the node it names, then resubmit from the last checkpoint.",
    (("acme-agent: lost heartbeat from worker {int} after {int}s", "defining"),),
    (
        (
            "https://wiki.acme.example/incidents/1",
            "acme-agent: lost heartbeat from worker 2 after 30s\n",
        ),
    ),
    related=(WATCHDOG.id,),
    collateral=(WATCHDOG.id,),
)

# Rank 2's agent lost its heartbeat; the other ranks' collectives then timed out.
JOB_LOG = "[rank2]:acme-agent: lost heartbeat from worker 2 after 30s\n" + "".join(
    f"[rank{r}]:[E1202 10:10:0{r}.000000000 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=600000) ran for 600004 milliseconds before timing out.\n"
    for r in (0, 1, 3)
)


def watchdog_first(rank: int) -> dict[str, Any]:
    return {
        "file": "job.log",
        "line": 2,
        "rank": rank,
        "time": f"--12-02T10:10:0{rank}.000000000",
        "text": f"[rank{rank}]:[E1202 10:10:0{rank}.000000000 ProcessGroupNCCL.cpp:616] "
        f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
        "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600004 "
        "milliseconds before timing out.",
    }


DIAGNOSIS: dict[str, Any] = {
    "findings": [
        {
            "id": "acme-heartbeat-lost",
            "title": "acme-agent: lost heartbeat from worker",
            "role": "root-cause",
            "count": 1,
            "ranks": [2],
            "first": {
                "file": "job.log",
                "line": 1,
                "rank": 2,
                "time": None,
                "text": "[rank2]:acme-agent: lost heartbeat from worker 2 after 30s",
            },
        },
        {
            "id": "nccl-watchdog-timeout",
            "title": WATCHDOG.title,
            "role": "collateral",
            "count": 3,
            "ranks": [0, 1, 3],
            "first": watchdog_first(0),
        },
    ],
    "first_failed_rank": 2,
    "unrecognized": [],
    "culprit": None,
    "launcher": [],
}


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A public checkout (the test catalog) and, beside it, a private folder of entries."""
    public = tmp_path / "trainwreck"
    public.mkdir()
    shutil.copy(REPO / "mkdocs.yml", public / "mkdocs.yml")
    shutil.copytree(REPO / "templates", public / "templates")
    for spec in SPECS:
        (public / spec.path).parent.mkdir(parents=True, exist_ok=True)
        (public / spec.path).write_text(render(spec))
    ours = tmp_path / "private" / "ours"
    (ours / "acme-launcher").mkdir(parents=True)
    (ours / "categories.yaml").write_text(CATEGORIES_YAML)
    (ours / "acme-launcher/acme-heartbeat-lost.yaml").write_text(render(HEARTBEAT))
    (public / "job.log").write_text(JOB_LOG)
    monkeypatch.chdir(public)
    return public


BOTH = ["--entries", "entries", "--entries", "../private/ours"]


def test_validate_checks_both_folders_as_one_catalog(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", *BOTH]) == 0
    assert capsys.readouterr() == ("", f"{len(SPECS) + 1} file(s) OK\n")


def test_the_site_index_and_diagnosis_hold_both_catalogs(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build", *BOTH]) == 0
    capsys.readouterr()
    site = repo / "site"
    page = (site / "failures/acme-heartbeat-lost/index.html").read_text()
    # The private entry links across to the public one, under its own category.
    assert 'href="../../failures/nccl-watchdog-timeout/"' in page
    assert 'href="../../categories/acme-launcher/"' in page
    category = (site / "categories/acme-launcher/index.html").read_text()
    assert '<h1 id="title">Acme launcher</h1>' in category
    assert 'href="../../failures/acme-heartbeat-lost/"' in category
    assert 'href="categories/acme-launcher/">Acme launcher</a>' in (site / "index.html").read_text()
    assert (site / "failures/nccl-watchdog-timeout/index.html").is_file()

    published = json.loads((site / "signatures.json").read_text())
    assert sorted(published["entries"]) == sorted([*(s.id for s in SPECS), HEARTBEAT.id])
    assert published["entries"][HEARTBEAT.id] == {
        "title": HEARTBEAT.title,
        "category": "acme-launcher",
        "severity": "high",
        "quick_fix": HEARTBEAT.quick_fix,
        "path": "failures/acme-heartbeat-lost/",
        "related": [WATCHDOG.id],
        "collateral": [WATCHDOG.id],
        "refines": None,
    }
    api = json.loads((site / "api/entries.json").read_text())
    assert [e["category"] for e in api["entries"] if e["id"] == HEARTBEAT.id] == ["acme-launcher"]

    assert main(["diagnose", "--index", "site/signatures.json", "--json", "job.log"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"catalog": published["catalog"], **DIAGNOSIS}
    # The same diagnosis from the two folders compiled directly, with the same version.
    assert main(["diagnose", *BOTH, "--json", "job.log"]) == 0
    assert json.loads(capsys.readouterr().out) == report


def test_diagnose_puts_private_entries_on_the_bundled_public_catalog(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from generator.bundled import INDEX_FILE

    public = json.loads(INDEX_FILE.read_text())
    assert main(["diagnose", "--entries", "../private/ours", "--public", "--json", "job.log"]) == 0
    report = json.loads(capsys.readouterr().out)
    # The public catalog's own title for the watchdog entry, the private entry's as written.
    watchdog_title = public["entries"]["nccl-watchdog-timeout"]["title"]
    expected = json.loads(json.dumps(DIAGNOSIS))
    expected["findings"][1]["title"] = watchdog_title
    assert report.pop("catalog").startswith(public["catalog"] + "+")
    assert report == expected


DUPLICATE = [
    "entries/nccl-distributed/nccl-watchdog-timeout.yaml:2:5: error [duplicate-id] id "
    "'nccl-watchdog-timeout' is already used by "
    "../private/ours/nccl-distributed/nccl-watchdog-timeout.yaml"
]


def test_an_id_in_both_folders_is_a_duplicate(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = repo.parent / "private/ours/nccl-distributed/nccl-watchdog-timeout.yaml"
    copy.parent.mkdir()
    copy.write_text(render(WATCHDOG))
    assert main(["validate", *BOTH]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == DUPLICATE


UNKNOWN = (
    "../private/ours/acme-launcher/acme-heartbeat-lost.yaml:4:11: error [category-unknown] "
    "unknown category 'acme-launcher'; one of: gpu-hardware, interconnect, nccl-distributed, "
    "memory, cuda-runtime, numerics, framework, data-pipeline, storage-checkpoint, scheduler, "
    "environment (a private catalog declares its own in categories.yaml)"
)


def test_a_category_no_catalog_declares_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo.parent / "private/ours/categories.yaml").unlink()
    assert main(["validate", *BOTH]) == 1
    assert capsys.readouterr().out.splitlines() == [UNKNOWN]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("id: x\n", "1:1: error [categories-file] unknown field 'id'; the file holds categories"),
        (
            "categories: {}\n",
            "1:13: error [categories-file] categories: a list, each item with id, title and blurb",
        ),
        (
            "categories:\n  - id: memory\n    title: Ours\n    blurb: Ours too.\n",
            "2:9: error [categories-file] category 'memory' is already declared",
        ),
        (
            "categories:\n  - id: acme-launcher\n    title: Acme\n    colour: red\n",
            "4:5: error [categories-file] unknown field 'colour'; use ('id', 'title', 'blurb')",
        ),
        (
            "categories:\n  - id: Acme Launcher\n    title: Acme\n    blurb: Ours.\n",
            "2:9: error [categories-file] 'Acme Launcher' is not a kebab-case id",
        ),
        (
            "categories:\n  - id: acme-launcher\n    title: Acme\n",
            "2:5: error [categories-file] missing blurb",
        ),
        (
            "categories:\n  - &a {id: x}\n",
            "2:5: error [yaml-anchor] anchor &a is not allowed; entries do not share values",
        ),
    ],
)
def test_a_bad_categories_file_is_placed(
    repo: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    (repo.parent / "private/ours/categories.yaml").write_text(text)
    assert main(["validate", *BOTH]) == 1
    assert capsys.readouterr().out.splitlines() == [
        UNKNOWN,
        f"../private/ours/categories.yaml:{problem}",
    ]


def test_public_needs_your_own_folders(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "--public", "job.log"]) == 2
    assert capsys.readouterr() == (
        "",
        "trainwreck: --public adds the public catalog to your own: name them with --entries DIR\n",
    )


def test_an_id_the_public_catalog_has_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The test catalog's watchdog entry has the public catalog's id.
    assert main(["diagnose", "--entries", "entries", "--public", "job.log"]) == 2
    assert capsys.readouterr() == (
        "",
        "trainwreck: entries: id 'cuda-ecc-uncorrectable' is in both your entries and the "
        "public catalog\n",
    )


@pytest.mark.parametrize("damage", ["missing", "not-json"])
def test_a_damaged_bundled_index_is_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    bundled = repo / "bundled.json"
    if damage == "not-json":
        bundled.write_text("{")
    monkeypatch.setattr("generator.bundled.INDEX_FILE", bundled)
    monkeypatch.chdir(repo.parent)  # no entries/ here: the bundled index is the catalog
    (repo.parent / "job.log").write_text(JOB_LOG)
    assert main(["diagnose", "job.log"]) == 2
    why = (
        "No such file or directory"
        if damage == "missing"
        else "not JSON (Expecting property name enclosed in double quotes: line 1 column 2 "
        "(char 1))"
    )
    assert capsys.readouterr() == (
        "",
        f"trainwreck: the public catalog bundled with trainwreck cannot be read ({why}); "
        "reinstall it, or pass --entries DIR or --index FILE\n",
    )


@pytest.mark.parametrize("command", ["build", "serve"])
def test_a_missing_folder_is_named(
    repo: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert main([command, "--entries", "entries", "--entries", "../private/theirs"]) == 2
    assert capsys.readouterr() == ("", "trainwreck: ../private/theirs: no such folder\n")
    assert not (repo / "site").exists()


SITE = "https://trainwreck.example/"


def test_export_holds_both_catalogs(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A rule per entry of both folders; the private one's, whole, under its own category.
    import yaml

    from generator.fleet.sigma import rule_id

    out = repo.parent / "rules"
    assert main(["export", "sigma", *BOTH, "--out", str(out), "--base-url", SITE]) == 0
    ids = sorted([*(s.id for s in SPECS), HEARTBEAT.id])
    quoted = "A log that quotes the message without the failure happening (a test suite, a "
    quoted += "tutorial)"
    assert capsys.readouterr() == (
        "",
        f"{len(ids)} rule(s), 0 entr(ies) skipped; wrote {len(ids)} file(s) under "
        f"{(out / 'sigma').as_posix()}/\n",
    )
    assert sorted(p.name for p in (out / "sigma").iterdir()) == [f"{i}.yml" for i in ids]
    rule = yaml.safe_load((out / "sigma" / f"{HEARTBEAT.id}.yml").read_text())
    assert rule == {
        "title": HEARTBEAT.title,
        "id": rule_id(HEARTBEAT.id),
        "status": "experimental",
        "description": "The driver lost contact with the GPU over **PCIe**; the device is gone "
        "until a reset.",
        "references": [
            f"{SITE}failures/{HEARTBEAT.id}/",
            "https://docs.nvidia.com/deploy/xid-errors/index.html",
        ],
        "author": "Trainwreck contributors",
        "date": "2026-11-29",
        "tags": ["trainwreck.xid", "trainwreck.pcie", "trainwreck.category-acme-launcher"],
        "logsource": {"category": "application", "product": "ml-training"},
        "detection": {
            "keywords": {"|re": ["acme-agent: lost heartbeat from worker [0-9]+ after [0-9]+s"]},
            "condition": "keywords",
        },
        "falsepositives": [quoted],
        "level": "high",
    }


def test_export_names_a_missing_folder(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = repo.parent / "rules"
    argv = ["export", "sigma", "--entries", "entries", "--entries", "../private/theirs"]
    assert main([*argv, "--out", str(out)]) == 2
    assert capsys.readouterr() == (
        "",
        "trainwreck: ../private/theirs: no catalog here; pass --entries DIR\n",
    )
    assert not out.exists()


@pytest.mark.parametrize("command", ["validate", "diagnose", "export sigma --out x"])
def test_a_folder_named_twice_is_said_once(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39, defect 7: the public folder named twice gave one duplicate-id error per entry,
    each naming a file as a duplicate of itself."""

    repo = Path(__file__).resolve().parents[1]
    entries = str(repo / "entries")
    args = [*command.split(), "--entries", entries, "--entries", entries + "/"]
    if command == "diagnose":
        args.append(str(repo / "corpus" / "benign"))
    assert main(args) == 2
    assert capsys.readouterr() == (
        "",
        f"trainwreck: {entries}/: --entries names this folder twice ({entries} and {entries}/ "
        "are one folder); name it once\n",
    )
