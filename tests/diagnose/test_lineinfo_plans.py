"""A line's head is read by a plan made from its shape: the line with every digit as a zero.

`_read_head` reads a storm of distinct lines (a watchdog line per rank, each with its own time
and sequence number) by a few plans, one per shape, because every rule of lineinfo.py and
paste.py treats the ten digits alike. These tests hold that promise: a plan made from a line
and one made from its shape are the same plan, and reading a line by either gives what the
line's own plan gives, whatever digits it holds (valid or not as a date: a month 13 must fall
through to the next time in the line, as it did before plans).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose.lineinfo import (
    DIGITS_ALIKE,
    LineInfo,
    Timestamp,
    _plan,
    _read_by,
    has_time_by,
    own_host_of,
    read_line_parts,
    read_ranks_by,
    time_test_of,
)

DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=4)


@st.composite
def fragment(draw: st.DrawFn) -> str:
    n = [draw(DIGITS) for _ in range(8)]
    return draw(
        st.sampled_from(
            [
                f"[rank{n[0]}]:",
                f"[default{n[0]}]:",
                f"{n[0]}: ",
                f"[{n[0]},{n[1]}]<stdout>:",
                f"[{n[0]}] ",
                "> ",
                "**",
                f"trainer-{n[0]}  | ",
                f"node{n[0]}: ",
                f"[pod/train-worker-{n[0]}/pytorch] ",
                f"{n[0]}-{n[1]}-{n[2]}T{n[3]}:{n[4]}:{n[5]}.{n[6]}Z ",
                f"{n[0]}-{n[1]}-{n[2]} {n[3]}:{n[4]}:{n[5]},{n[6]}+{n[7]}:00 ",
                f"[E{n[0]} {n[1]}:{n[2]}:{n[3]}.{n[4]} ProcessGroupNCCL.cpp:{n[5]}] ",
                f"I{n[0]}{n[1]} {n[2]}:{n[3]}:{n[4]}.{n[5]} ",
                f"[Wed Jun {n[0]} {n[1]}:{n[2]}:{n[3]} {n[4]}] ",
                f"Jun {n[0]} {n[1]}:{n[2]}:{n[3]} gpu{n[4]} kernel: ",
                f"[ {n[0]}.{n[1]}] ",
                f"gpu-a{n[0]}-{n[1]}:{n[2]}:{n[3]} [{n[4]}] NCCL INFO ",
                f"[Rank {n[0]}] ",
                f"Rank {n[0]}",
                f"SeqNum={n[0]}, NumelIn={n[1]} ",
                "Watchdog caught collective operation timeout ",
                " ",
                "-",
                "\u00b2",
            ]
        )
    )


LINES = st.lists(fragment(), min_size=1, max_size=8).map("".join)


def shape(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").translate(DIGITS_ALIKE).decode()


@settings(max_examples=2000, deadline=None)
@given(LINES)
def test_a_line_and_its_shape_have_one_plan(text: str) -> None:
    assert _plan(shape(text)) == _plan(text)


@settings(max_examples=2000, deadline=None)
@given(LINES)
def test_a_line_reads_alike_by_its_shape_s_plan(text: str) -> None:
    assert read_line_parts(text) == _read_by(_plan(text), text)


@st.composite
def timed(draw: st.DrawFn) -> str:
    """A head of times and hosts whose fields have their patterns' widths, so that most of
    them are read as times, valid or not by their values."""

    def d(width: int) -> str:
        if width == 2:  # valid and invalid months, days, hours, minutes and seconds
            return draw(
                st.sampled_from(["00", "01", "06", "12", "13", "23", "24", "31", "59", "61"])
            )
        if width == 8:  # a glog date with its year
            return draw(st.sampled_from(["20240626", "20240230", "20241301"]))
        return draw(st.text(alphabet="0123456789", min_size=width, max_size=width))

    pieces = [
        lambda: f"[rank{d(1)}]:",
        lambda: f"[E{d(3)} {d(2)}:{d(2)}:{d(2)}.{d(6)} x.cpp:1] ",
        lambda: f"I{d(4)} {d(2)}:{d(2)}:{d(2)}.{d(3)} ",
        lambda: f"W{d(8)} {d(2)}:{d(2)}:{d(2)}.{d(3)} ",
        lambda: f"{d(4)}-{d(2)}-{d(2)}T{d(2)}:{d(2)}:{d(2)}.{d(3)}Z ",
        lambda: f"{d(4)}-{d(2)}-{d(2)} {d(2)}:{d(2)}:{d(2)},{d(3)}+{d(2)}:00 ",
        lambda: f"Jun {d(2)} {d(2)}:{d(2)}:{d(2)} gpu{d(1)} kernel: ",
        lambda: f"[Wed Jun {d(2)} {d(2)}:{d(2)}:{d(2)} {d(4)}] ",
        lambda: f"[ {d(3)}.{d(6)}] ",
        lambda: f"gpu-a{d(2)}:{d(2)}:{d(2)} [{d(1)}] NCCL INFO ",
        lambda: f"[pod/train-worker-{d(1)}/pytorch] ",
        lambda: f"2024-{d(2)}-{d(2)}T{d(2)}:{d(2)}:{d(2)}.{d(3)}Z [rank{d(1)}]:",  # a lead time
        lambda: "Watchdog caught collective operation timeout ",
    ]
    chosen = draw(st.lists(st.sampled_from(range(len(pieces))), min_size=1, max_size=4))
    return "".join(pieces[i]() for i in chosen)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(LINES, timed()), st.data())
def test_a_plan_tells_a_time_and_the_host_without_reading_them(
    text: str, data: st.DataObject
) -> None:
    # Another line of the same shape: the plan is the first line's, the values its own.
    other = "".join(
        data.draw(st.sampled_from("0123456789")) if c == "0" else c for c in shape(text)
    )
    plan = _plan(text)
    decided, place = own_host_of(plan)
    for line in (text, other):
        info = _read_by(plan, line)[0]
        assert has_time_by(plan, line) == (info.time is not None)
        assert time_test_of(plan)(line) == (info.time is not None)
        if decided:
            assert info.host == (line[place[0] : place[1]] if place is not None else None)


@settings(max_examples=2000, deadline=None)
@given(LINES, st.sampled_from([None, 0, 7]))
def test_a_plan_tells_the_ranks_without_reading_the_time(text: str, file_rank: int | None) -> None:
    # The prefix's rank, and the rank of a line no launcher reports: the prefix's, else the
    # one its file's path names, else the text's (scan.Scanner._match).
    info = _read_by(_plan(text), text)[0]
    chosen = info.prefix_rank
    if chosen is None:
        chosen = file_rank if file_rank is not None else info.text_rank
    assert read_ranks_by(_plan(text), text, file_rank) == (info.prefix_rank, chosen)


def test_lines_of_one_shape_read_their_own_values() -> None:
    first = "[rank3]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog"
    second = "[rank7]:[E626 06:25:49.000000001 ProcessGroupNCCL.cpp:616] [Rank 7] Watchdog"
    assert shape(first) == shape(second)
    assert read_line_parts(first)[0] == LineInfo(
        3,
        3,
        Timestamp("--06-26T06:24:44.903881913", None, pytest.approx(15315884.903881913), None),
        None,
    )
    assert read_line_parts(second)[0] == LineInfo(
        7,
        7,
        Timestamp("--06-26T06:25:49.000000001", None, pytest.approx(15315949.000000001), None),
        None,
    )


def test_an_invalid_date_falls_through_to_the_next_time_as_its_shape_allows() -> None:
    # Month 13 is no date: the glog time after it is the line's. Month 12 is: it wins.
    bad = "2024-13-26T06:24:44Z [E626 06:24:45.000000000 x.cpp:1] oops"
    good = "2024-12-26T06:24:44Z [E626 06:24:45.000000000 x.cpp:1] oops"
    assert shape(bad) == shape(good)
    assert read_line_parts(bad)[0].time == Timestamp(
        "--06-26T06:24:45.000000000", None, 15315885.0, None
    )
    time = read_line_parts(good)[0].time
    assert time is not None and time.text == "2024-12-26T06:24:44Z"
