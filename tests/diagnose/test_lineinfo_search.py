"""The fast searches of lineinfo.py find exactly what their regular expressions find.

`_iso_search` and `_nccl_host_search` replace a plain `search` of `_ISO` and `_NCCL_HOST`,
which Python's engine tries at every character (a 300-character word cost the host search
almost a millisecond). The browser engine still runs the plain expressions, so any difference
would also split the two engines: each is checked against its expression on generated lines
made of the characters those expressions care about, and on the corners that set them apart.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose.lineinfo import _ISO, _NCCL_HOST, _iso_search, _nccl_host_search

ISO_TEXT = st.text(alphabet="0123456789-:T _.,Z+x", max_size=80)
HOST_TEXT = st.text(alphabet="ab9_.-: [0]1", max_size=60)


def iso_span(text: str) -> tuple[int, int, tuple[str | None, ...]] | None:
    m = _iso_search(text)
    return None if m is None else (m.start(), m.end(), m.groups())


def iso_expected(text: str) -> tuple[int, int, tuple[str | None, ...]] | None:
    m = _ISO.search(text)
    return None if m is None else (m.start(), m.end(), m.groups())


def host_expected(text: str, endpos: int) -> tuple[int, str] | None:
    m = _NCCL_HOST.search(text, 0, endpos)
    return None if m is None else (m.start(), m.group(1))


@settings(max_examples=1000, deadline=None)
@given(ISO_TEXT)
def test_iso_search_is_the_expression_s_search(text: str) -> None:
    assert iso_span(text) == iso_expected(text)


@settings(max_examples=1000, deadline=None)
@given(HOST_TEXT, st.integers(min_value=0, max_value=70))
def test_nccl_host_search_is_the_expression_s_search(text: str, endpos: int) -> None:
    assert _nccl_host_search(text, endpos) == host_expected(text, endpos)


@pytest.mark.parametrize(
    "text",
    [
        "12024-06-26 06:24:44 a digit before the year: not a time",
        "x 2024-06-26 06:24:44,903 after a word",
        "-" * 40 + " 2024-06-26T06:24:44Z after more dashes than are tried one by one",
        "2024-06-2 2024-06-26 06:24:44 a broken date first",
        "step-1 lr-2 wd-3 dp-4 tp-5 pp-6 cp-7 ep-8 sp-9 2024-06-26 06:24:44 late",
        "",
        "-",
    ],
)
def test_iso_search_corners(text: str) -> None:
    assert iso_span(text) == iso_expected(text)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("gpu-node-01:1234:5678 [0] NCCL INFO", (0, "gpu-node-01")),
        ("[2024-06-26] gpu-node-01:1234:5678 [0] NCCL INFO", (13, "gpu-node-01")),
        ("h:12:34:56 [0] a tail that fails at the first colon", (2, "12")),
        ("_.-:1:2 [3] a:1:2 [3] a run of no letter or digit", (12, "a")),
        ("__x9:1:2 [3] the run starts at its first letter", (2, "x9")),
        ("a" * 300 + ":1:2 [3] ", None),  # beyond endpos
        ("a" * 190 + ":1:2 [3] ", (0, "a" * 190)),
    ],
)
def test_nccl_host_search_corners(text: str, found: tuple[int, str] | None) -> None:
    assert _nccl_host_search(text, 200) == found == host_expected(text, 200)
