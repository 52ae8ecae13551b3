"""Healthy runs: these must stay silent under every signature.

healthy.py allreduce    torchrun start, one all_reduce, clean exit
healthy.py train        training progress with Python logging, one process or many
healthy.py checkpoint   checkpoint saves every few steps, then a resume that loads one
healthy.py loader       a DataLoader with workers
healthy.py compile      torch.compile (eager backend) for a few steps
healthy.py linger       a slow step of 10 s (stays under every timeout; lab/run.py may stop it)
"""

import logging
import os
import sys
import tempfile

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset

import _lab

how = sys.argv[1]
logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
log = logging.getLogger("train")
distributed = _lab.WORLD > 1
if distributed:
    _lab.init()
net = _lab.model()
if how == "allreduce":
    t = torch.ones(4) * (_lab.RANK + 1)
    dist.all_reduce(t)
    log.info("rank %d: all_reduce gave %s", _lab.RANK, t.tolist())
elif how == "train":
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    for step in range(1, 21):
        x, y = torch.randn(16, 8), torch.randn(16, 1)
        loss = torch.nn.functional.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            log.info("step %d/20 loss=%.4f lr=%.2e", step, loss.item(), 1e-3)
    log.info("training finished: 20 steps")
elif how == "checkpoint":
    folder = tempfile.mkdtemp(prefix="ckpt-")
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for step in range(1, 7):
        _lab.train(net, steps=1)
        if step % 2 == 0:
            path = os.path.join(folder, f"step-{step}.pt")
            torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "step": step}, path)
            log.info("saved checkpoint %s (%d bytes)", path, os.path.getsize(path))
    state = torch.load(os.path.join(folder, "step-6.pt"))
    net.load_state_dict(state["model"])
    log.info("resumed from step %d", state["step"])
elif how == "loader":
    data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
    for epoch in range(2):
        for i, (x, _) in enumerate(DataLoader(data, batch_size=16, num_workers=2)):
            log.info("epoch %d batch %d mean %.3f", epoch, i, x.mean().item())
elif how == "compile":
    fast = torch.compile(net, backend="eager")
    for step in range(3):
        log.info("step %d out %.4f", step, fast(torch.randn(4, 8)).sum().item())
elif how == "linger":
    log.info("rank %d: a slow step", _lab.RANK)
    _lab.linger(10)
    log.info("slow step done")
if distributed:
    dist.barrier()
    _lab.done()
log.info("exit 0")
