"""A DataLoader worker fails.

dataloader.py kill|segv|bus|exit|timeout|nofile
"""

import ctypes
import mmap
import os
import resource
import signal
import sys
import tempfile
import time

import torch
from torch.utils.data import DataLoader, Dataset

import _lab

how = sys.argv[1]


class Items(Dataset):
    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int) -> torch.Tensor:
        info = torch.utils.data.get_worker_info()
        if i == 9 and info is not None:
            if how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            elif how == "segv":
                ctypes.string_at(0)
            elif how == "bus":
                with tempfile.TemporaryFile() as f:
                    f.truncate(mmap.PAGESIZE * 2)
                    m = mmap.mmap(f.fileno(), mmap.PAGESIZE * 2)
                    f.truncate(0)
                    m[mmap.PAGESIZE]
            elif how == "exit":
                os._exit(3)
            elif how == "timeout":
                time.sleep(_lab.TIMEOUT * 5)
        return torch.full((8,), float(i))


kwargs = {}
if how == "timeout":
    kwargs["timeout"] = 2
if how == "nofile":
    # Each batch travels to the main process as a file descriptor; too few are allowed.
    torch.multiprocessing.set_sharing_strategy("file_descriptor")
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    loader = DataLoader(Items(), batch_size=1, num_workers=2, prefetch_factor=32)
    held = [b for b in loader]
    _lab.say(len(held))
    sys.exit(0)
loader = DataLoader(Items(), batch_size=4, num_workers=2, **kwargs)
for step, batch in enumerate(loader):
    _lab.say(f"step {step} batch mean {batch.mean().item():.1f}")
