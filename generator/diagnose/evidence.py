"""Lines that state an error whether or not the catalog knows it: the fallback's evidence.

When no entry explains a failure, the diagnosis still names the line that most likely states
it. In order of trust (`KINDS`), the first being the likeliest cause of the rest:

- `python-exception`: the final line of a Python traceback (`ValueError: ...`), read after
  `Traceback (most recent call last):` in the same stream, past the indented frames; or an
  exception where people paste one: alone on its line, after a list marker, inside backticks
  or bold, after a sentence of their own (`I get: KeyError: 'x'`, a full-width colon);
  and TensorFlow's `ResourceExhaustedError (see above for traceback): ...`;
- `cpp-exception`: the `what():` line of a C++ exception that ended the process (after
  `terminate called after throwing an instance of '...'`);
- `fatal`: a failed internal check (glog's `Check failed: `, XLA's `RET_CHECK failure`);
- `usage`: the script's argument parser refused its command line (argparse's `error:` lines);
- `shell`: the shell could not run a program (`command not found`, dash's `: not found`,
  Windows' `is not recognized as an internal or external command`);
- `signal`: a fatal signal (`Fatal Python error: Segmentation fault`, glog's `*** SIGSEGV`,
  `Segmentation fault (core dumped)`, the shell's bare `Killed`, or a launcher's report of one);
- `scheduler`: Slurm's own `srun: error:`, `sbatch: fatal:`, `slurmstepd: error:` lines;
- `xid`: the kernel driver's `NVRM: Xid (PCI:...): N` line;
- `nccl-warn`: NCCL's `NCCL WARN` lines;
- `error-line`: any other line with `error: ` in it.

- `final-line`: the line a log ends with, when nothing above is found and it reads as an error
  (ending.py): the excerpts people paste end where the run stopped.

Healthy runs print warnings and `error` in harmless places, so `nccl-warn` and `error-line` are
weak: they are reported only when something else shows that a rank failed (see triage.py).
`ANCHORS` are the literals the scanner's prefilter looks for; every line a rule below accepts
holds one.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

Kind = Literal[
    "python-exception",
    "cpp-exception",
    "fatal",
    "usage",
    "shell",
    "signal",
    "scheduler",
    "xid",
    "nccl-warn",
    "error-line",
    "final-line",
]
KINDS: tuple[Kind, ...] = get_args(Kind)  # most telling first
STRONG: frozenset[str] = frozenset(KINDS[:-3])
# Strong lines that can make a known-collateral finding collateral of themselves. A fatal
# signal is left out: a rank aborts or is killed *after* its error far more often than before.
CAUSES: frozenset[str] = frozenset({"python-exception", "cpp-exception", "fatal", "xid"})

TRACEBACK = "Traceback (most recent call last):"

ANCHORS = (
    TRACEBACK,
    "Error: ",
    "Exception: ",
    "(see above for traceback)",
    "what():",
    "Check failed: ",
    "RET_CHECK failure",
    ": not found",
    "command not found",
    "is not recognized as an internal or external command",
    "Segmentation fault",
    "Fatal Python error: ",
    "received by PID",
    "exited on signal",
    "(core dumped)",
    "NVRM: Xid",
    "NCCL WARN",
    "error: ",
    "fatal: ",
)

# Every expression here treats the ten digits alike (no digit written out; each class holds
# all ten or none): scan.py reads a line as no launcher's report, and its evidence kind, once
# per shape. tests/diagnose/test_scan_shapes.py checks each one; the plain texts looked for
# (`NCCL WARN`, the srun signals) hold no digit either.

# The last line of a traceback: a dotted exception name, and its message after ": ".
_EXCEPTION_LINE = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?::(?: .*)?)?", re.ASCII)
# An exception outside a traceback: the name must say it is one, and it starts the line or
# follows what a paste or a sentence puts before it (a space, a list marker, a backtick, bold,
# a quote or bracket, an ASCII or full-width colon), never the inside of a word.
_EXCEPTION_IN_LINE = re.compile(
    r"(?:^|(?<=[\s`*>:\uff1a(\[\"'\u300c]))"
    r"(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*(?:Error|Exception)|Exception)"
    r"(?: \(see above for traceback\))?: \S",
    re.ASCII,
)
# `what():` states the error; the `terminate called after throwing ...` line before it only
# names its type, so it is no evidence of its own (it would come before a known `what():`).
# A Python warning (`file.py:12: UserWarning: ...`) that quotes an exception is still a warning.
_WARNING = re.compile(r"[A-Za-z]Warning: ", re.ASCII)
_CPP_EXCEPTION = re.compile(r"(?:^|\s)what\(\): {1,2}\S", re.ASCII)
_FATAL = re.compile(r"\] Check failed: |RET_CHECK failure \(", re.ASCII)
# argparse's `error()`: `<prog>: error: <message>`, the prog being the script's name.
_USAGE = re.compile(
    r"\S: error: (?:unrecognized arguments: |the following arguments are required: "
    r"|argument \S|invalid choice: |one of the arguments )"
    r"|^[\w.-]+\.py: error: \S",
    re.ASCII,
)
_SHELL = re.compile(
    r"(?:^|\s)\S+: command not found(?:$|[\s\"'`])"
    r"|(?:^|[\s\"'`])[^\s:\"'`]+: \d+: [^\s:]+: not found(?:$|[\"'`])"
    r"|is not recognized as an internal or external command",
    re.ASCII,
)
_SIGNAL = re.compile(
    r"Fatal Python error: (?:Segmentation fault|Aborted|Bus error|Floating point exception)"
    r"|\*\*\* SIG[A-Z]+ .*received by PID"
    r"|Signal \d{1,3} \(SIG[A-Z0-9]+\) received by PID"
    r"|(?:Segmentation fault|Aborted|Bus error|Floating point exception|Illegal instruction)"
    r" \(core dumped\)"
    r"|exited on signal \d{1,3}",
    re.ASCII,
)
_SCHEDULER = re.compile(
    r"(?:^|\s)(?:srun|sbatch|salloc|slurmstepd|slurmd|scontrol): (?:error|fatal): \S", re.ASCII
)
_XID = re.compile(r"NVRM: Xid \(", re.ASCII)
_RAISE = re.compile(r"\s*raise [A-Za-z_][\w.]*\((?:f[\"']|.*(?:\{|%[sdr(]|\.format\())", re.ASCII)
_ERROR_LINE = re.compile(r"(?<![A-Za-z])error: \S", re.ASCII)


def body_of(rest: str) -> str:
    """A line's own text after its rank prefix: the prefix's one separating space goes."""
    return rest[1:] if rest.startswith(" ") else rest


def is_frame(body: str) -> bool:
    """A line inside a traceback: the frames and code lines are indented, `^^^` markers too."""
    return body.startswith((" ", "\t"))


def is_raise_line(body: str) -> bool:
    """A traceback's source line that raises a message made at run time (`raise
    RuntimeError('... {}'.format(x))`, an f-string, `%s`; its indent often lost in a paste): it
    holds the message's template, not the message, so no signature's match counts on it. A
    constant message is the message itself, and still counts."""
    return _RAISE.match(body) is not None


def is_exception_line(body: str) -> bool:
    return _EXCEPTION_LINE.fullmatch(body.rstrip()) is not None


def classify(body: str, signal: bool = False) -> Kind | None:
    """The kind of evidence one line is, from its own text (`signal`: a launcher reports one)."""
    text = body.rstrip()
    m = _EXCEPTION_IN_LINE.search(text)
    if m is not None and not _WARNING.search(text, 0, m.start()):
        return "python-exception"
    if _CPP_EXCEPTION.search(text):
        return "cpp-exception"
    if _FATAL.search(text):
        return "fatal"
    if signal or _SIGNAL.search(body):
        return "signal"
    if _SCHEDULER.search(text):
        return "scheduler"  # before usage: `srun: error: ...` names no script
    if _USAGE.search(text):
        return "usage"
    if _SHELL.search(text):
        return "shell"
    if _XID.search(body):
        return "xid"
    if "NCCL WARN" in body:
        return "nccl-warn"
    if _ERROR_LINE.search(body):
        return "error-line"
    return None
