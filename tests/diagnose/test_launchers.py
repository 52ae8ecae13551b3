"""Launchers are witnesses, and a failure the catalog lacks is still a diagnosis.

The logs in tests/fixtures/launchers/ hold launcher output in the wording of each launcher's
source (README.md there says where each line comes from): torchrun's agent line and failure
summary in PyTorch 2.x form (`rank      : 2 (local_rank: 2)`, Root Cause last) and in PyTorch
1.9 form (`rank: 1 (local_rank: 1)`, Root Cause first), Slurm srun's task errors, Open MPI's
mpirun notice and DeepSpeed's launcher. Each is diagnosed with the small test catalog
(catalog.py), which knows none of these failures except torchrun's ChildFailedError and the
NCCL watchdog timeout, and each test asserts the complete JSON diagnosis. (With only a SIGKILL
to go on, ChildFailedError stays the root cause: a fatal signal follows an error more often
than it precedes one; the launcher's report still names rank 1 and what SIGKILL means.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from catalog import SPECS, Spec, index

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.report import to_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "launchers"
INDEX = index()


def diagnose(name: str) -> dict[str, Any]:
    raw = (FIXTURES / name).read_bytes()
    return to_json(diagnose_logs(INDEX, [LogBytes(name, raw)]).diagnosis)


# The shell's `Killed` closing a progress bar it cut short (case 368 of corpus/real/).
KILLED_LINE = "  6%|" + "\u2588" * 6 + " " * 95 + "| 3787/62565 [04:47<1:10:53, 13.82it/s]Killed"

EXPECTED = {
    "deepspeed-killed.log": {
        "findings": [],
        # The command DeepSpeed quotes is the last one it built (local_rank=1 of 2), whichever
        # rank failed: the report names no rank.
        "first_failed_rank": None,
        "unrecognized": [
            {
                "file": "deepspeed-killed.log",
                "line": 2,
                "rank": None,
                "time": "2023-11-28T10:00:34.590",
                "text": "[2023-11-28 10:00:34,590] [ERROR] "
                "[launch.py:321:sigkill_handler] "
                "['/usr/bin/python3', '-u', 'finetune.py', "
                "'--local_rank=1', '--deepspeed', "
                "'ds_config.json'] exits with return code "
                "= -9",
                "kind": "signal",
            }
        ],
        "culprit": None,
        "launcher": [
            {
                "launcher": "deepspeed",
                "rank": None,
                "local": True,
                "exitcode": -9,
                "signal": "SIGKILL",
                "meaning": "exit code -9: SIGKILL, killed from "
                "outside: most often the host's "
                "out-of-memory killer, else the scheduler",
                "root": False,
                "file": "deepspeed-killed.log",
                "line": 2,
                "time": "2023-11-28T10:00:34.590",
                "text": "[2023-11-28 10:00:34,590] [ERROR] "
                "[launch.py:321:sigkill_handler] "
                "['/usr/bin/python3', '-u', 'finetune.py', "
                "'--local_rank=1', '--deepspeed', "
                "'ds_config.json'] exits with return code = "
                "-9",
            }
        ],
    },
    "mpirun-abort.log": {
        "findings": [],
        "first_failed_rank": 1,
        "unrecognized": [
            {
                "file": "mpirun-abort.log",
                "line": 9,
                "rank": 1,
                "time": None,
                "text": "mpirun noticed that process rank 1 with PID "
                "21755 on node gpu01 exited on signal 6 "
                "(Aborted).",
                "kind": "signal",
            }
        ],
        "culprit": None,
        "launcher": [
            {
                "launcher": "mpirun",
                "rank": 1,
                "local": False,
                "exitcode": None,
                "signal": "SIGABRT",
                "meaning": "SIGABRT, the process aborted itself: an "
                "uncaught C++ exception, a failed assertion, or "
                "the NCCL watchdog tearing it down after a "
                "collective failed",
                "root": False,
                "file": "mpirun-abort.log",
                "line": 9,
                "time": None,
                "text": "mpirun noticed that process rank 1 with PID 21755 "
                "on node gpu01 exited on signal 6 (Aborted).",
            }
        ],
    },
    "srun-segfault.out": {
        "findings": [],
        "first_failed_rank": 3,
        "unrecognized": [
            {
                "file": "srun-segfault.out",
                "line": 5,
                "rank": 3,
                "time": None,
                "text": "srun: error: gpu-node-02: task 3: Segmentation fault (core dumped)",
                "kind": "signal",
            }
        ],
        "culprit": None,
        "launcher": [
            {
                "launcher": "srun",
                "rank": 3,
                "local": False,
                "exitcode": None,
                "signal": "SIGSEGV",
                "meaning": "SIGSEGV, segmentation fault: native code (a "
                "CUDA or NCCL library, an extension, a data "
                "loader worker) touched memory it does not own",
                "root": False,
                "file": "srun-segfault.out",
                "line": 5,
                "time": None,
                "text": "srun: error: gpu-node-02: task 3: Segmentation fault (core dumped)",
            },
            {
                "launcher": "srun",
                "rank": 0,
                "local": False,
                "exitcode": None,
                "signal": "SIGTERM",
                "meaning": "SIGTERM, asked to stop: the launcher or "
                "scheduler ended it, usually after another "
                "rank failed or at the time limit",
                "root": False,
                "file": "srun-segfault.out",
                "line": 8,
                "time": "2024-06-27T03:12:40",
                "text": "srun: error: gpu-node-01: tasks 0-2: Terminated",
            },
        ],
    },
    "torchrun-1.9-summary.log": {
        "findings": [],
        "first_failed_rank": 1,
        "unrecognized": [
            {
                "file": "torchrun-1.9-summary.log",
                "line": 5,
                "rank": 1,
                "time": None,
                "text": "[default1]:RuntimeError: mat1 and "
                "mat2 shapes cannot be multiplied "
                "(64x512 and 256x10)",
                "kind": "python-exception",
            }
        ],
        "culprit": {
            "file": "torchrun-1.9-summary.log",
            "line": 5,
            "package": None,
            "raised_in": None,
            "called_from": {"path": "train.py", "line": 88, "function": "<module>"},
            "names": [],
            "versions": [],
        },
        "launcher": [
            {
                "launcher": "torchrun",
                "rank": 1,
                "local": False,
                "exitcode": 1,
                "signal": None,
                "meaning": "exit code 1: the program stopped with "
                "an error; its own output says which",
                "root": True,
                "file": "torchrun-1.9-summary.log",
                "line": 14,
                "time": "2021-07-14T10:23:34",
                "text": "  exitcode: 1 (pid: 3391)",
            },
            {
                "launcher": "torchrun",
                "rank": 1,
                "local": True,
                "exitcode": 1,
                "signal": None,
                "meaning": "exit code 1: the program stopped with "
                "an error; its own output says which",
                "root": False,
                "file": "torchrun-1.9-summary.log",
                "line": 6,
                "time": None,
                "text": "ERROR:torch.distributed.elastic.multiprocessing.api:failed "
                "(exitcode: 1) local_rank: 1 (pid: 3391) "
                "of binary: /usr/bin/python3",
            },
        ],
    },
    "torchrun-2-gloo-sigsegv.log": {
        "findings": [
            {
                "id": "elastic-child-failed",
                "title": "torchrun ChildFailedError",
                "role": "collateral",
                "count": 1,
                "ranks": [],
                "first": {
                    "file": "torchrun-2-gloo-sigsegv.log",
                    "line": 26,
                    "rank": None,
                    "time": "--03-15T10:02:16.452000",
                    "text": "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                },
            }
        ],
        "first_failed_rank": 2,
        "unrecognized": [
            {
                "file": "torchrun-2-gloo-sigsegv.log",
                "line": 20,
                "rank": 2,
                "time": "--03-15T10:02:16.452000",
                "text": "E0315 10:02:16.452000 4101 "
                "torch/distributed/elastic/multiprocessing/api.py:869] "
                "failed (exitcode: -11) local_rank: "
                "2 (pid: 4162) of binary: "
                "/usr/bin/python3",
                "kind": "signal",
            }
        ],
        "culprit": None,
        "launcher": [
            {
                "launcher": "torchrun",
                "rank": 2,
                "local": False,
                "exitcode": -11,
                "signal": "SIGSEGV",
                "meaning": "exit code -11: SIGSEGV, "
                "segmentation fault: native code (a "
                "CUDA or NCCL library, an extension, "
                "a data loader worker) touched "
                "memory it does not own",
                "root": True,
                "file": "torchrun-2-gloo-sigsegv.log",
                "line": 38,
                "time": "2025-03-15T10:02:16",
                "text": "  exitcode  : -11 (pid: 4162)",
            },
            {
                "launcher": "torchrun",
                "rank": 2,
                "local": True,
                "exitcode": -11,
                "signal": "SIGSEGV",
                "meaning": "exit code -11: SIGSEGV, "
                "segmentation fault: native code (a "
                "CUDA or NCCL library, an extension, "
                "a data loader worker) touched "
                "memory it does not own",
                "root": False,
                "file": "torchrun-2-gloo-sigsegv.log",
                "line": 20,
                "time": "--03-15T10:02:16.452000",
                "text": "E0315 10:02:16.452000 4101 "
                "torch/distributed/elastic/multiprocessing/api.py:869] "
                "failed (exitcode: -11) local_rank: 2 "
                "(pid: 4162) of binary: "
                "/usr/bin/python3",
            },
        ],
    },
    "torchrun-2-sigkill.log": {
        "findings": [
            {
                "id": "elastic-child-failed",
                "title": "torchrun ChildFailedError",
                "role": "root-cause",
                "count": 1,
                "ranks": [],
                "first": {
                    "file": "torchrun-2-sigkill.log",
                    "line": 5,
                    "rank": None,
                    "time": "--03-15T11:20:10.203000",
                    "text": "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                },
            }
        ],
        "first_failed_rank": 1,
        "unrecognized": [],
        "culprit": None,
        "launcher": [
            {
                "launcher": "torchrun",
                "rank": 1,
                "local": False,
                "exitcode": -9,
                "signal": "SIGKILL",
                "meaning": "exit code -9: SIGKILL, killed from "
                "outside: most often the host's "
                "out-of-memory killer, else the scheduler",
                "root": True,
                "file": "torchrun-2-sigkill.log",
                "line": 17,
                "time": "2025-03-15T11:20:10",
                "text": "  exitcode  : -9 (pid: 5182)",
            },
            {
                "launcher": "torchrun",
                "rank": 1,
                "local": True,
                "exitcode": -9,
                "signal": "SIGKILL",
                "meaning": "exit code -9: SIGKILL, killed from "
                "outside: most often the host's "
                "out-of-memory killer, else the scheduler",
                "root": False,
                "file": "torchrun-2-sigkill.log",
                "line": 4,
                "time": "--03-15T11:20:10.203000",
                "text": "E0315 11:20:10.203000 5120 "
                "torch/distributed/elastic/multiprocessing/api.py:869] "
                "failed (exitcode: -9) local_rank: 1 (pid: "
                "5182) of binary: /usr/bin/python3",
            },
        ],
    },
    "unknown-exception-rank3.log": {
        "findings": [
            {
                "id": "nccl-watchdog-timeout",
                "title": "NCCL watchdog timeout: Watchdog caught collective operation timeout",
                "role": "collateral",
                "count": 3,
                "ranks": [0, 1, 2],
                "first": {
                    "file": "unknown-exception-rank3.log",
                    "line": 12,
                    "rank": 0,
                    "time": "--06-28T09:41:20.742000000",
                    "text": "[rank0]:[E628 "
                    "09:41:20.742000000 "
                    "ProcessGroupNCCL.cpp:616] "
                    "[Rank 0] Watchdog caught "
                    "collective operation "
                    "timeout: "
                    "WorkNCCL(SeqNum=808, "
                    "OpType=ALLREDUCE, "
                    "NumelIn=9801523, "
                    "NumelOut=9801523, "
                    "Timeout(ms)=600000) ran for "
                    "600020 milliseconds before "
                    "timing out.",
                },
            }
        ],
        "first_failed_rank": 3,
        "unrecognized": [
            {
                "file": "unknown-exception-rank3.log",
                "line": 10,
                "rank": 3,
                "time": "2024-06-28T09:31:19.873",
                "text": "[rank3]: KeyError: 'input_ids'",
                "kind": "python-exception",
            }
        ],
        "culprit": {
            "file": "unknown-exception-rank3.log",
            "line": 10,
            "package": None,
            "raised_in": None,
            "called_from": {"path": "/work/data.py", "line": 61, "function": "collate"},
            "names": [{"kind": "key", "value": "input_ids"}],
            "versions": [],
        },
        "launcher": [],
    },
    "shell-killed.log": {
        "findings": [],
        "first_failed_rank": None,
        "unrecognized": [
            {
                "file": "shell-killed.log",
                "line": 13,
                "rank": None,
                "time": None,
                "text": KILLED_LINE,
                "kind": "signal",
            }
        ],
        "culprit": None,
        "launcher": [
            {
                "launcher": "shell",
                "rank": None,
                "local": False,
                "exitcode": None,
                "signal": "SIGKILL",
                "meaning": "SIGKILL, killed from outside: most often the host's "
                "out-of-memory killer, else the scheduler",
                "root": False,
                "file": "shell-killed.log",
                "line": 13,
                "time": None,
                "text": KILLED_LINE,
            }
        ],
    },
    "shell-zsh-segfault.log": {
        "findings": [],
        "first_failed_rank": None,
        "unrecognized": [
            {
                "file": "shell-zsh-segfault.log",
                "line": 1,
                "rank": None,
                "time": None,
                "text": "14957 segmentation fault (core dumped)  python train.py "
                "--pc_list_file ../data/data-split/all-train.txt --data_root",
                "kind": "signal",
            }
        ],
        "culprit": None,
        "launcher": [
            {
                "launcher": "shell",
                "rank": None,
                "local": False,
                "exitcode": 139,
                "signal": "SIGSEGV",
                "meaning": "exit code 139: SIGSEGV, segmentation fault: native code (a "
                "CUDA or NCCL library, an extension, a data loader worker) "
                "touched memory it does not own",
                "root": False,
                "file": "shell-zsh-segfault.log",
                "line": 1,
                "time": None,
                "text": "14957 segmentation fault (core dumped)  python train.py "
                "--pc_list_file ../data/data-split/all-train.txt --data_root",
            }
        ],
    },
    "torchrun-unprefixed-exception.log": {
        "findings": [],
        "first_failed_rank": 0,
        "unrecognized": [
            {
                "file": "torchrun-unprefixed-exception.log",
                "line": 1,
                "rank": None,
                "time": None,
                "text": "AttributeError: 'RandomSampler' object has no attribute 'set_epoch'",
                "kind": "python-exception",
            }
        ],
        "culprit": {
            "file": "torchrun-unprefixed-exception.log",
            "line": 1,
            "package": None,
            "raised_in": None,
            "called_from": None,
            "names": [
                {"kind": "object", "value": "RandomSampler"},
                {"kind": "attribute", "value": "set_epoch"},
            ],
            "versions": [],
        },
        "launcher": [
            {
                "launcher": "torchrun",
                "rank": 0,
                "local": True,
                "exitcode": 1,
                "signal": None,
                "meaning": "exit code 1: the program stopped with an error; its own "
                "output says which",
                "root": False,
                "file": "torchrun-unprefixed-exception.log",
                "line": 3,
                "time": None,
                "text": "ERROR:torch.distributed.elastic.multiprocessing.api:failed "
                "(exitcode: 1) local_rank: 0 (pid: 94789) of binary: "
                "/speech/srayan/anaconda3/envs/icassp_toxic/bin/python3",
            }
        ],
    },
    "mpiexec-pals-segfault.log": {
        "findings": [],
        "first_failed_rank": 0,
        "unrecognized": [
            {
                "file": "mpiexec-pals-segfault.log",
                "line": 1,
                "rank": 0,
                "time": None,
                "text": "rank 0 died from signal 11 and dumped core",
                "kind": "signal",
            }
        ],
        "culprit": None,
        "launcher": [
            {
                "launcher": "mpirun",
                "rank": 0,
                "local": False,
                "exitcode": None,
                "signal": "SIGSEGV",
                "meaning": "SIGSEGV, segmentation fault: native code (a CUDA or NCCL "
                "library, an extension, a data loader worker) touched memory "
                "it does not own",
                "root": False,
                "file": "mpiexec-pals-segfault.log",
                "line": 1,
                "time": None,
                "text": "rank 0 died from signal 11 and dumped core",
            },
            {
                "launcher": "mpirun",
                "rank": 4,
                "local": False,
                "exitcode": None,
                "signal": "SIGKILL",
                "meaning": "SIGKILL, killed from outside: most often the host's "
                "out-of-memory killer, else the scheduler",
                "root": False,
                "file": "mpiexec-pals-segfault.log",
                "line": 2,
                "time": None,
                "text": "rank 4 died from signal 9",
            },
        ],
    },
    "spawn-sigkill.log": {
        "findings": [],
        "first_failed_rank": 1,
        "unrecognized": [
            {
                "file": "spawn-sigkill.log",
                "line": 12,
                "rank": 1,
                "time": None,
                "text": "torch.multiprocessing.spawn.ProcessExitedException: process "
                "1 terminated with signal SIGKILL",
                "kind": "python-exception",
            }
        ],
        "culprit": {
            "file": "spawn-sigkill.log",
            "line": 12,
            "package": "torch",
            "raised_in": {
                "path": "/home/leesoon/anaconda3/lib/python3.8/site-packages/"
                "torch/multiprocessing/spawn.py",
                "line": 130,
                "function": "join",
            },
            "called_from": {
                "path": "/home/leesoon/Projects/Detection/YOLO/YOLOX/yolox/core/launch.py",
                "line": 58,
                "function": "launch",
            },
            "names": [],
            "versions": [],
        },
        "launcher": [
            {
                "launcher": "spawn",
                "rank": 1,
                "local": True,
                "exitcode": None,
                "signal": "SIGKILL",
                "meaning": "SIGKILL, killed from outside: most often the host's "
                "out-of-memory killer, else the scheduler",
                "root": False,
                "file": "spawn-sigkill.log",
                "line": 12,
                "time": None,
                "text": "torch.multiprocessing.spawn.ProcessExitedException: process 1 "
                "terminated with signal SIGKILL",
            }
        ],
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_launchers_report_names_the_rank_and_its_exit(name: str) -> None:
    assert diagnose(name) == EXPECTED[name]


def test_an_unknown_exception_on_rank_3_is_the_first_failure_and_nccl_is_collateral() -> None:
    got = diagnose("unknown-exception-rank3.log")
    assert got["first_failed_rank"] == 3
    assert [u["text"] for u in got["unrecognized"]] == ["[rank3]: KeyError: 'input_ids'"]
    assert [(f["id"], f["role"]) for f in got["findings"]] == [
        ("nccl-watchdog-timeout", "collateral")
    ]


def test_the_benign_corpus_gives_no_finding_and_nothing_unrecognized() -> None:
    from generator.diagnose.index import SignatureIndex, build_index
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.validation import validate_sources

    repo = FIXTURES.parents[2]
    sources, _ = read_sources(find_entry_files(repo / "entries"), repo)
    catalog = SignatureIndex(build_index(validate_sources(sources).entries))
    for path in sorted((repo / "corpus" / "benign").glob("*.log")):
        run = diagnose_logs(catalog, [LogBytes(path.name, path.read_bytes())])
        got = to_json(run.diagnosis)
        # Harmless lines may be named as not the cause; nothing else may be found.
        assert {f["role"] for f in got["findings"]} <= {"not-the-cause"}, path.name
        assert (got["first_failed_rank"], got["unrecognized"], got["launcher"]) == (
            None,
            [],
            [],
        ), path.name


# An entry that declares SIGKILL in codes.signal: with no signature to go on, the shell's own
# report of the signal names it (case 368 of the real-failure benchmark).
KILLED = Spec(
    "rank-killed-sigkill",
    "nccl-distributed",
    "Killed by SIGKILL",
    "Look for the host's out-of-memory killer in the kernel log.",
    (("Memory cgroup out of memory: Kill", "defining"),),
    (
        (
            "https://github.com/pytorch/pytorch/issues/2",
            "Memory cgroup out of memory: Killed process 4242 (python)",
        ),
    ),
    signals=("SIGKILL",),
)


def test_the_shells_report_of_a_signal_names_the_entry_that_declares_it() -> None:
    raw = (FIXTURES / "shell-killed.log").read_bytes()
    got = to_json(diagnose_logs(index((*SPECS, KILLED)), [LogBytes("job.log", raw)]).diagnosis)
    place = {"file": "job.log", "line": 13, "rank": None, "time": None, "text": KILLED_LINE}
    assert got == {
        "findings": [
            {
                "id": "rank-killed-sigkill",
                "title": "Killed by SIGKILL",
                "role": "root-cause",
                "count": 1,
                "ranks": [],
                "first": place,
            }
        ],
        "first_failed_rank": None,
        "unrecognized": [],
        "culprit": None,
        "launcher": [
            {
                "launcher": "shell",
                "rank": None,
                "local": False,
                "exitcode": None,
                "signal": "SIGKILL",
                "meaning": "SIGKILL, killed from outside: most often the host's out-of-memory "
                "killer, else the scheduler",
                "root": False,
                **{k: v for k, v in place.items() if k != "rank"},
            }
        ],
    }
