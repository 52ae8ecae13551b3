"""dtype, shape and device mismatches, and checkpoints that do not load.

mismatch.py dtype | shape | device | cuda | missing-keys | size | truncated | weights-only
"""

import os
import sys
import tempfile

import torch

import _lab

how = sys.argv[1]
net = _lab.model()
tmp = tempfile.mkdtemp()
if how == "dtype":
    net(torch.randn(4, 8, dtype=torch.float64))
elif how == "shape":
    net(torch.randn(4, 7))
elif how == "device":
    # (torch.mm of a cpu and a meta tensor returns garbage without a word, in 2.13)
    net(torch.randn(4, 8, device="meta"))
elif how == "cuda":
    net.cuda()
elif how == "missing-keys":
    other = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU())
    net.load_state_dict(other.state_dict())
elif how == "size":
    other = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    net.load_state_dict(other.state_dict())
elif how == "truncated":
    path = os.path.join(tmp, "checkpoint.pt")
    torch.save(net.state_dict(), path)
    size = os.path.getsize(path)
    os.truncate(path, size // 2)
    _lab.say(f"checkpoint cut from {size} to {size // 2} bytes")
    net.load_state_dict(torch.load(path))
elif how == "weights-only":

    class Config:
        lr = 0.1

    path = os.path.join(tmp, "checkpoint.pt")
    torch.save({"model": net.state_dict(), "config": Config()}, path)
    torch.load(path)
