"""Edge cases of the line readers that once crashed or disagreed with the browser engine.

Ranks, times and hosts are read from ASCII digits and names only, as the browser engine does.

Python's `re` matches any Unicode digit with `\\d` and any letter with `\\w`; JavaScript's do not.
Without `re.ASCII` the two engines read different ranks and hosts from the same line, and
`rank_from_path` crashed on a folder named with a superscript digit (`str.isdigit` is true for
`²`, `int` refuses it).
"""

from __future__ import annotations

import pytest

from generator.diagnose.lineinfo import LineInfo, rank_from_path, read_line


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[PG 0 Rank \u0663] Watchdog caught", LineInfo(None, None, None, None)),  # Arabic-Indic 3
        ("[rank\uff13]: x", LineInfo(None, None, None, None)),  # fullwidth 3
        ("\u0663: x", LineInfo(None, None, None, None)),
        ("gpu-n\u00f6de:1:2 [0] NCCL INFO Bootstrap", LineInfo(None, None, None, None)),
        ("Jul  2 08:58:41 w\u00f6rker4 kernel: x", LineInfo(None, None, None, None)),
        ("2024-06-26 06:24:4\u0664,903 x", LineInfo(None, None, None, None)),
    ],
)
def test_non_ascii_digits_and_letters_are_not_ranks_times_or_hosts(
    line: str, expected: LineInfo
) -> None:
    assert read_line(line) == expected


@pytest.mark.parametrize(
    ("path", "rank"),
    [
        ("run/attempt_0/\u00b2/stdout.log", None),  # used to raise ValueError
        ("run/attempt_0/\u0663/stdout.log", None),
        ("run/attempt_0/1234567/stdout.log", None),  # ranks have at most 6 digits everywhere
        ("run/attempt_0/123456/stdout.log", 123456),
        ("logs/ran\u212a3.log", None),  # KELVIN SIGN is not a k
        ("logs/RANK3.log", 3),
    ],
)
def test_rank_from_path_reads_ascii_digits_only(path: str, rank: int | None) -> None:
    assert rank_from_path(path) == rank


@pytest.mark.parametrize("line", ["0001-01-01 00:00:00+05:00 x", "9999-12-31T23:59:59-01:00 x"])
def test_a_zone_that_moves_a_time_out_of_years_1_to_9999_gives_no_time(line: str) -> None:
    # These used to raise ValueError ("year 0 is out of range") and stop the whole diagnosis.
    assert read_line(line) == LineInfo(None, None, None, None)
