"""`trainwreck diagnose` end to end: golden multi-rank logs, every format, every exit code,
and bad input that gives a clear message, never a traceback."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from catalog import SPECS, index, render

from generator.cli import main
from generator.diagnose.index import index_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "logs"

OOM_TORCHRUN = (
    "[rank2]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 2 has a "
    "total capacity of 79.15 GiB of which 1.91 GiB is free. Including non-PyTorch memory, this "
    "process has 77.22 GiB memory in use. Of the allocated memory 74.10 GiB is allocated by "
    "PyTorch, and 1.62 GiB is reserved by PyTorch but unallocated. If reserved but unallocated "
    "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
    "fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)
OOM_STORM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a total "
    "capacity of 79.15 GiB of which 12.33 GiB is free."
)
WATCHDOG_TITLE = "NCCL watchdog timeout: Watchdog caught collective operation timeout"


NOTHING = {
    "findings": [],
    "first_failed_rank": None,
    "unrecognized": [],
    "culprit": None,
    "launcher": [],
}
EXIT_1 = "exit code 1: the program stopped with an error; its own output says which"


def witness(
    launcher: str,
    rank: int,
    local: bool,
    code: int,
    root: bool,
    file: str,
    line: int,
    time: str | None,
    text: str,
) -> dict[str, Any]:
    """A launcher's report, as the JSON lists it (exit code 1: no signal)."""
    return {
        "launcher": launcher,
        "rank": rank,
        "local": local,
        "exitcode": code,
        "signal": None,
        "meaning": EXIT_1,
        "root": root,
        "file": file,
        "line": line,
        "time": time,
        "text": text,
    }


def watchdog(prefix: str, stamp: str, rank: int, seq: int, op: str, numel: str, ran: int) -> str:
    """A real watchdog line; `numel` is "in" or "in/out" when they differ."""
    numel_in, _, numel_out = numel.partition("/")
    return (
        f"{prefix}[{stamp} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel_in}, "
        f"NumelOut={numel_out or numel_in}, Timeout(ms)=600000) ran for {ran} milliseconds "
        "before timing out."
    )


def finding(
    id: str, title: str, role: str, count: int, ranks: list[int], first: dict[str, Any]
) -> dict[str, Any]:
    return {"id": id, "title": title, "role": role, "count": count, "ranks": ranks, "first": first}


def first(file: str, line: int, rank: int | None, time: str | None, text: str) -> dict[str, Any]:
    return {"file": file, "line": line, "rank": rank, "time": time, "text": text}


@pytest.fixture()
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixtures as the working directory, and the test catalog's index beside them."""
    work = tmp_path / "logs"
    shutil.copytree(FIXTURES, work)
    (tmp_path / "signatures.json").write_text(index_json(index().data))
    monkeypatch.chdir(work)
    return work


INDEX = "../signatures.json"


def report_of(out: str) -> Any:
    """The JSON report without its first key, the catalog version, which must be the index's."""
    report = json.loads(out)
    assert next(iter(report)) == "catalog"
    assert report.pop("catalog") == index().data.catalog
    return report


def diagnose_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    code = main(["diagnose", "--index", INDEX, "--json", *args])
    out, err = capsys.readouterr()
    return code, report_of(out), err


