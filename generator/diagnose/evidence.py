"""Lines that state an error whether or not the catalog knows it: the fallback's evidence.

When no entry explains a failure, the diagnosis still names the line that most likely states
it. In order of trust (`KINDS`):

- `python-exception`: the final line of a Python traceback (`ValueError: ...`), read after
  `Traceback (most recent call last):` in the same stream, past the indented frames; or a line
  that is only an exception (`torch.distributed.DistBackendError: ...`), as people paste it;
- `signal`: a fatal signal (`Fatal Python error: Segmentation fault`, glog's `*** SIGSEGV`,
  `Segmentation fault (core dumped)`, or a launcher's report of one);
- `xid`: the kernel driver's `NVRM: Xid (PCI:...): N` line;
- `nccl-warn`: NCCL's `NCCL WARN` lines;
- `error-line`: a line with `error: ` in it (`srun: error: ...`, `slurmstepd: error: ...`).

Healthy runs print warnings and `error` in harmless places, so the last two are weak: they are
reported only when something else shows that a rank failed (see triage.py). `ANCHORS` are the
literals the scanner's prefilter looks for; every line a rule below accepts holds one.
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["python-exception", "signal", "xid", "nccl-warn", "error-line"]
KINDS: tuple[Kind, ...] = ("python-exception", "signal", "xid", "nccl-warn", "error-line")
STRONG: frozenset[str] = frozenset({"python-exception", "signal", "xid"})
# Strong lines that can make a known-collateral finding collateral of themselves. A fatal
# signal is left out: a rank aborts or is killed *after* its error far more often than before.
CAUSES: frozenset[str] = frozenset({"python-exception", "xid"})

TRACEBACK = "Traceback (most recent call last):"

ANCHORS = (
    TRACEBACK,
    "Error: ",
    "Exception: ",
    "Segmentation fault",
    "Fatal Python error: ",
    "received by PID",
    "exited on signal",
    "(core dumped)",
    "NVRM: Xid",
    "NCCL WARN",
    "error: ",
)

# Every expression here treats the ten digits alike (no digit written out; each class holds
# all ten or none): scan.py reads a line as no launcher's report, and its evidence kind, once
# per shape. tests/diagnose/test_scan_shapes.py checks each one; the plain texts looked for
# (`NCCL WARN`, the srun signals) hold no digit either.

# The last line of a traceback: a dotted exception name, and its message after ": ".
_EXCEPTION_LINE = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?::(?: .*)?)?", re.ASCII)
# A line that is only an exception, outside a traceback: the name must say it is one.
_EXCEPTION_ALONE = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception): \S.*", re.ASCII)
_SIGNAL = re.compile(
    r"Fatal Python error: (?:Segmentation fault|Aborted|Bus error|Floating point exception)"
    r"|\*\*\* SIG[A-Z]+ .*received by PID"
    r"|Signal \d{1,3} \(SIG[A-Z0-9]+\) received by PID"
    r"|(?:Segmentation fault|Aborted|Bus error|Floating point exception|Illegal instruction)"
    r" \(core dumped\)"
    r"|exited on signal \d{1,3}",
    re.ASCII,
)
_XID = re.compile(r"NVRM: Xid \(", re.ASCII)
_ERROR_LINE = re.compile(r"(?<![A-Za-z])error: \S", re.ASCII)


def body_of(rest: str) -> str:
    """A line's own text after its rank prefix: the prefix's one separating space goes."""
    return rest[1:] if rest.startswith(" ") else rest


def is_frame(body: str) -> bool:
    """A line inside a traceback: the frames and code lines are indented, `^^^` markers too."""
    return body.startswith((" ", "\t"))


def is_exception_line(body: str) -> bool:
    return _EXCEPTION_LINE.fullmatch(body.rstrip()) is not None


def classify(body: str, signal: bool = False) -> Kind | None:
    """The kind of evidence one line is, from its own text (`signal`: a launcher reports one)."""
    if _EXCEPTION_ALONE.fullmatch(body.rstrip()):
        return "python-exception"
    if signal or _SIGNAL.search(body):
        return "signal"
    if _XID.search(body):
        return "xid"
    if "NCCL WARN" in body:
        return "nccl-warn"
    if _ERROR_LINE.search(body):
        return "error-line"
    return None
