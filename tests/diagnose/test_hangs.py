"""Stack dumps of a hung job (generator/diagnose/hangs.py): where each rank waits, and the odd
one out, on the lab's faulthandler and py-spy dumps and on dumps as the tools print them."""

from __future__ import annotations

from generator.diagnose.hangs import Stacks, main_thread, odd_ones_out, where_of


def _stacks(lines: list[tuple[int, str]]) -> Stacks:
    stacks = Stacks()
    for number, (rank, body) in enumerate(lines, start=1):
        stacks.read(rank, body, number, 0, body)
    return stacks


def _wheres(stacks: Stacks) -> dict[int, str]:
    out = {}
    for rank, threads in stacks.threads.items():
        thread = main_thread(threads)
        where = where_of(thread) if thread else None
        if where is not None:
            out[rank] = where.key
    return out


# faulthandler's dump_traceback_later, as the lab's stall-dataloader-one-rank printed it
# (Python 3.11.7): a feeder thread first, then each rank's main thread.
FAULTHANDLER = [
    (0, "Thread 0x00007f1b8ffff6c0 (most recent call first):"),
    (0, '  File "/usr/lib/python3.11/threading.py", line 327 in wait'),
    (0, '  File "/usr/lib/python3.11/threading.py", line 1002 in _bootstrap'),
    (0, ""),
    (0, "Thread 0x00007f1bbc612b80 (most recent call first):"),
    (1, "Current thread 0x00007f0542ca0b80 (most recent call first):"),
    (1, '  File "/usr/lib/python3.11/selectors.py", line 415 in select'),
    (0, '  File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", '
        "line 3252 in all_reduce"),
    (1, '  File "/usr/lib/python3.11/multiprocessing/queues.py", line 113 in get'),
    (0, '  File "/work/train.py", line 656 in <module>'),
    (1, '  File "/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1291 '
        "in _try_get_data"),
    (1, '  File "/work/train.py", line 656 in <module>'),
]  # fmt: skip

# py-spy dump (0.4.3), one process per rank
PYSPY = [
    (0, 'Thread 24727 (idle): "MainThread"'),
    (0, "    all_reduce (torch/distributed/distributed_c10d.py:3252)"),
    (0, "    <module> (train.py:656)"),
    (1, 'Thread 24728 (idle): "MainThread"'),
    (1, "    select (selectors.py:415)"),
    (1, "    _MultiProcessingDataLoaderIter._try_get_data (torch/utils/data/dataloader.py:1291)"),
    (1, "    <module> (train.py:656)"),
    (2, 'Thread 24729 (active+gil): "MainThread"'),
    (2, "    all_reduce (torch/distributed/distributed_c10d.py:3252)"),
]


def test_faulthandler_dumps_give_each_ranks_main_thread_and_where_it_waits() -> None:
    stacks = _stacks(FAULTHANDLER)
    assert [len(stacks.threads[r]) for r in (0, 1)] == [2, 1]
    assert _wheres(stacks) == {
        0: "all_reduce (torch/distributed/distributed_c10d.py)",
        1: "_try_get_data (torch/utils/data/dataloader.py)",
    }


def test_the_rank_outside_a_collective_is_the_odd_one_out() -> None:
    stacks = _stacks(PYSPY)
    wheres = {r: where_of(main_thread(t)) for r, t in stacks.threads.items()}  # type: ignore[arg-type]
    odd, groups = odd_ones_out({r: w for r, w in wheres.items() if w is not None})
    assert odd == [1]
    assert groups == {
        "all_reduce (torch/distributed/distributed_c10d.py)": [0, 2],
        "_MultiProcessingDataLoaderIter._try_get_data (torch/utils/data/dataloader.py)": [1],
    }


def test_ranks_in_different_collectives_name_the_smaller_group_and_a_tie_names_none() -> None:
    lines = [
        (0, 'Thread 1 (idle): "MainThread"'),
        (0, "    all_reduce (torch/distributed/distributed_c10d.py:10)"),
        (1, 'Thread 2 (idle): "MainThread"'),
        (1, "    all_reduce (torch/distributed/distributed_c10d.py:10)"),
        (2, 'Thread 3 (idle): "MainThread"'),
        (2, "    barrier (torch/distributed/distributed_c10d.py:20)"),
    ]
    stacks = _stacks(lines)
    wheres = {r: where_of(main_thread(t)) for r, t in stacks.threads.items()}  # type: ignore[arg-type]
    assert odd_ones_out({r: w for r, w in wheres.items() if w})[0] == [2]
    del wheres[1]
    assert odd_ones_out({r: w for r, w in wheres.items() if w})[0] == []


def test_a_line_that_is_no_frame_ends_the_thread_and_lines_without_a_rank_are_not_read() -> None:
    stacks = _stacks([*PYSPY[:2], (0, "some other output"), (0, "    x (y.py:1)")])
    assert [len(t.frames) for t in stacks.threads[0]] == [1]
    assert not Stacks().read(None, 'Thread 1 (idle): "MainThread"', 1, 0, "")
