"""torch.compile recompiles once per new dtype until Dynamo's recompile limit is hit.

compile_limit.py warn   the limit is hit and Dynamo falls back to eager (a warning)
compile_limit.py hard   fail_on_recompile_limit_hit: the limit is an error
"""

import sys

import torch
import torch._dynamo

import _lab

how = sys.argv[1]
cfg = torch._dynamo.config
name = "recompile_limit" if hasattr(cfg, "recompile_limit") else "cache_size_limit"
setattr(cfg, name, 2)
if how == "hard":
    flag = (
        "fail_on_recompile_limit_hit"
        if hasattr(cfg, "fail_on_recompile_limit_hit")
        else "fail_on_cache_limit_hit"
    )
    setattr(cfg, flag, True)


@torch.compile(backend="eager", dynamic=False)
def step(x: torch.Tensor) -> torch.Tensor:
    return (x * 2).sum()


for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32):
    _lab.say(f"{dtype}: {step(torch.ones(4, dtype=dtype)).item()}")
