"""DistributedDataParallel faults on gloo.

ddp.py unused        a layer that never gets a gradient, find_unused_parameters=False
ddp.py inconsistent  the faulty rank builds a model with one more layer
ddp.py collectives   TORCH_DISTRIBUTED_DEBUG=DETAIL; the faulty rank broadcasts, others reduce
ddp.py healthy       a few clean DDP steps
"""

import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import _lab


class TwoHeads(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 1)
        self.aux = torch.nn.Linear(8, 1)  # never used in forward

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


how = sys.argv[1]
_lab.init()
if how == "collectives":
    t = torch.ones(4)
    if _lab.faulty():
        dist.broadcast(t, src=0)
    else:
        dist.all_reduce(t)
    _lab.done()
    sys.exit(0)
if how == "unused":
    net = TwoHeads()
elif how == "inconsistent" and _lab.faulty():
    net = torch.nn.Sequential(_lab.model(), torch.nn.Linear(1, 1))
else:
    net = _lab.model()
ddp = DDP(net)
_lab.train(ddp, steps=4)
_lab.done()