GOLDEN: dict[str, dict[str, Any]] = {
    # torchrun --tee: one file, [rankN]: prefixes, c10 and glog times, launcher lines last.
    "torchrun": {
        "findings": [
            finding(
                "cuda-out-of-memory",
                "CUDA out of memory",
                "root-cause",
                1,
                [2],
                first("torchrun/train.log", 39, 2, "2024-06-26T06:13:55.516", OOM_TORCHRUN),
            ),
            finding(
                "nccl-watchdog-timeout",
                WATCHDOG_TITLE,
                "collateral",
                3,
                [0, 1, 3],
                first(
                    "torchrun/train.log",
                    40,
                    0,
                    "--06-26T06:23:55.412093718",
                    watchdog(
                        "[rank0]:",
                        "E626 06:23:55.412093718",
                        0,
                        1043,
                        "ALLREDUCE",
                        "26214400",
                        600081,
                    ),
                ),
            ),
            finding(
                "elastic-child-failed",
                "torchrun ChildFailedError",
                "collateral",
                1,
                [],
                first(
                    "torchrun/train.log",
                    56,
                    None,
                    "--06-26T06:23:58.213000",
                    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                ),
            ),
        ],
        "first_failed_rank": 2,
        "unrecognized": [],
        # torchrun's summary names rank 2 (global) in its Root Cause block; its agent line
        # names local rank 2.
        "culprit": {
            "file": "torchrun/train.log",
            "line": 39,
            "package": None,
            "raised_in": None,
            "called_from": {"path": "/workspace/train.py", "line": 188, "function": "main"},
            "names": [],
            "versions": [{"package": "nccl", "version": "2.20.5"}],
        },
        "launcher": [
            witness(
                "torchrun",
                2,
                False,
                1,
                True,
                "torchrun/train.log",
                65,
                "2024-06-26T06:23:58",
                "  exitcode  : 1 (pid: 20313)",
            ),
            witness(
                "torchrun",
                2,
                True,
                1,
                False,
                "torchrun/train.log",
                52,
                "--06-26T06:23:58.213000",
                "E0626 06:23:58.213000 140213 torch/distributed/elastic/multiprocessing/api.py:"
                "833] failed (exitcode: 1) local_rank: 2 (pid: 20313) of binary: "
                "/usr/bin/python3",
            ),
        ],
    },
    # srun --label: "N: " prefixes, Python logging times, NCCL host prefixes, CRLF endings.
    "srun": {
        "findings": [
            finding(
                "nccl-ib-completion-error",
                "NCCL NET/IB: Got completion from peer with error",
                "root-cause",
                1,
                [5],
                first(
                    "srun/slurm-4242.out",
                    33,
                    5,
                    "2024-06-27T03:12:39.875",
                    "5: gpu-node-02:48215:48395 [1] ib_plugin.c:1615 NCCL WARN NET/IB : Got "
                    "completion from peer 10.20.0.11<51234> with status=12 opcode=0 len=0 "
                    "vendor err 129 (Recv) localGid ::ffff:10.20.0.12 "
                    "remoteGids::ffff:10.20.0.11",
                ),
            ),
            finding(
                "nccl-remote-process-exited",
                "NCCL remote process exited or there was a network error",
                "collateral",
                2,
                [1, 4],
                first(
                    "srun/slurm-4242.out",
                    38,
                    1,
                    "2024-06-27T03:12:58.114",
                    "1: torch.distributed.DistBackendError: NCCL error in: "
                    "/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
                    "remote process exited or there was a network error, NCCL version 2.21.5",
                ),
            ),
            finding(
                "nccl-watchdog-timeout",
                WATCHDOG_TITLE,
                "collateral",
                5,
                [0, 2, 3, 6, 7],
                first(
                    "srun/slurm-4242.out",
                    41,
                    0,
                    "--06-27T03:22:40.301114052",
                    watchdog(
                        "0: ", "E627 03:22:40.301114052", 0, 6402, "ALLREDUCE", "8388608", 600012
                    ),
                ),
            ),
        ],
        "first_failed_rank": 5,
        "unrecognized": [],
        "culprit": None,
        "launcher": [
            witness(
                "srun",
                5,
                False,
                1,
                False,
                "srun/slurm-4242.out",
                46,
                None,
                "srun: error: gpu-node-02: task 5: Exited with exit code 1",
            ),
        ],
    },
    # One file per rank (rankN.log), ISO 8601 times with a zone, traceback lines without.
    "per-rank": {
        "findings": [
            finding(
                "cuda-ecc-uncorrectable",
                "CUDA error: uncorrectable ECC error encountered",
                "root-cause",
                1,
                [1],
                first(
                    "per-rank/rank1.log",
                    9,
                    1,
                    "2024-07-02T11:42:07.481Z",
                    "RuntimeError: CUDA error: uncorrectable ECC error encountered",
                ),
            ),
            finding(
                "nccl-watchdog-timeout",
                WATCHDOG_TITLE,
                "collateral",
                3,
                [0, 2, 3],
                first(
                    "per-rank/rank0.log",
                    5,
                    0,
                    "--07-02T11:52:07.600000000",
                    watchdog(
                        "",
                        "E702 11:52:07.600000000",
                        0,
                        2210,
                        "_ALLGATHER_BASE",
                        "19008/76032",
                        600030,
                    ),
                ),
            ),
        ],
        "first_failed_rank": 1,
        "unrecognized": [],
        "culprit": {
            "file": "per-rank/rank1.log",
            "line": 9,
            "package": None,
            "raised_in": None,
            "called_from": {"path": "/srv/job/train.py", "line": 301, "function": "train_step"},
            "names": [],
            "versions": [],
        },
        "launcher": [],
        # Ranks 0, 2 and 3 print no progress after step 600 and wait ten minutes for the
        # watchdog: what the progress lines show, beside the root cause (this small catalog
        # has no entry for a stall).
        "trends": [
            {
                "kind": "stall",
                "entry": None,
                "metric": "progress",
                "says": "progress stopped at step 600: the log goes on 617.4 s after the last "
                "progress line (they came every 15 s)",
                "file": "per-rank/rank0.log",
                "line": 4,
                "rank": 0,
                "ranks": [0, 2, 3],
                "step": 600,
                "time": "2024-07-02T11:41:50.200Z",
                "text": "2024-07-02T11:41:50.200Z INFO step=600 loss=3.000",
                "before": 15.0,
                "after": 617.4,
                "recovered_after": None,
                "series": [[600, 3.0]],
            }
        ],
    },
}


