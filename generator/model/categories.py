"""The public catalog's categories, declared once: ids, titles and what belongs in each.

A private catalog adds its own in a `categories.yaml` at the top of its entries folder
(loading/categories.py reads it); an entry's category must be one of the two sets.
"""

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
    id: str
    title: str
    blurb: str


CATEGORIES: tuple[CategoryInfo, ...] = (
    CategoryInfo(
        Category.GPU_HARDWARE.value,
        "GPU hardware and driver",
        "Xid events, ECC and row remapping, GPUs that drop off the bus, driver and GSP faults.",
    ),
    CategoryInfo(
        Category.INTERCONNECT.value,
        "Interconnect",
        "InfiniBand, RoCE and socket transports between nodes.",
    ),
    CategoryInfo(
        Category.NCCL_DISTRIBUTED.value,
        "NCCL and distributed",
        "Collectives, watchdogs, rendezvous and the launcher: how one failure reaches every rank.",
    ),
    CategoryInfo(
        Category.MEMORY.value,
        "Memory",
        "GPU out-of-memory, allocator fragmentation, host and shared memory for data loaders.",
    ),
    CategoryInfo(
        Category.CUDA_RUNTIME.value,
        "CUDA runtime",
        "Device-side asserts, illegal accesses, library status errors and driver mismatches.",
    ),
    CategoryInfo(
        Category.NUMERICS.value,
        "Numerics",
        "NaN and Inf in losses and gradients, loss-scale overflow in mixed precision.",
    ),
    CategoryInfo(
        Category.FRAMEWORK.value,
        "Framework",
        "Errors raised by PyTorch and its libraries about how the model is built or used.",
    ),
    CategoryInfo(
        Category.DATA_PIPELINE.value,
        "Data pipeline",
        "Data loading limits: file descriptors, worker processes, tokenizers.",
    ),
    CategoryInfo(
        Category.STORAGE_CHECKPOINT.value,
        "Storage and checkpoints",
        "Saving and loading checkpoints: full disks, corrupt archives.",
    ),
    CategoryInfo(
        Category.SCHEDULER.value,
        "Schedulers and launchers",
        "Slurm, Kubernetes and job launchers: kills, time limits, placement and start-up hangs.",
    ),
    CategoryInfo(
        Category.ENVIRONMENT.value,
        "Environment and installs",
        "Installs, ABI and toolchain mismatches, missing drivers or libraries, GPU-less images.",
    ),
)

CATEGORY_IDS: tuple[str, ...] = tuple(c.id for c in CATEGORIES)
CATEGORY_BY_ID: dict[str, CategoryInfo] = {c.id: c for c in CATEGORIES}
