"""The JSON report's layout (report.py `json_report`): `json.dumps(..., indent=2)`, but a list
of numbers (a finding's ranks) stands on one line."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose.report import _indented

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_the_layout_is_json_dumps_with_number_lists_on_one_line(value: Any) -> None:
    text = _indented(value)
    assert json.loads(text) == json.loads(json.dumps(value))
    # Every line but those of number lists is the indenting encoder's.
    expected = json.dumps(value, indent=2)
    for numbers in _number_lists(value):
        expected = expected.replace(_spread(numbers, expected), json.dumps(numbers), 1)
    assert text == expected


def _number_lists(value: Any) -> list[list[int]]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _number_lists(v)]
    if isinstance(value, list):
        if value and all(type(v) is int for v in value):
            return [value]
        return [n for v in value for n in _number_lists(v)]
    return []


def _spread(numbers: list[int], text: str) -> str:
    """The list as the indenting encoder wrote it in `text`, found by its first item's line."""
    first = "[\n"
    at = text.index(first + " ")
    while True:
        depth = len(text[at + 2 :]) - len(text[at + 2 :].lstrip(" "))
        spread = "[\n" + ",\n".join(" " * depth + str(n) for n in numbers)
        spread += "\n" + " " * (depth - 2) + "]"
        if text.startswith(spread, at):
            return spread
        at = text.index(first + " ", at + 1)


def test_a_findings_ranks_stand_on_one_line() -> None:
    report = {"findings": [{"id": "x", "ranks": [0, 1, 2], "first": {"rank": 0}}], "r": None}
    assert _indented(report) == (
        "{\n"
        '  "findings": [\n'
        "    {\n"
        '      "id": "x",\n'
        '      "ranks": [0, 1, 2],\n'
        '      "first": {\n'
        '        "rank": 0\n'
        "      }\n"
        "    }\n"
        "  ],\n"
        '  "r": null\n'
        "}"
    )
