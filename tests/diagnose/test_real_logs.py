"""Real failure logs, as users pasted them in public issue threads, diagnose to the right entry.

Each file in tests/fixtures/logs/real/ is a verbatim excerpt of one thread (lines trimmed, never
edited) that is not one of its entry's own `examples`; its `# ` header names the thread and the
entry a new user should be shown. The index is compiled once from the real catalog in entries/,
so a signature that stops matching what people actually paste fails here. Logs that do not
diagnose right are kept, marked xfail with the reason recorded in /work/notes/real-logs.md.
See tests/fixtures/logs/real/README.md.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.index import SignatureIndex, build_index
from generator.diagnose.report import to_json
from generator.loading.discovery import find_entry_files, read_sources
from generator.validation import loadable_entries

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests" / "fixtures" / "logs" / "real"
NOTE = "see /work/notes/real-logs.md"

# Every log: the complete list of root causes, in the order the diagnosis gives them, and the
# first failed rank (None where the log names no rank).
EXPECTED: dict[str, tuple[list[str], int | None]] = {
    "c10d-nccl-no-gpus-found--codellama-125.log": (["c10d-nccl-no-gpus-found"], None),
    "checkpoint-zip-corrupt--stable-diffusion-93.log": (["checkpoint-zip-corrupt"], None),
    "cpu-allocator-oom--fang-1.log": (["cpu-allocator-oom"], None),
    "cuda-device-side-assert--catr-19.log": (["cuda-device-side-assert"], None),
    "cuda-device-side-assert--trl-2996-interleaved.log": (["cuda-device-side-assert"], None),
    "cuda-illegal-memory-access--lmdeploy-3258-watchdog.log": (["cuda-illegal-memory-access"], 2),
    "cuda-illegal-memory-access--open-sora-694.log": (["cuda-illegal-memory-access"], None),
    "cuda-no-kernel-image--goae-16-warning.log": (["cuda-no-kernel-image"], None),
    "cuda-no-kernel-image--re-net-77.log": (["cuda-no-kernel-image"], None),
    "cuda-out-of-memory--dl-art-school-56-wrapped.log": (["cuda-out-of-memory"], None),
    "dataloader-worker-killed--pytorch-8976.log": (["dataloader-worker-killed"], None),
    "ddp-unused-parameters--mmagic-419-wrapped.log": (["ddp-unused-parameters"], None),
    "disk-full-checkpoint--vits-397-shm.log": (["disk-full-checkpoint"], None),
    "docker-no-gpu-driver--nvidia-docker-1642-noquotes.log": (["docker-no-gpu-driver"], None),
    "docker-no-gpu-driver--retinanet-examples-278.log": (["docker-no-gpu-driver"], None),
    "elastic-child-failed--chinese-vicuna-113.log": (["elastic-child-failed"], 0),
    "hf-hub-offline-compute-nodes--baichuan-7b-83.log": (["hf-hub-offline-compute-nodes"], None),
    "hf-hub-offline-compute-nodes--hunyuanfoley-6.log": (["hf-hub-offline-compute-nodes"], None),
    "inplace-modified-autograd--funit-23-split.log": (["inplace-modified-autograd"], None),
    "nccl-ib-async-event-port-error--nccl-1710-quoted-links.log": (
        ["nccl-ib-async-event-port-error"],
        None,
    ),
    # mpirun --tag-output: [1,12]<stdout>: is world rank 12.
    "nccl-ib-async-event-port-error--nccl-230-mpirun.log": (["nccl-ib-async-event-port-error"], 12),
    # Only NCCL's `Cuda failure 'named symbol not found'` lines: its own entry since issue 14.
    "nccl-named-symbol-not-found--nccl-tests-208.log": (["nccl-named-symbol-not-found"], None),
    "nccl-unhandled-cuda-error--nccl-1029-init-error.log": (["nccl-unhandled-cuda-error"], None),
    # mpirun's "Process name: [[44912,1],251]" is the first process to exit non-zero.
    "nccl-unhandled-cuda-error--nccl-tests-322.log": (["nccl-unhandled-cuda-error"], 251),
    "nccl-watchdog-timeout--llamafactory-6269.log": (["nccl-watchdog-timeout"], 0),
    "nvidia-smi-cannot-communicate--qixuema-envs-4-curly-quote.log": (
        ["nvidia-smi-cannot-communicate"],
        None,
    ),
    "nvidia-smi-cannot-communicate--shine-cluster-50.log": (
        ["nvidia-smi-cannot-communicate"],
        None,
    ),
    "nvml-driver-library-mismatch--intel-llvm-17614.log": (["nvml-driver-library-mismatch"], None),
    "rank-abort-sigabrt--minigpt4-237.log": (["rank-abort-sigabrt"], 0),
    "rank-killed-sigkill--egovlp-21.log": (["rank-killed-sigkill"], 3),
    "rank-killed-sigkill--robomamba-10.log": (["rank-killed-sigkill"], 5),
    # srun's task number is the global rank.
    "slurm-oom-kill--hafs-101.log": (["slurm-oom-kill"], 4),
    "slurm-oom-kill--snakemake-371.log": (["slurm-oom-kill"], 0),
    "slurm-time-limit--canu-1052.log": (["slurm-time-limit"], None),
    "state-dict-mismatch--genshin-auto-fish-254.log": (["state-dict-mismatch"], None),
    "tcpstore-timeout--cosmos-rl-681.log": (["tcpstore-timeout"], None),
    "tcpstore-timeout--pytorch-105782.log": (["tcpstore-timeout"], None),
    "torch-load-weights-only--localaivtuber-51.log": (["torch-load-weights-only"], None),
    "torch-load-weights-only--pytorch-forecasting-1998-pytest.log": (
        ["torch-load-weights-only"],
        None,
    ),
    "xid-31-mmu-page-fault--dxvk-1027-then-xid13.log": (
        ["xid-31-mmu-page-fault", "xid-13-graphics-engine-exception", "xid-32-pbdma-error"],
        None,
    ),
    "xid-31-mmu-page-fault--ogkm-1030.log": (["xid-31-mmu-page-fault"], None),
    "xid-79-gpu-fallen-off-bus--bumblebee-554.log": (["xid-79-gpu-fallen-off-bus"], None),
}

# Logs that do not diagnose right yet: kept, and marked so the suite says which and why.
WRONG_VERDICT: dict[str, str] = {}
# (mpirun --tag-output's `[1,12]<stdout>:` prefix and srun's `task N: Out Of Memory` are read
# since the launcher readers of issue 13.)
WRONG_RANK: dict[str, str] = {}

LOGS = sorted(p.name for p in REAL.glob("*.log"))
HEADER = re.compile(r"# (source|ran|expected): (.+)")


def _catalog() -> tuple[SignatureIndex, dict[str, Any]]:
    """The index `trainwreck diagnose` compiles from entries/ (first loadable entry of an id)."""
    sources, _ = read_sources(find_entry_files(REPO / "entries"), REPO)
    entries = {entry.id: entry for entry in loadable_entries(sources)[0]}
    return SignatureIndex(build_index(entries.values())), entries


INDEX, ENTRIES = _catalog()


def _split(name: str) -> tuple[dict[str, str], list[str]]:
    """The header fields and the log lines after the header."""
    lines = (REAL / name).read_text(encoding="utf-8").splitlines()
    fields: dict[str, str] = {}
    while lines and lines[0].startswith("# "):
        m = HEADER.fullmatch(lines.pop(0))
        assert m is not None, f"{name}: header lines are '# source|ran|expected: ...'"
        fields[m.group(1)] = m.group(2)
    return fields, lines


def _diagnose(name: str, raw: bytes) -> dict[str, Any]:
    return to_json(diagnose_logs(INDEX, [LogBytes(name, raw)]).diagnosis)


@cache
def _diagnose_file(name: str) -> dict[str, Any]:
    return _diagnose(name, (REAL / name).read_bytes())


def _roots(got: dict[str, Any]) -> list[str]:
    return [f["id"] for f in got["findings"] if f["role"] == "root-cause"]


def _marked(name: str, wrong: dict[str, str]) -> Any:
    return pytest.param(name, marks=pytest.mark.xfail(reason=wrong[name], strict=True))


def test_every_log_has_an_expectation_and_every_expectation_a_log() -> None:
    assert len(LOGS) >= 40
    assert sorted(EXPECTED) == LOGS
    assert set(WRONG_VERDICT) | set(WRONG_RANK) <= set(EXPECTED)


@pytest.mark.parametrize("name", LOGS)
def test_the_header_names_the_thread_and_an_entry_of_the_catalog(name: str) -> None:
    fields, lines = _split(name)
    assert set(fields) >= {"source", "expected"}, name
    assert fields["source"].startswith("https://github.com/"), name
    assert fields["expected"] == name.split("--")[0], name
    assert fields["expected"] in ENTRIES, name
    assert 3 <= len(lines) <= 60, name


@pytest.mark.parametrize("name", LOGS)
def test_the_log_is_not_one_of_its_entrys_examples(name: str) -> None:
    fields, lines = _split(name)
    examples = ENTRIES[fields["expected"]].examples
    assert fields["source"].rstrip("/") not in {str(e.url).rstrip("/") for e in examples}, name
    body = "\n".join(line.rstrip() for line in lines if line.strip())
    for example in examples:
        assert body not in example.log, f"{name} is {example.url}'s example"


@pytest.mark.parametrize("name", LOGS)
def test_the_header_alone_names_nothing(name: str) -> None:
    text = (REAL / name).read_text(encoding="utf-8")
    header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("# "))
    assert _diagnose(name, header.encode())["findings"] == [], name


@pytest.mark.parametrize(
    "name", [_marked(n, WRONG_VERDICT) if n in WRONG_VERDICT else n for n in LOGS]
)
def test_the_expected_entry_is_the_top_root_cause(name: str) -> None:
    fields, _ = _split(name)
    roots = _roots(_diagnose_file(name))
    assert roots[:1] == [fields["expected"]], roots
    assert roots == EXPECTED[name][0]


@pytest.mark.parametrize("name", [_marked(n, WRONG_RANK) if n in WRONG_RANK else n for n in LOGS])
def test_the_first_failed_rank_is_the_one_the_log_names(name: str) -> None:
    assert _diagnose_file(name)["first_failed_rank"] == EXPECTED[name][1]
