"""One rank hangs (sleeps) while the others wait, until a short timeout fires.

hang_rank.py allreduce|monitored_barrier|barrier
"""

import sys

import torch
import torch.distributed as dist

import _lab

how = sys.argv[1]
_lab.init()
if _lab.faulty():
    _lab.say(f"rank {_lab.RANK}: stuck in a data loader (sleeping)")
    _lab.linger(_lab.TIMEOUT * 4)
    sys.exit(0)
if how == "allreduce":
    dist.all_reduce(torch.ones(4))
elif how == "monitored_barrier":
    dist.monitored_barrier(timeout=__import__("datetime").timedelta(seconds=_lab.TIMEOUT))
elif how == "barrier":
    dist.barrier()
_lab.done()
