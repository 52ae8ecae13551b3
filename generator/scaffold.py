"""The skeleton that `trainwreck new` writes: every field, a comment on what belongs there,
and an example. Fields that need the editor's knowledge are left empty, so that `validate`
fails exactly on them and says what to write; the rest hold sensible starting values.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass

from generator.model.invisible import printable

SCHEMA_LINE = "# yaml-language-server: $schema=../../schema/entry.schema.json"

_SKELETON = """\
{schema_line}
# A new Trainwreck entry. Every field is described in docs/entry-format.md; run
# `trainwreck validate {path}` to see what is still missing.
id: {entry_id}
# What a reader searches for, usually the error as printed,
# e.g. "Xid 79: GPU has fallen off the bus".
title: ""
category: {category}
# One to eight kebab-case tags, e.g. [xid, pcie, hardware].
tags: []
# critical | high | medium | low
severity: high
# Where the fault usually lies: hardware | software | either
layer: either
# The quick answer, one to three sentences (Markdown).
summary: ""
# The first action to take, one line of plain text, e.g. "Drain the node and run dcgmi diag -r 3".
quick_fix: ""
# What the engineer sees (Markdown).
symptom: ""
# What actually broke (Markdown).
root_cause: ""
mechanism:
  # What people usually blame, e.g. "the network" for a watchdog timeout.
  mistaken_for: ""
  # What is really happening, step by step.
  actually: ""
# Raw log lines as a user sees them, copied from a real log.
observed: ""
# Rows of the symptom table, e.g.
#   - symptom: nvidia-smi shows "Unable to determine the device handle"
#     why: The driver no longer has the device.
symptoms: []
# Hardware, software and setups where it happens, e.g. "NVIDIA A100 and H100 SXM boards".
affected_systems: []
# Real commands, what in their output confirms the failure, and whether they need root, e.g.
#   - command: dmesg -T | grep -i xid
#     look_for: A line with Xid 79 and the GPU's PCI address.
#     needs_root: true
confirm: []
# Lines the software prints, copied from its source or a real log, with placeholders
# {{int}} {{num}} {{hex}} {{pci}} {{word}} {{token}} {{*}} for the parts that vary, e.g.
#   - pattern: "NVRM: Xid (PCI:{{pci}}{{*}}): 79, "
#     role: defining        # or context: supporting only; or harmless: noise, never the cause
#     seen_in: https://github.com/...   # where that exact text appears
signatures: []
# Ordered steps. Say plainly when the answer is "drain the node and replace the GPU", e.g.
#   - step: Drain the node so the scheduler stops placing jobs on it.
#     commands:
#       - scontrol update nodename=$NODE state=drain reason="xid79"
#     code:                 # only where stacks differ
#       - stack: pytorch    # pytorch | deepspeed | megatron-lm | huggingface | vllm | generic
#         language: python  # python | bash | yaml | json | text
#         code: |
#           ...
fix: []
# What stops it from happening again (Markdown), one item per line.
prevention: []
# Xid numbers, ncclResult_t names, CUDA error enums; leave empty lists when none apply.
codes:
  xid: []
  nccl: []
  cuda: []
