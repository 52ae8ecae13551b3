"""Ranks, timestamps and hosts read from real line shapes and real file layouts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose import lineinfo
from generator.diagnose.lineinfo import LineInfo, Timestamp, rank_from_path, read_line


def stamp(text: str, absolute: float | None, yearless: float | None, boot: float | None = None):  # type: ignore[no-untyped-def]
    return Timestamp(text, absolute, yearless, boot)


# Yearless keys count seconds from January 1 of a leap year; June 26 starts 177 days in.
JUN26 = (31 + 29 + 31 + 30 + 31 + 25) * 86400.0


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught",
            LineInfo(
                1,
                1,
                stamp("--06-26T06:24:44.903881913", None, JUN26 + 23084.903881913),
                None,
            ),
        ),
        (
            "[default3]:E0626 06:24:44.903000 1234 api.py:833] failed (exitcode: 1)",
            LineInfo(3, None, stamp("--06-26T06:24:44.903000", None, JUN26 + 23084.903), None),
        ),
        (
            "3: 2024-06-26 06:24:44,903 - INFO - step 10",
            LineInfo(
                3,
                None,
                stamp("2024-06-26T06:24:44.903", 1719383084.903, JUN26 + 23084.903),
                None,
            ),
        ),
        (
            " 12: [rank12]: torch.OutOfMemoryError: CUDA out of memory.",
            LineInfo(12, None, None, None),
        ),
        (
            "2024-07-02T11:42:07.481+02:00 ERROR step 650 failed",
            LineInfo(
                None,
                None,
                stamp("2024-07-02T11:42:07.481+02:00", 1719913327.481, 15846127.481),
                None,
            ),
        ),
        (
            "[2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR]",
            LineInfo(
                None,
                None,
                stamp("2024-05-08T08:47:31.877", 1715158051.877, 11090851.877),
                None,
            ),
        ),
        (
            "[Tue Jul  2 08:58:41 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234",
            LineInfo(None, None, stamp("2024-07-02T08:58:41", 1719910721.0, 15843521.0), None),
        ),
        (
            "[  123.456789] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234",
            LineInfo(None, None, stamp("boot+123.456789s", None, None, 123.456789), None),
        ),
        (
            "Dec  2 11:38:47 worker4 kernel: [  219.470994] NVRM: Xid (PCI:0000:07:00): 48, ",
            LineInfo(None, None, stamp("--12-02T11:38:47", None, 29072327.0), "worker4"),
        ),
        (
            "gpu-node-02:48215:48395 [1] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion",
            LineInfo(None, None, None, "gpu-node-02"),
        ),
        (
            "5: gpu-node-02:48215:48395 [1] NCCL INFO proxy.cc:694 -> 6",
            LineInfo(5, None, None, "gpu-node-02"),
        ),
        (
            "  what():  [PG 3 Rank 5] Process group watchdog thread terminated with exception",
            LineInfo(None, 5, None, None),
        ),
        (
            # Not a date (month 13), not a rank ("rank 5" is lowercase prose), no host.
            "Parameters which did not receive grad for rank 5: 2024-13-01 00:00:00",
            LineInfo(None, None, None, None),
        ),
    ],
)
def test_read_line(line: str, expected: LineInfo) -> None:
    assert read_line(line) == expected


@pytest.mark.parametrize(
    ("path", "rank"),
    [
        ("logs/rank3.log", 3),
        ("logs/job-4242-rank-17.out.gz", 17),
        ("logs/train_rank_03.txt", 3),
        ("run/4242_x/attempt_0/5/stdout.log", 5),
        ("logs/rank7/stdout.log", 7),
        ("logs/node2/stdout.log", 2),
        ("logs/node2/rank13.log", 13),
        ("logs/franky3.log", None),
        ("logs/train.log", None),
        ("<stdin>", None),
    ],
)
def test_rank_from_path(path: str, rank: int | None) -> None:
    assert rank_from_path(path) == rank


@settings(max_examples=300, deadline=None)
@given(
    st.text("0123456789", min_size=3, max_size=4),
    *(st.text("0123456789", min_size=2, max_size=2) for _ in range(3)),
    st.text("0123456789", min_size=1, max_size=9),
)
def test_a_glog_time_read_by_its_second_is_the_time_read_whole(
    date: str, hour: str, minute: str, second: str, frac: str
) -> None:
    # _yearless_glog keeps what a second gives (text, seconds to its minute) for the lines
    # that print it again; the Timestamp, floats included, must be _wall's, or None as its.
    whole = lineinfo._wall(
        None, int(date[-4:-2]), int(date[-2:]), (int(hour), int(minute), int(second)), frac
    )
    assert lineinfo._yearless_glog(date, hour, minute, second, frac) == whole
