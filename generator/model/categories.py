"""The fixed set of categories, declared once: ids, titles and what belongs in each."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Category(StrEnum):
    GPU_HARDWARE = "gpu-hardware"
    INTERCONNECT = "interconnect"
    NCCL_DISTRIBUTED = "nccl-distributed"
    MEMORY = "memory"
    CUDA_RUNTIME = "cuda-runtime"
    NUMERICS = "numerics"
    FRAMEWORK = "framework"
    DATA_PIPELINE = "data-pipeline"
    STORAGE_CHECKPOINT = "storage-checkpoint"
    SCHEDULER = "scheduler"
    ENVIRONMENT = "environment"


@dataclass(frozen=True)
class CategoryInfo:
    id: Category
    title: str
    blurb: str


CATEGORIES: tuple[CategoryInfo, ...] = (
    CategoryInfo(
        Category.GPU_HARDWARE,
        "GPU hardware and driver",
        "Xid events, ECC and row remapping, GPUs that drop off the bus, driver and GSP faults.",
    ),
    CategoryInfo(
        Category.INTERCONNECT,
        "Interconnect",
        "InfiniBand, RoCE and socket transports between nodes.",
    ),
    CategoryInfo(
        Category.NCCL_DISTRIBUTED,
        "NCCL and distributed",
        "Collectives, watchdogs, rendezvous and the launcher: how one failure reaches every rank.",
    ),
    CategoryInfo(
        Category.MEMORY,
        "Memory",
        "GPU out-of-memory, allocator fragmentation, host and shared memory for data loaders.",
    ),
    CategoryInfo(
        Category.CUDA_RUNTIME,
        "CUDA runtime",
        "Device-side asserts, illegal accesses, library status errors and driver mismatches.",
    ),
    CategoryInfo(
        Category.NUMERICS,
        "Numerics",
        "NaN and Inf in losses and gradients, loss-scale overflow in mixed precision.",
    ),
    CategoryInfo(
        Category.FRAMEWORK,
        "Framework",
        "Errors raised by PyTorch and its libraries about how the model is built or used.",
    ),
    CategoryInfo(
        Category.DATA_PIPELINE,
        "Data pipeline",
        "Data loading limits: file descriptors, worker processes, tokenizers.",
    ),
    CategoryInfo(
        Category.STORAGE_CHECKPOINT,
        "Storage and checkpoints",
        "Saving and loading checkpoints: full disks, corrupt archives.",
    ),
    CategoryInfo(
        Category.SCHEDULER,
        "Schedulers and launchers",
        "Slurm, Kubernetes and job launchers: kills, time limits, placement and start-up hangs.",
    ),
    CategoryInfo(
        Category.ENVIRONMENT,
        "Environment and installs",
        "Installs, ABI and toolchain mismatches, missing drivers or libraries, GPU-less images.",
    ),
)

CATEGORY_IDS: tuple[str, ...] = tuple(c.id.value for c in CATEGORIES)
CATEGORY_BY_ID: dict[str, CategoryInfo] = {c.id.value: c for c in CATEGORIES}
