"""Files and disks: too many open files (RLIMIT_NOFILE), a full disk, a write size limit.

files.py nofile       open() until RLIMIT_NOFILE (64) says no
files.py save-full    torch.save onto a full filesystem (LAB_DIR: a 1 MiB tmpfs from lab/run.py)
files.py write-full   a plain write onto a full filesystem
files.py fsize        torch.save under RLIMIT_FSIZE (SIGXFSZ ignored: the write gets EFBIG)
"""

import os
import resource
import signal
import sys

import torch

import _lab

how = sys.argv[1]
if how == "nofile":
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    held = [open(__file__) for _ in range(100)]  # noqa: SIM115
elif how in ("save-full", "write-full"):
    target = os.path.join(os.environ["LAB_DIR"], "checkpoint.pt")
    _lab.say(f"saving checkpoint to {target}")
    if how == "save-full":
        torch.save({"w": torch.randn(1 << 20)}, target)
    else:
        with open(target, "wb") as f:
            f.write(os.urandom(4 << 20))
elif how == "fsize":
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    target = os.path.join(os.environ["LAB_DIR"], "checkpoint.pt")
    _lab.say(f"saving checkpoint to {target}")
    torch.save({"w": torch.randn(1 << 20)}, target)
