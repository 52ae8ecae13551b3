"""The failure lab's committed logs (corpus/lab/) in the browser engine: the Python verdict.

Each log runs through the page's real Web Worker and through the Python engine, both with the
built site's /signatures.json; the reports must be identical, and the browser's verdict must be
the one lab/scenarios.toml expects (tests/lab/ checks the Python side on its own).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.browser.diagnose_support import REPO, browser_results, python_result, site_index

sys.path.insert(0, str(REPO / "lab"))

import verdict as lab

pytestmark = pytest.mark.browser


def test_the_browser_engine_gives_the_lab_verdicts(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
) -> None:
    site, url = site_dir
    index = site_index(site)
    scenarios = {s["name"]: s for s in lab.scenarios()}
    logs = sorted(lab.CORPUS.glob("*/*.log"))
    assert logs
    cases = [[(f"{p.parent.name}/{p.name}", p.read_bytes())] for p in logs]
    expected = [python_result(index, case) for case in cases]
    got = browser_results(page, url, cases)
    names = [case[0][0] for case in cases]
    assert dict(zip(names, got, strict=True)) == dict(zip(names, expected, strict=True))
    wrong = {}
    for path, result in zip(logs, got, strict=True):
        s = scenarios[path.stem]
        report = result["json"]
        roots = [f["id"] for f in report["findings"] if f["role"] == "root-cause"]
        v = lab.Verdict(roots[0] if roots else None, report["first_failed_rank"], report)
        build = lab.build_of(path)
        problems = lab.check(s, v, build)
        if problems and not lab.expectation(s, build).get("gap"):
            wrong[f"{path.parent.name}/{path.name}"] = problems
    assert wrong == {}
    assert page.errors == []
