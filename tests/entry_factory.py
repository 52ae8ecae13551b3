"""A complete, valid entry as YAML text, for tests that need one to break or to build."""

from __future__ import annotations

VALID_ENTRY = """\
# yaml-language-server: $schema=../../schema/entry.schema.json
id: {id}
title: "Xid 79: GPU has fallen off the bus"
category: gpu-hardware
tags: [xid, pcie]
severity: critical
layer: hardware
summary: >-
  The driver lost contact with the GPU over **PCIe**; the device is gone until a reset.
quick_fix: Drain the node, collect an nvidia-bug-report, and reset or replace the GPU.
symptom: Every CUDA call on the node fails and `nvidia-smi` reports the GPU as lost.
root_cause: The GPU stopped answering on the PCIe bus (power, thermals or a failing board).
mechanism:
  mistaken_for: A bug in the training script or in NCCL.
  actually: |
    The kernel driver marks the device as gone.

    Every process holding a context on it gets errors on its next CUDA call.
observed: |
  NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.
symptoms:
  - symptom: nvidia-smi shows "Unable to determine the device handle"
    why: The driver no longer has the device.
affected_systems:
  - NVIDIA data-centre GPUs on PCIe or SXM boards
confirm:
  - command: dmesg -T | grep -i xid
    look_for: A line with Xid 79 and the PCI address of the GPU.
    needs_root: true
signatures:
  - pattern: "NVRM: Xid (PCI:{{pci}}): 79, "
    role: defining
    seen_in: https://github.com/NVIDIA/open-gpu-kernel-modules
fix:
  - step: Drain the node so the scheduler stops placing jobs on it.
    commands:
      - scontrol update nodename=$NODE state=drain reason="xid79"
    code:
      - stack: pytorch
        language: python
        code: |
          print("no code change fixes a lost GPU")
prevention:
  - Watch `dmesg` for Xid events with DCGM health checks.
codes:
  xid: [79]
  xid_actions:
    - code: 79
      meaning: GPU has fallen off the bus
      action: reboot
applies_to:
  - component: NVIDIA driver
    versions: any
references:
  - title: NVIDIA Xid errors
    url: https://docs.nvidia.com/deploy/xid-errors/index.html
related: []
collateral: []
examples:
  - url: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1
    log: |
      [ 123.456] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.
faq:
  - q: Can I reset the GPU without rebooting?
    a: Sometimes, with `nvidia-smi -r`, when no process holds it.
  - q: Is it always hardware?
    a: Almost always; a firmware update fixes some boards.
  - q: Does it corrupt my checkpoint?
    a: Only a checkpoint being written at the moment of the fault.
last_reviewed: 2026-11-29
"""


def entry_yaml(entry_id: str = "xid-79-gpu-fallen-off-bus") -> str:
    return VALID_ENTRY.replace("{id}", entry_id).replace("{{pci}}", "{pci}")
