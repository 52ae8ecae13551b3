"""Helpers the scenario scripts share: who am I, a gloo process group, a little training."""

from __future__ import annotations

import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

RANK = int(os.environ.get("RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
# The rank that gets the fault (the manifest's `rank`), passed by lab/run.py.
FAULT_RANK = int(os.environ.get("LAB_FAULT_RANK", "0"))
TIMEOUT = float(os.environ.get("LAB_TIMEOUT", "3"))


def say(*parts: object) -> None:
    print(*parts, flush=True)


def init(timeout: float = 60) -> None:
    """A gloo group; its timeout is long so that a slow start is never a fault."""
    dist.init_process_group("gloo", timeout=timedelta(seconds=timeout))


def short_group() -> dist.ProcessGroup:
    """A group of all ranks whose collectives time out after LAB_TIMEOUT seconds."""
    return dist.new_group(timeout=timedelta(seconds=TIMEOUT))


def faulty() -> bool:
    return RANK == FAULT_RANK


def wait_in_collective() -> None:
    """What the healthy ranks do while the faulty one fails: sit in an all_reduce."""
    t = torch.ones(4)
    try:
        dist.all_reduce(t)
    except RuntimeError:
        # Print the error now, as Python would at exit (torch's hook adds the [rankN]: prefix),
        # and stay up, as a rank stuck in its clean-up does, until torchrun stops it. A rank
        # that exited here could be named torchrun's root cause in place of the faulty one.
        sys.excepthook(*sys.exc_info())
        time.sleep(60)
        raise
    say(f"rank {RANK}: all_reduce returned {t.tolist()}")


def model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def train(net: torch.nn.Module, steps: int = 3, every: int = 1) -> None:
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for step in range(steps):
        x, y = torch.randn(32, 8), torch.randn(32, 1)
        loss = torch.nn.functional.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % every == 0:
            say(f"rank {RANK} step {step} loss {loss.item():.4f}")


def linger(seconds: float) -> None:
    time.sleep(seconds)


def done() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()
    sys.stdout.flush()
