"""Distributed set-up mistakes in one process.

env_faults.py no-rank      init_process_group(env://) outside torchrun
env_faults.py no-group     a collective before init_process_group
"""

import os
import sys

import torch
import torch.distributed as dist

how = sys.argv[1]
if how == "no-rank":
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        os.environ.pop(name, None)
    dist.init_process_group("gloo")
elif how == "no-group":
    dist.all_reduce(torch.ones(2))
