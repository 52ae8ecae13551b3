"""A small catalog for diagnosis tests: real signature lines and real example excerpts.

Each entry is the factory's valid entry with its identity, signatures, relations and examples
replaced, so it passes every other check and the signature checks see exactly these lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from entry_factory import entry_yaml

from generator.diagnose.index import SignatureIndex, build_index
from generator.model.entry import Entry
from generator.validation import SourceFile, validate_sources

PYTORCH_NCCL = (
    "https://github.com/pytorch/pytorch/blob/0007e752d518810f0f8942a830dbbbfc69f34577/"
    "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
)


@dataclass(frozen=True)
class Spec:
    id: str
    category: str
    title: str
    quick_fix: str
    signatures: tuple[tuple[str, str], ...]  # (pattern, role)
    examples: tuple[tuple[str, str], ...]  # (url, log)
    related: tuple[str, ...] = ()
    collateral: tuple[str, ...] = field(default=())
    severity: str = "high"
    signals: tuple[str, ...] = ()  # codes.signal

    @property
    def path(self) -> str:
        return f"entries/{self.category}/{self.id}.yaml"


def _block(text: str, indent: str) -> str:
    return "".join(f"{indent}{line}\n" if line else "\n" for line in text.splitlines())


def render(spec: Spec) -> str:
    text = entry_yaml(spec.id)
    text = text.replace(
        'title: "Xid 79: GPU has fallen off the bus"', f"title: {json.dumps(spec.title)}"
    )
    text = text.replace("category: gpu-hardware", f"category: {spec.category}")
    text = text.replace("severity: critical", f"severity: {spec.severity}")
    # These entries are not about an Xid; the two lines left keep the line numbers the tests
    # below were written for.
    text = text.replace(
        "codes:\n  xid: [79]\n  xid_actions:\n    - code: 79\n"
        "      meaning: GPU has fallen off the bus\n      action: reboot\n",
        "codes:\n  xid: []\n"
        + (f"  signal: {json.dumps(list(spec.signals))}\n" if spec.signals else ""),
    )
    text = text.replace(
        "quick_fix: Drain the node, collect an nvidia-bug-report, and reset or replace the GPU.",
        f"quick_fix: {json.dumps(spec.quick_fix)}",
    )
    head, rest = text.split("signatures:\n", 1)
    _, rest = rest.split("fix:\n", 1)
    signatures = "signatures:\n" + "".join(
        f"  - pattern: {json.dumps(pattern)}\n    role: {role}\n"
        "    seen_in: https://github.com/pytorch/pytorch\n"
        for pattern, role in spec.signatures
    )
    text = head + signatures + "fix:\n" + rest
    head, rest = text.split("related: []\n", 1)
    _, rest = rest.split("faq:\n", 1)
    examples = "".join(
        f"  - url: {url}\n    log: |\n{_block(log, '      ')}" for url, log in spec.examples
    )
    return (
        head
        + f"related: {json.dumps(list(spec.related))}\n"
        + f"collateral: {json.dumps(list(spec.collateral))}\n"
        + "examples:\n"
        + examples
        + "faq:\n"
        + rest
    )


OOM = Spec(
    "cuda-out-of-memory",
    "memory",
    "CUDA out of memory",
    "Lower the per-GPU batch size or enable activation checkpointing, then restart.",
    (
        ("CUDA out of memory. Tried to allocate {num} {word}", "defining"),
        (
            "If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
            "context",
        ),
    ),
    (
        (
            "https://github.com/axolotl-ai-cloud/axolotl/issues/1717",
            "[rank1]:     return Variable._execution_engine.run_backward(  # Calls into the C++ "
            "engine to run the backward pass\n"
            "[rank1]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 "
            "GiB. GPU  has a total capacity of 23.68 GiB of which 3.38 GiB is free. Including "
            "non-PyTorch memory, this process has 20.29 GiB memory in use. Of the allocated "
            "memory 19.16 GiB is allocated by PyTorch, and 544.12 MiB is reserved by PyTorch "
            "but unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
            "documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        ),
    ),
    related=("nccl-watchdog-timeout", "elastic-child-failed"),
    collateral=("nccl-watchdog-timeout", "elastic-child-failed"),
)

WATCHDOG = Spec(
    "nccl-watchdog-timeout",
    "nccl-distributed",
    "NCCL watchdog timeout: Watchdog caught collective operation timeout",
    "Find the earliest non-timeout error on any rank and fix that rank.",
    (
        (
            "Watchdog caught collective operation timeout: WorkNCCL(SeqNum={int}, OpType={word}",
            "defining",
        ),
        ("To avoid data inconsistency, we are taking the entire process down.", "context"),
    ),
    (
        (
            "https://github.com/XPixelGroup/BasicSR/issues/737",
            "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, "
            "NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds "
            "before timing out.\n"
            "[rank0]:[E626 06:24:44.159932949 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, "
            "NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600030 milliseconds "
            "before timing out.",
        ),
    ),
    related=(
        "cuda-out-of-memory",
        "elastic-child-failed",
        "nccl-ib-completion-error",
        "nccl-remote-process-exited",
        "cuda-ecc-uncorrectable",
    ),
    collateral=("elastic-child-failed",),
)

ELASTIC = Spec(
    "elastic-child-failed",
    "framework",
    "torchrun ChildFailedError",
    "Scroll up to the first failing rank's traceback; the launcher only reports it.",
    (
        ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError", "defining"),
        ("failed (exitcode: {int}) local_rank: {int} (pid: {int}) of ", "context"),
    ),
    (
        (
            "https://github.com/CVMI-Lab/PLA/issues/18",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
            "============================================================\n"
            "train.py FAILED\n"
            "------------------------------------------------------------\n"
            "Failures:\n"
            "[1]:\n"
            "  time      : 2023-09-04_10:10:23\n"
            "  host      : ubuntu\n"
            "  rank      : 1 (local_rank: 1)\n"
            "  exitcode  : 1 (pid: 3669031)",
        ),
    ),
    related=(
        "cuda-out-of-memory",
        "nccl-watchdog-timeout",
        "nccl-ib-completion-error",
        "nccl-remote-process-exited",
        "cuda-ecc-uncorrectable",
    ),
    collateral=("nccl-watchdog-timeout",),
    severity="medium",
)

IB = Spec(
    "nccl-ib-completion-error",
    "interconnect",
    "NCCL NET/IB: Got completion from peer with error",
    "Check the InfiniBand link and port counters on both hosts; drain the bad node.",
    (("NET/IB : Got completion from peer {token} with status=", "defining"),),
    (
        (
            "https://github.com/NVIDIA/nccl/issues/1814",
            "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from "
            "peer 172.36.143.59<44206> with status=5 opcode=32656 len=32659 vendor err 249 (Recv) "
            "localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221\n"
            "hostname-test:984:1357 [4] NCCL INFO transport/net.cc:1298 -> 6",
        ),
    ),
    related=("nccl-watchdog-timeout", "nccl-remote-process-exited", "elastic-child-failed"),
    collateral=("nccl-watchdog-timeout", "nccl-remote-process-exited", "elastic-child-failed"),
    severity="critical",
)

REMOTE = Spec(
    "nccl-remote-process-exited",
    "nccl-distributed",
    "NCCL remote process exited or there was a network error",
    "Find the peer that exited first; its own log holds the real error.",
    (("remote process exited or there was a network error", "defining"),),
    (
        (
            "https://github.com/NVIDIA/nccl/issues/1928",
            "[rank3]: torch.distributed.DistBackendError: NCCL error in: "
            "/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3763, remote "
            "process exited or there was a network error, NCCL version 2.28.8",
        ),
    ),
    related=("nccl-watchdog-timeout", "nccl-ib-completion-error", "elastic-child-failed"),
    collateral=("nccl-watchdog-timeout", "elastic-child-failed"),
)

ECC = Spec(
    "cuda-ecc-uncorrectable",
    "gpu-hardware",
    "CUDA error: uncorrectable ECC error encountered",
    "Drain the node and have the GPU's memory checked; restart elsewhere from a checkpoint.",
    (
        ("CUDA error: uncorrectable ECC error encountered", "defining"),
        ("CUDA kernel errors might be asynchronously reported at some other API call", "context"),
    ),
    (
        (
            "https://github.com/jade-hpc-gpu/jade-hpc-gpu.github.io/issues/194",
            "RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
            "CUDA kernel errors might be asynchronously reported at some other API call, so the "
            "stacktrace below might be incorrect.",
        ),
    ),
    related=("nccl-watchdog-timeout", "elastic-child-failed"),
    collateral=("nccl-watchdog-timeout", "elastic-child-failed"),
    severity="critical",
)

SPECS = (OOM, WATCHDOG, ELASTIC, IB, REMOTE, ECC)


def sources(specs: tuple[Spec, ...] = SPECS) -> list[SourceFile]:
    return [SourceFile(spec.path, render(spec).encode()) for spec in specs]


def entries(specs: tuple[Spec, ...] = SPECS) -> tuple[Entry, ...]:
    """The entries of `specs`, validated together with the whole catalog they refer to."""
    result = validate_sources(sources((*SPECS, *(s for s in specs if s not in SPECS))))
    assert [p.text() for p in result.problems] == []
    wanted = {spec.id for spec in specs}
    return tuple(e for e in result.entries if e.id in wanted)


def index(specs: tuple[Spec, ...] = SPECS) -> SignatureIndex:
    return SignatureIndex(build_index(entries(specs)))


# A harmless line people blame: healthy NCCL start-up prints it (corpus/benign/nccl-startup.log).
PLUGIN = Spec(
    "nccl-net-plugin-not-found",
    "nccl-distributed",
    "NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)",
    "Nothing to fix: look for the first real error on the failing rank.",
    (("NET/Plugin : No plugin found (libnccl-net.so)", "harmless"),),
    (
        (
            "https://github.com/NVIDIA/nccl/issues/1",
            "node-01:31200:31200 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), "
            "using internal implementation",
        ),
    ),
    severity="low",
)
