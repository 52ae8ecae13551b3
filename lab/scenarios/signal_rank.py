"""One rank dies of a signal while the others wait in an all_reduce.

    signal_rank.py KILL|SEGV|ABRT|BUS  (the rank comes from LAB_FAULT_RANK)

SEGV and BUS are real faults, not os.kill: a read of address 0, and a read of an mmap'd page
past the end of a truncated file. ABRT is os.abort(); KILL is SIGKILL sent to itself, as the
kernel's OOM killer or a scheduler would send it.
"""

import ctypes
import mmap
import os
import signal
import sys
import tempfile

import _lab

kind = sys.argv[1]
_lab.init()
_lab.train(_lab.model(), steps=2)
if not _lab.faulty():
    _lab.wait_in_collective()
    _lab.done()
    sys.exit(0)
_lab.say(f"rank {_lab.RANK}: injecting SIG{kind}")
if kind == "KILL":
    os.kill(os.getpid(), signal.SIGKILL)
elif kind == "SEGV":
    ctypes.string_at(0)
elif kind == "ABRT":
    os.abort()
elif kind == "BUS":
    with tempfile.TemporaryFile() as f:
        f.truncate(mmap.PAGESIZE * 2)
        m = mmap.mmap(f.fileno(), mmap.PAGESIZE * 2)
        f.truncate(0)
        m[mmap.PAGESIZE]  # the page is gone: SIGBUS
