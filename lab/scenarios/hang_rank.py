"""One rank hangs (sleeps) while the others wait, until a short timeout fires.

hang_rank.py allreduce|monitored_barrier|barrier
"""

import sys
from datetime import timedelta

import torch
import torch.distributed as dist

import _lab

how = sys.argv[1]
_lab.init()
group = _lab.short_group()
if _lab.faulty():
    _lab.say(f"rank {_lab.RANK}: stuck in a data loader (sleeping)")
    _lab.linger(_lab.TIMEOUT * 4)
    sys.exit(0)
if how == "allreduce":
    dist.all_reduce(torch.ones(4), group=group)
elif how == "monitored_barrier":
    dist.monitored_barrier(group, timeout=timedelta(seconds=_lab.TIMEOUT))
elif how == "barrier":
    dist.barrier(group)
_lab.done()
