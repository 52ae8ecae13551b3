"""Tensor dtypes that an operation or a conversion does not take, in one process.

dtypes.py half-cpu | bf16-numpy | frozen
"""

import sys

import torch

import _lab

how = sys.argv[1]
net = _lab.model()
x = torch.randn(32, 8)
if how == "half-cpu":
    # A model cast to fp16 for speed, run on a machine without a GPU: a whitening step
    # factors the features' covariance, which the CPU has no half-precision kernel for.
    feats = net[0](x).half()
    cov = feats.T @ feats / len(feats) + torch.eye(feats.shape[1], dtype=torch.half)
    _lab.say(f"features {tuple(feats.shape)} {feats.dtype}")
    torch.linalg.cholesky(cov)
elif how == "bf16-numpy":
    # Training in bfloat16, then logging a metric through NumPy.
    net = net.to(torch.bfloat16)
    loss = net(x.to(torch.bfloat16)).pow(2).mean()
    _lab.say(f"step 0 loss {loss.item():.4f}")
    history = [loss.detach().numpy()]
    _lab.say(f"history {history}")
elif how == "frozen":
    # Every parameter frozen (an adapter that was never added), then an optimizer over the
    # trainable ones.
    for p in net.parameters():
        p.requires_grad_(False)
    trainable = [p for p in net.parameters() if p.requires_grad]
    _lab.say(f"trainable parameters: {sum(p.numel() for p in trainable)}")
    opt = torch.optim.AdamW(trainable, lr=1e-4)