# Components and versions where known, e.g.
#   - component: NCCL
#     versions: ">= 2.12"
applies_to: []
# Upstream docs and issue threads you have read, e.g.
#   - title: NVIDIA Xid errors
#     url: https://docs.nvidia.com/deploy/xid-errors/index.html
references: []
# Ids of neighbouring entries, e.g. [nccl-watchdog-timeout].
related: []
# Ids of failures this one commonly triggers on other ranks, e.g. [nccl-watchdog-timeout].
collateral: []
# Real log excerpts and the public thread each comes from, e.g.
#   - url: https://github.com/pytorch/pytorch/issues/...
#     log: |
#       ...
examples: []
# Three to six questions people ask in real threads, answered for this failure, e.g.
#   - q: Can I reset the GPU without rebooting?
#     a: ...
faq: []
last_reviewed: {today}
"""


def skeleton(entry_id: str, category: str, today: dt.date) -> str:
    path = f"entries/{category}/{entry_id}.yaml"
    return _SKELETON.format(
        schema_line=SCHEMA_LINE, path=path, entry_id=entry_id, category=category, today=today
    )


# --- drafting from a log: `trainwreck new ID --category C --from-log FILE` ------------------

CONTEXT_BEFORE = 8  # lines of the log kept before the error line
CONTEXT_AFTER = 2
DRAFT_CHARS = 200  # of the error line, for the drafted signature

# The variable parts of an error line, most specific first; each becomes a placeholder.
_VARIABLE = re.compile(
    r"(?P<hex>0x[0-9A-Fa-f]+)"
    r"|(?P<path>(?:[A-Za-z]:)?(?:[\w.~-]*/)+[\w.-]+)"
    # A number stands alone or in a shape (64x512), never inside a name (sm_80, fp16).
    r"|(?P<num>(?<![A-Za-wyz_.\d])\d+(?:\.\d+)+(?![\d.]))"
    r"|(?P<int>(?<![A-Za-wyz_.\d])\d+(?![\d.]))",
    re.ASCII,
)


_LEADING = re.compile(r"^(?:\{(?:hex|token|num|int)\}|[\s\-:.,/\[\]()T])+", re.ASCII)


# Terminal escape sequences a log carries: colours and cursor moves (CSI), titles and links
# (OSC, ended by BEL or ST). A draft drops them; what is left that a YAML file cannot hold, or
# that hides text (NUL, other controls, bidi overrides, U+2028), is shown as [U+001B].
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")


def draftable(text: str) -> str:
    """A log line as an entry's draft may hold it: escapes dropped, the rest shown."""
    return "\t".join(printable(part) for part in _ESCAPES.sub("", text).split("\t"))


@dataclass(frozen=True)
class Draft:
    """What a log gives a new entry: the error line, where it is, and the lines around it."""

    file: str
    line: int
    kind: str
    text: str  # the error line without wrappers and rank prefix
    around: tuple[str, ...]


def draft_signature(text: str) -> str:
    """A signature drafted from an error line: literal text, with hex numbers, paths and
    numbers as {hex}, {token}, {num} and {int}, braces doubled; cut at DRAFT_CHARS."""
    out: list[str] = []
    at = 0
    for m in _VARIABLE.finditer(text[:DRAFT_CHARS]):
        out.append(text[at : m.start()].replace("{", "{{").replace("}", "}}"))
        kind = m.lastgroup or "token"
        out.append("{token}" if kind == "path" else "{" + kind + "}")
        at = m.end()
    out.append(text[at:DRAFT_CHARS].replace("{", "{{").replace("}", "}}"))
    # A pattern starts with literal text: a leading time or number adds nothing.
    return _LEADING.sub("", "".join(out)).rstrip()


def _block(lines: tuple[str, ...], indent: str) -> str:
    return "".join(f"{indent}{line}\n" if line.strip() else "\n" for line in lines)


def draft_from_log(entry_id: str, category: str, today: dt.date, draft: Draft) -> str:
    """The skeleton of `new`, with `observed`, one signature and one example drafted from the
    log. The example's URL, the signature's `seen_in` and all the prose stay empty, so
    `validate` fails until the editor has written them and checked the signature upstream."""
    text = skeleton(entry_id, category, today)
    around = tuple(draftable(line) for line in draft.around)
    observed = "observed: |\n" + _block(around, "  ")
    signature = (
        f"# Drafted from {draft.file}:{draft.line} ({draft.kind}); check it against the\n"
        "# upstream source, keep the words that name this failure, and set seen_in.\n"
        # Not ASCII-only: json.dumps would write an emoji as a surrogate pair of escapes, which
        # YAML reads as two lone surrogates.
        f"signatures:\n  - pattern: "
        f"{json.dumps(draft_signature(draftable(draft.text)), ensure_ascii=False)}\n"
        '    role: defining\n    seen_in: ""\n'
    )
    example = (
        f"# From {draft.file}:{draft.line}; set url to the public thread it was posted in.\n"
        'examples:\n  - url: ""\n    log: |\n' + _block(around, "      ")
    )
    for old, new in (
        ('observed: ""\n', observed),
        ("signatures: []\n", signature),
        ("examples: []\n", example),
    ):
        assert old in text
        text = text.replace(old, new, 1)
    return text
