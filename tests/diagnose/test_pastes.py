"""Pastes as people make them: each wrapper, taken off, leaves the diagnosis as it was.

Every wrapper of pastes.py is put around every line of real multi-rank logs (an unknown
exception on rank 3 with NCCL collateral, torchrun's SIGSEGV summary, srun's task errors), and
the complete JSON diagnosis must equal the unwrapped log's. Two wrappers carry information of
their own and get their own tests: a timestamp before the rank prefix (it is the line's time)
and `kubectl logs --prefix` (a pod whose name ends in an index names the rank).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog import index
from pastes import WRAPPERS

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.paste import Unwrapped, unwrap
from generator.diagnose.report import to_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "launchers"
INDEX = index()
LOGS = ("unknown-exception-rank3.log", "torchrun-2-gloo-sigsegv.log", "srun-segfault.out")


def diagnose(name: str, raw: bytes) -> dict[str, object]:
    return to_json(diagnose_logs(INDEX, [LogBytes(name, raw)]).diagnosis)


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("name", LOGS)
def test_a_wrapped_log_diagnoses_exactly_as_the_log(wrapper: str, name: str) -> None:
    raw = (FIXTURES / name).read_bytes()
    expected = diagnose(name, raw)
    assert expected["first_failed_rank"] is not None
    assert diagnose(name, WRAPPERS[wrapper](raw)) == expected


def test_a_timestamp_before_the_rank_prefix_is_the_lines_time() -> None:
    log = (
        "2024-06-28T09:31:19.873Z [rank3]: Traceback (most recent call last):\n"
        '2024-06-28T09:31:19.873Z [rank3]:   File "/work/train.py", line 120, in <module>\n'
        "2024-06-28T09:31:19.874Z [rank3]: KeyError: 'input_ids'\n"
    )
    assert diagnose("job.log", log.encode()) == {
        "findings": [],
        "first_failed_rank": 3,
        "unrecognized": [
            {
                "file": "job.log",
                "line": 3,
                "rank": 3,
                "time": "2024-06-28T09:31:19.874Z",
                "text": "[rank3]: KeyError: 'input_ids'",
                "kind": "python-exception",
            }
        ],
        # The frame is read through the timestamp before the rank prefix, as its line is.
        "culprit": {
            "file": "job.log",
            "line": 3,
            "package": None,
            "raised_in": None,
            "called_from": {"path": "/work/train.py", "line": 120, "function": "<module>"},
            "names": [{"kind": "key", "value": "input_ids"}],
            "versions": [],
        },
        "launcher": [],
    }


def test_a_kubernetes_pod_that_ends_in_an_index_names_the_rank() -> None:
    log = (
        "[pod/train-worker-0/pytorch] step 10 loss 2.1\n"
        "[pod/train-worker-2/pytorch] Traceback (most recent call last):\n"
        '[pod/train-worker-2/pytorch]   File "train.py", line 9, in <module>\n'
        "[pod/train-worker-0/pytorch] step 11 loss 2.0\n"
        "[pod/train-worker-2/pytorch] ValueError: expected m1 and m2 to have the same dtype\n"
    )
    got = diagnose("kubectl.log", log.encode())
    assert got["first_failed_rank"] == 2
    assert got["unrecognized"] == [
        {
            "file": "kubectl.log",
            "line": 5,
            "rank": 2,
            "time": None,
            "text": "ValueError: expected m1 and m2 to have the same dtype",
            "kind": "python-exception",
        }
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("> > [rank3]: x", Unwrapped("[rank3]: x", None, None, None)),
        ("**RuntimeError: boom**", Unwrapped("RuntimeError: boom", None, None, None)),
        ("[1824] 3: x", Unwrapped("3: x", None, None, None)),
        ("node7: [rank1]: x", Unwrapped("[rank1]: x", "node7", None, None)),
        ("trainer-1  | x", Unwrapped("x", None, None, None)),
        ("[pod/train-3-x7k2p/c] x", Unwrapped("x", None, 3, None)),
        (
            "2024-06-28 09:31:19 [rank3]: x",
            Unwrapped("[rank3]: x", None, None, "2024-06-28 09:31:19"),
        ),
        # Lines that only look like wrappers stay as they are.
        ("RuntimeError: boom", Unwrapped("RuntimeError: boom", None, None, None)),
        ("error: RPC failed", Unwrapped("error: RPC failed", None, None, None)),
        ("3: x", Unwrapped("3: x", None, None, None)),
        (
            "*** SIGSEGV (@0x0) received by PID 7 ***",
            Unwrapped("*** SIGSEGV (@0x0) received by PID 7 ***", None, None, None),
        ),
        ("[  123.456] NVRM: Xid", Unwrapped("[  123.456] NVRM: Xid", None, None, None)),
        (
            '  File "x.py", line 3, in __init__',
            Unwrapped('  File "x.py", line 3, in __init__', None, None, None),
        ),
    ],
)
def test_unwrap_takes_off_wrappers_and_nothing_else(line: str, expected: Unwrapped) -> None:
    assert unwrap(line) == expected
