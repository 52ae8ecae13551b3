"""Numerics and autograd faults in one process.

numerics.py nan-clip | anomaly | inplace | backward-twice | no-grad-fn
"""

import sys

import torch

import _lab

how = sys.argv[1]
net = _lab.model()
x = torch.randn(32, 8)
if how == "nan-clip":
    opt = torch.optim.SGD(net.parameters(), lr=1e30)
    for step in range(20):
        loss = net(x).pow(2).mean()
        _lab.say(f"step {step} loss {loss.item()}")
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0, error_if_nonfinite=True)
        opt.step()
elif how == "anomaly":
    with torch.autograd.detect_anomaly():
        w = torch.tensor([-1.0, 4.0], requires_grad=True)
        loss = torch.sqrt(w).sum()
        _lab.say(f"loss {loss.item()}")
        loss.backward()
elif how == "inplace":
    h = net[0](x).sigmoid()
    h.add_(1)
    h.sum().backward()
elif how == "backward-twice":
    loss = net(x).mean()
    loss.backward()
    loss.backward()
elif how == "no-grad-fn":
    with torch.no_grad():
        loss = net(x).mean()
    loss.backward()