@pytest.mark.parametrize("style", sorted(GOLDEN))
def test_golden_multi_rank_logs(style: str, logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report, err = diagnose_json(capsys, style)
    assert (code, report, err) == (0, GOLDEN[style], "")


STORM = {
    "findings": [
        finding(
            "cuda-out-of-memory",
            "CUDA out of memory",
            "root-cause",
            1,
            [5],
            first("storm/rank5.log", 9, 5, "2024-06-28T09:31:20.742", OOM_STORM),
        ),
        finding(
            "nccl-watchdog-timeout",
            WATCHDOG_TITLE,
            "collateral",
            7,
            [0, 1, 2, 3, 4, 6, 7],
            first(
                "storm/rank6.log",
                5,
                6,
                "--06-28T09:32:00.050220431",
                watchdog("", "E628 09:32:00.050220431", 6, 4711, "ALLREDUCE", "50331648", 600027),
            ),
        ),
    ],
    "first_failed_rank": 5,
    "unrecognized": [],
    "culprit": {
        "file": "storm/rank5.log",
        "line": 9,
        "package": None,
        "raised_in": None,
        "called_from": {"path": "/opt/train/pretrain.py", "line": 418, "function": "<module>"},
        "names": [],
        "versions": [],
    },
    "launcher": [],
}


def test_watchdog_storm_on_8_ranks_names_the_real_failure_40_s_earlier(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Files are read rank0 first, so by position a timeout comes first; by time, rank 5 does.
    code, report, err = diagnose_json(capsys, "storm")
    assert (code, report, err) == (0, STORM, "")


def test_files_given_one_by_one_gzipped_and_on_stdin_give_the_same_verdict(
    logs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for rank in (0, 1):
        raw = (logs / f"storm/rank{rank}.log").read_bytes()
        (logs / f"storm/rank{rank}.log.gz").write_bytes(gzip.compress(raw))
        (logs / f"storm/rank{rank}.log").unlink()
    rank5 = (logs / "storm/rank5.log").read_bytes()
    (logs / "storm/rank5.log").unlink()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(rank5)))
    files = [
        "storm/rank0.log.gz",
        "storm/rank1.log.gz",
        *(f"storm/rank{r}.log" for r in (2, 3, 4, 6, 7)),
    ]
    code, report, err = diagnose_json(capsys, *files, "-")
    assert (code, err) == (0, "")
    assert report["first_failed_rank"] is None  # stdin has no rank in its name or lines
    assert [(f["id"], f["role"], f["ranks"], f["first"]["file"]) for f in report["findings"]] == [
        ("cuda-out-of-memory", "root-cause", [], "<stdin>"),
        ("nccl-watchdog-timeout", "collateral", [0, 1, 2, 3, 4, 6, 7], "storm/rank6.log"),
    ]


def test_human_report(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diagnose", "--index", INDEX, "--base-url", "https://example.org/tw/", "storm"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "trainwreck diagnose: 8 files, 51 lines read",
        "First failed rank: 5, at 2024-06-28T09:31:20.742 (storm/rank5.log:9)",
        "",
        "ROOT CAUSE  CUDA out of memory  cuda-out-of-memory · severity high",
        "  first storm/rank5.log:9 (rank 5, 2024-06-28T09:31:20.742)",
        "  line  " + OOM_STORM,
        "  who   called from /opt/train/pretrain.py:418 in <module>",
        "  seen  1 line: rank 5 (1 line)",
        "  sure  medium (defining lines only)",
        "  fix   Lower the per-GPU batch size or enable activation checkpointing, then restart.",
        "  page  https://example.org/tw/failures/cuda-out-of-memory/",
        "",
        f"COLLATERAL  {WATCHDOG_TITLE}  nccl-watchdog-timeout · severity high",
        "  cause collateral of cuda-out-of-memory",
        "  first storm/rank6.log:5 (rank 6, --06-28T09:32:00.050220431)",
        "  line  "
        + watchdog("", "E628 09:32:00.050220431", 6, 4711, "ALLREDUCE", "50331648", 600027),
        "  seen  7 lines: ranks 0-4, 6-7 (1 line each)",
        "  page  https://example.org/tw/failures/nccl-watchdog-timeout/",
    ]


def test_markdown_report(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diagnose", "--index", INDEX, "--format", "markdown", "torchrun"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "## Trainwreck diagnosis",
        "",
        "**First failed rank: 2** at 2024-06-26T06:13:55.516 (`torchrun/train.log:39`)",
        "",
        "Launcher: torchrun reports rank 2 failed: exit code 1: the program stopped with an "
        "error; its own output says which.",
        "",
        "### Root cause: [CUDA out of memory](failures/cuda-out-of-memory/)",
        "",
        "- Entry: `cuda-out-of-memory`, severity high",
        "- First seen: `torchrun/train.log:39` (rank 2, host gpu-node-01, 2024-06-26T06:13:55.516)",
        "  ```text",
        "  " + OOM_TORCHRUN[:400] + "…",
        "  ```",
        "- Culprit: called from /workspace/train.py:188 in main; nccl 2.20.5",
        "- Seen: 1 line: rank 2 (1 line)",
        "- Confidence: high (with 1 supporting line)",
        "- Fix: Lower the per-GPU batch size or enable activation checkpointing, then restart.",
        "",
        "### Collateral",
        "",
        "| failure | caused by | lines | first seen |",
        "| --- | --- | --- | --- |",
        f"| [{WATCHDOG_TITLE}](failures/nccl-watchdog-timeout/) `nccl-watchdog-timeout` "
        "| `cuda-out-of-memory` | 3 lines: ranks 0-1, 3 (1 line each) "
        "| `torchrun/train.log:40` (rank 0, host gpu-node-01, --06-26T06:23:55.412093718) |",
        "| [torchrun ChildFailedError](failures/elastic-child-failed/) `elastic-child-failed` "
        "| `cuda-out-of-memory`, `nccl-watchdog-timeout` | 1 line: no rank (1 line) "
        "| `torchrun/train.log:56` (no rank, --06-26T06:23:58.213000) |",
        "",
        "_1 file, 68 lines read._",
    ]


def test_one_process_with_no_rank_names_no_first_failed_rank(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A single process the shell reports on (`Killed`): no line names a rank, so the report
    names none (it once printed `First failed rank: None`), and the shell's report is about the
    process."""
    (logs / "one.log").write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\nKilled\n"
    )
    assert main(["diagnose", "--index", INDEX, "--format", "markdown", "one.log"]) == 0
    out, err = capsys.readouterr()
    assert (out.splitlines()[:5], err) == (
        [
            "## Trainwreck diagnosis",
            "",
            "Launcher: shell reports the process failed: SIGKILL, killed from outside: most "
            "often the host's out-of-memory killer, else the scheduler.",
            "",
            "### Root cause: [CUDA out of memory](failures/cuda-out-of-memory/)",
        ],
        "",
    )
    assert main(["diagnose", "--index", INDEX, "one.log"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[:3] == [
        "trainwreck diagnose: 1 file, 2 lines read",
        "  exit  shell reports the process failed: SIGKILL, killed from outside: most often the "
        "host's out-of-memory killer, else the scheduler",
        "",
    ]


def test_nothing_found_is_said_plainly_and_exits_zero(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (logs / "healthy.log").write_text("2024-06-26 06:00:00,000 INFO step 1 loss 2.0\n")
    assert main(["diagnose", "--index", INDEX, "healthy.log"]) == 0
    out, err = capsys.readouterr()
    assert (out.splitlines(), err) == (
        [
            "trainwreck diagnose: 1 file, 1 line read",
            "",
            "No known failure matched.",
            "If this log shows a failure the catalog lacks, add an entry (docs/entry-format.md).",
        ],
        "",
    )
    assert main(["diagnose", "--index", INDEX, "--json", "healthy.log"]) == 0
    assert report_of(capsys.readouterr().out) == NOTHING


def test_fail_on_match_exits_one_when_a_known_failure_is_found(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (logs / "healthy.log").write_text("all good\n")
    assert main(["diagnose", "--index", INDEX, "--fail-on-match", "--json", "storm"]) == 1
    assert main(["diagnose", "--index", INDEX, "--fail-on-match", "--json", "healthy.log"]) == 0


def test_the_catalog_is_compiled_from_entries_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for spec in SPECS:
        (tmp_path / spec.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / spec.path).write_text(render(spec))
    (tmp_path / "entries/memory/broken.yaml").write_text("id: [\n")
    shutil.copytree(FIXTURES / "storm", tmp_path / "storm")
    monkeypatch.chdir(tmp_path)
    assert main(["diagnose", "--json", "storm"]) == 0
    out, err = capsys.readouterr()
    assert report_of(out) == STORM
    assert err == (
        "trainwreck: note: 1 entry file(s) in entries do not load and were left out; "
        "`trainwreck validate` says why\n"
    )


# --- bad input: a clear message and a non-zero exit, never a traceback -----------------------


def test_missing_file(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "--index", INDEX, "storm", "nope.log"]) == 2
    assert capsys.readouterr() == ("", "trainwreck: nope.log: no such file or directory\n")


def test_a_folder_of_nothing(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (logs / "empty" / ".hidden").mkdir(parents=True)
    assert main(["diagnose", "--index", INDEX, "empty"]) == 2
    assert capsys.readouterr() == ("", "trainwreck: empty: no files in this folder\n")


def test_truncated_gz_diagnoses_what_was_read_then_fails(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packed = gzip.compress((logs / "storm/rank5.log").read_bytes() * 50)
    (logs / "rank5.log.gz").write_bytes(packed[: len(packed) * 2 // 3])
    code, report, err = diagnose_json(capsys, "rank5.log.gz")
    assert code == 2
    assert [(f["id"], f["role"], f["first"]["line"]) for f in report["findings"]] == [
        ("cuda-out-of-memory", "root-cause", 9)
    ]
    assert err == (
        "trainwreck: rank5.log.gz: gzip data ends early (a truncated file); "
        "the lines before the cut were diagnosed\n"
    )


def test_binary_noise(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (logs / "core.bin").write_bytes(bytes((i * 7919 + 13) % 256 for i in range(200_000)))
    code, report, err = diagnose_json(capsys, "core.bin")
    assert (code, report, err) == (
        2,
        NOTHING,
        "trainwreck: core.bin: does not look like a text log (binary data)\n",
    )


def test_binary_files_inside_a_folder_are_skipped_with_a_note(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (logs / "storm/core.bin").write_bytes(b"\x00\x01\x02\x03" * 5000)
    code, report, err = diagnose_json(capsys, "storm")
    assert (code, report) == (0, STORM)
    assert err == (
        "trainwreck: note: storm/core.bin: does not look like a text log (binary data); skipped\n"
    )


def test_a_folder_of_only_binary_files(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (logs / "dumps").mkdir()
    (logs / "dumps/core.1").write_bytes(b"\x00" * 10000)
    code, report, err = diagnose_json(capsys, "dumps")
    assert (code, report) == (2, NOTHING)
    assert err == (
        "trainwreck: note: dumps/core.1: does not look like a text log (binary data); skipped\n"
        "trainwreck: dumps: no text logs to diagnose\n"
    )


def test_unsupported_compression_is_named(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (logs / "a.log.zst").write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 100)
    code, report, err = diagnose_json(capsys, "a.log.zst", "storm")
    assert (code, report) == (2, STORM)
    assert err == (
        "trainwreck: a.log.zst: is zstd-compressed; decompress it first: "
        "zstd -dc FILE | trainwreck diagnose -\n"
    )


def _run_folder_files(folder: Path) -> dict[str, str]:
    """What a training run leaves beside its logs, written the way each library writes it;
    the note each gets."""
    import pickle
    import struct
    import zipfile

    with zipfile.ZipFile(folder / "model.pt", "w") as archive:  # torch.save's layout
        archive.writestr("model/data.pkl", pickle.dumps({"w": 1}, protocol=2))
        archive.writestr("model/version", "3\n")
    header = (
        b'{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
    )
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + bytes(4))
    npy = b"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"
    (folder / "grads.npy").write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(npy)) + npy)
    (folder / "optimizer.bin").write_bytes(pickle.dumps({"step": 10, "lr": 0.1}, protocol=4))
    (folder / "weights.h5").write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(100))
    (folder / "core.4242").write_bytes(Path(sys.executable).resolve().read_bytes()[:4096])
    (folder / "rank8.log.zst").write_bytes(b"\x28\xb5\x2f\xfd" + bytes(100))
    return {
        "core.4242": "is an ELF file (a program or a core dump), not a log",
        "grads.npy": "is a NumPy array (.npy), not a log",
        "model.pt": "is a zip archive (a PyTorch .pt checkpoint is one); unzip it first",
        "model.safetensors": "is a safetensors file (model weights), not a log",
        "optimizer.bin": "is a Python pickle (an older PyTorch checkpoint or a saved object), "
        "not a log",
        "rank8.log.zst": "is zstd-compressed; decompress it first: "
        "zstd -dc FILE | trainwreck diagnose -",
        "weights.h5": "is an HDF5 file (a Keras checkpoint, a dataset), not a log",
    }


def test_checkpoints_and_archives_in_a_folder_are_skipped_with_a_note(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = _run_folder_files(logs / "storm")
    code, report, err = diagnose_json(capsys, "storm")
    assert (code, report) == (0, STORM)
    # In the folder's order: rank8.log.zst comes after rank0-7.log, as they are read.
    order = ["core.4242", "grads.npy", "model.pt", "model.safetensors", "optimizer.bin"]
    order += ["rank8.log.zst", "weights.h5"]
    assert err == "".join(f"trainwreck: note: storm/{n}: {notes[n]}; skipped\n" for n in order)


def test_a_checkpoint_named_on_the_command_line_is_an_error(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = _run_folder_files(logs)
    code, report, err = diagnose_json(capsys, "model.pt", "storm")
    assert (code, report) == (2, STORM)
    assert err == f"trainwreck: model.pt: {notes['model.pt']}\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--index", "nope.json"], "trainwreck: nope.json: No such file or directory\n"),
        (
            ["--index", "storm/rank0.log"],
            "trainwreck: storm/rank0.log: not a usable signature index: not JSON "
            "(Extra data: line 1 column 5 (char 4))\n",
        ),
        (
            ["--entries", "storm"],
            "trainwreck: storm: the catalog has no signatures to match\n",
        ),
        (
            ["--entries", "nowhere"],
            "trainwreck: nowhere: no catalog here; run from the repository root, or pass "
            "--entries DIR or --index FILE\n",
        ),
    ],
)
def test_a_catalog_that_cannot_be_used(
    args: list[str], message: str, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diagnose", *args, "storm"]) == 2
    assert capsys.readouterr() == ("", message)


def test_stdin_only_once(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "--index", INDEX, "-", "-"]) == 2
    assert capsys.readouterr() == ("", "trainwreck: -: standard input can be read only once\n")
