"""One rank raises while the others wait in an all_reduce (they see gloo's peer close)."""

import sys

import _lab

_lab.init()
_lab.train(_lab.model(), steps=2)
if _lab.faulty():
    batch = {"pixel_values": None}
    sys.exit(print(batch["input_ids"]))  # KeyError: a bug no entry knows
_lab.wait_in_collective()
_lab.done()
