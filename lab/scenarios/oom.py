"""Host memory runs out on one rank.

oom.py rlimit   RLIMIT_AS caps the address space; the allocator refuses a big tensor
oom.py cgroup   the rank joins a memory cgroup (LAB_CGROUP, made by lab/run.py) and the
                kernel's OOM killer SIGKILLs it
"""

import os
import resource
import sys

import torch

import _lab

how = sys.argv[1]
distributed = _lab.WORLD > 1
if distributed:
    _lab.init()
if _lab.faulty():
    if how == "rlimit":
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        pages = int(open("/proc/self/statm").read().split()[0])  # noqa: SIM115
        used = pages * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (used + (512 << 20), hard))
        _lab.say(f"rank {_lab.RANK}: address space capped at {(used >> 20) + 512} MiB")
    else:
        with open(os.path.join(os.environ["LAB_CGROUP"], "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
        _lab.say(f"rank {_lab.RANK}: joined a memory cgroup")
    x = torch.ones(1 << 30, dtype=torch.float32)  # 4 GiB, touched
    _lab.say(x.sum())
if distributed:
    _lab.wait_in_collective()
    _lab.done()
