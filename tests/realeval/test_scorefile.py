"""Both engines give, case by case, the results committed in corpus/real/score.json.

A change to the engine or the catalog that turns a hit into a miss, or a miss into a hit, fails
here until `make realeval` rewrites the score file in the same commit, so the diff shows which
cases moved. The browser engine's files run in Node, as tests/browser/diagnose_node.js runs
them, and must give the very same results: its score is the Python engine's.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from generator.diagnose.index import IndexFile
from realeval.cases import read_cases
from realeval.engines import ENGINES, catalog_index
from realeval.scorefile import SCORE_FILE, moved, score, score_data


@cache
def index() -> IndexFile:
    return catalog_index()


def stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCORE_FILE.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("engine", ENGINES)
def test_the_engine_gives_the_committed_results_on_every_case(engine: str) -> None:
    cases = read_cases()
    want = stored()
    got = score_data(cases, score(engine, cases, index()), want["date"])
    assert moved(want["cases"], got["cases"]) == []
    assert got == want


def test_moved_names_each_case_that_changed_and_how() -> None:
    a = {"001": {"named": True, "said": "x"}, "002": {"named": False}}
    b = {"001": {"named": False, "said": "y"}, "003": {"named": True}}
    assert moved(a, b) == [
        "001: named: True -> False; said: 'x' -> 'y'",
        "002: removed",
        "003: added",
    ]
