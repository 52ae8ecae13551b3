"""Launchers are witnesses: the lines in which a launcher says which rank died, and how.

The exact wording comes from each launcher's source (and real logs quoted in its issue threads):

- torchrun / TorchElastic, `torch/distributed/elastic/multiprocessing/api.py`:
  `failed (exitcode: %s) local_rank: %s (pid: %s) of binary: %s` (the first failure of this
  agent's workers, by local rank); and the failure summary of
  `torch/distributed/elastic/multiprocessing/errors/__init__.py`, whose blocks read
  `rank      : 2 (local_rank: 2)` then `exitcode  : -11 (pid: 4242)` then
  `traceback : Signal 11 (SIGSEGV) received by PID 4242` (PyTorch 1.10 and later, under
  `Root Cause (first observed failure):` after `Failures:`), or `rank: 2 (local_rank: 2)`,
  `exitcode: -11 (pid: 4242)` and `msg: "..."` (PyTorch 1.9, `Root Cause:` before
  `Other Failures:`). The summary's `rank` is the global rank.
- Slurm srun, `src/plugins/launch/slurm/launch_slurm.c`:
  `srun: error: <host>: task 3: Exited with exit code 1`, `...: tasks 0-3: Killed`,
  `...: task 3: Segmentation fault (core dumped)` (the task number is the global rank).
- Open MPI's mpirun: `mpirun noticed that process rank 3 with PID 4242 on node n1 exited on
  signal 11 (Segmentation fault).`, and the block `Process name: [[40617,1],3]` /
  `Exit code:    1` after `mpirun detected that one or more processes exited with non-zero
  status`.
- DeepSpeed's launcher, `deepspeed/launcher/launch.py` (`sigkill_handler`):
  `[...'--local_rank=3', ...] exits with return code = -9`. The command it quotes is the last
  one the launcher built (`cmd`, left from the loop that starts the ranks: v0.5.0 to the
  current edaa722 alike), not the failed rank's: the report names no rank, only the code.

- `torch.multiprocessing.spawn` (`mp.spawn`), `torch/multiprocessing/spawn.py`: `process 3
  terminated with signal SIGKILL` and `process 3 terminated with exit code 1`, as its
  ProcessExitedException (or, before 1.8, a bare Exception) states them; the process index is
  the local rank (`spawn`).
- HPE's PALS `mpiexec` (Cray systems, such as ALCF's Aurora): `rank 0 died from signal 11 and
  dumped core` (real logs in pmodels/mpich#7569; not in MPICH's own source), read as `mpirun`.
- The shell that ran the job (`shell`): bash's report of a job that a signal ended, alone on
  its line (`Killed`, `Segmentation fault (core dumped)`), after a progress bar it cut short, or
  after the script's line and the job's pid (`./train.sh: line 12: 4242 Killed  python ...`);
  zsh's lower-case form (`zsh: killed     python train.py`); an IDE's `Process finished with
  exit code 139 (interrupted by signal 11: SIGSEGV)`, and Windows' NTSTATUS exit codes
  (`0xC0000005`, an access violation, is Windows' segmentation fault). The shell names no rank:
  the line's own prefix, if any, is the rank.

Kubernetes pods that end in an index name their rank through `kubectl logs --prefix`; that is
read by paste.py. Each function here reads one line and is pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

LauncherName = Literal["torchrun", "srun", "mpirun", "deepspeed", "spawn", "shell"]

# What a signal does to a training process, and what usually sent it.
SIGNALS: dict[int, tuple[str, str]] = {
    2: ("SIGINT", "interrupted (Ctrl-C, or a launcher passing on an interrupt)"),
    4: ("SIGILL", "illegal instruction: a binary built for a newer CPU than this one"),
    6: (
        "SIGABRT",
        "the process aborted itself: an uncaught C++ exception, a failed assertion, or the "
        "NCCL watchdog tearing it down after a collective failed",
    ),
    7: (
        "SIGBUS",
        "bus error: usually shared memory (/dev/shm) ran out, as with data loader workers in "
        "a container",
    ),
    8: ("SIGFPE", "arithmetic fault in native code (an integer division by zero)"),
    9: (
        "SIGKILL",
        "killed from outside: most often the host's out-of-memory killer, else the scheduler",
    ),
    11: (
        "SIGSEGV",
        "segmentation fault: native code (a CUDA or NCCL library, an extension, a data loader "
        "worker) touched memory it does not own",
    ),
    15: (
        "SIGTERM",
        "asked to stop: the launcher or scheduler ended it, usually after another rank failed "
        "or at the time limit",
    ),
}


def signal_of(code: int | None, signal: int | None) -> int | None:
    """The signal an exit names: itself, or as the exit code encodes it (-N, or 128+N)."""
    if signal is None and code is not None:
        if code < 0 and -code in SIGNALS:
            return -code
        if code > 128 and code - 128 in SIGNALS:
            return code - 128
    return signal


def exit_meaning(code: int | None, signal: int | None) -> str:
    """What an exit code or signal means, in one clause."""
    if signal is None and code is not None and code < 0:
        signal = -code
    signal = signal_of(code, signal)
    if signal is not None:
        name, why = SIGNALS.get(signal, (f"signal {signal}", "killed by a signal"))
        shown = f"exit code {code}: " if code is not None else ""
        return f"{shown}{name}, {why}"
    if code == 0:
        return "exit code 0: finished normally"
    if code is None:
        return "failed"
    return f"exit code {code}: the program stopped with an error; its own output says which"


@dataclass(frozen=True)
class LaunchReport:
    """What one launcher line says about a rank."""

    launcher: LauncherName
    rank: int | None  # None when the line leaves it to the block around it
    local: bool  # the rank is a local rank (torchrun's agent line, DeepSpeed)
    code: int | None  # the exit code as the launcher prints it (torchrun: -N for a signal)
    signal: int | None
    summary: Literal["rank", "field", "root-header", "other-header", None] = None
    root: bool = False  # in the summary's Root Cause block (the launcher's first failure)

    @property
    def failed(self) -> bool:
        return self.signal is not None or (self.code is not None and self.code != 0)


# Every expression here treats the ten digits alike (no digit written out; each class holds
# all ten or none): scan.py reads a line as no launcher's report, and its evidence kind, once
# per shape. tests/diagnose/test_scan_shapes.py checks each one; the plain texts looked for
# (`NCCL WARN`, the srun signals) hold no digit either.
_TORCHRUN_FAILED = re.compile(
    r"failed \(exitcode: (-?\d{1,4})\) (?:local_rank: (\d{1,6}) \(pid: \d+\)"
    r"|for binary located at .* with local_rank: (\d{1,6}))",
    re.ASCII,
)
_SUMMARY_RANK = re.compile(r" *rank *: (\d{1,6}) \(local_rank: \d{1,6}\)", re.ASCII)
_SUMMARY_EXIT = re.compile(r" *exitcode *: (-?\d{1,4}) \(pid: \d+\)", re.ASCII)
_SUMMARY_FIELD = re.compile(r" *(?:traceback|error_file|msg) *: ", re.ASCII)
_ROOT_HEADER = re.compile(r"Root Cause(?: \(first observed failure\))?:", re.ASCII)
_OTHER_HEADER = re.compile(r"(?:Other )?Failures:$", re.ASCII)
_SIGNAL_PID = re.compile(r"Signal (\d{1,3}) \(SIG[A-Z0-9]+\) received by PID \d+", re.ASCII)
_SRUN = re.compile(r"srun: error: [^\s:]+: tasks? (\d{1,6})[\d,\-\[\]]*: (.+)", re.ASCII)
_SRUN_CODE = re.compile(r"Exited with exit code (\d{1,3})", re.ASCII)
_SRUN_SIGNALS = {
    "Killed": 9,
    "Segmentation fault": 11,
    "Aborted": 6,
    "Bus error": 7,
    "Terminated": 15,
    "Floating point exception": 8,
    "Illegal instruction": 4,
    "Out Of Memory": 9,  # the cgroup's OOM killer ended the task
}
_MPIRUN = re.compile(
    r"(?:mpirun|mpiexec|orterun|prterun) noticed that process rank (\d{1,6}) with PID \d+ "
    r"on node \S+ exited on signal (\d{1,3})",
    re.ASCII,
)
_SPAWN = re.compile(
    r"process (\d{1,6}) terminated with (?:signal (SIG[A-Z0-9]+)|exit code (-?\d{1,4}))",
    re.ASCII,
)
_SIGNAL_NUMBERS = {name: number for number, (name, _) in SIGNALS.items()}
_PALS = re.compile(r"(?:^|: )rank (\d{1,6}) died from signal (\d{1,3})", re.ASCII)
_MPI_NAME = re.compile(r" *Process name: +\[\[\d+,\d+\],(\d{1,6})\]", re.ASCII)
_MPI_EXIT = re.compile(r" *Exit code: +(\d{1,3})$", re.ASCII)
_DEEPSPEED = re.compile(
    r"\[launch\.py:\d+:sigkill_handler\] .*exits with return code = (-?\d{1,4})", re.ASCII
)
# bash's names of the signals that end a job (its siglist is strsignal's), with or without the
# core dump note, and zsh's lower-case ones.
_SHELL_SIGNALS = {
    "Killed": 9,
    "Segmentation fault": 11,
    "Aborted": 6,
    "Bus error": 7,
    "Illegal instruction": 4,
    "Floating point exception": 8,
    "killed": 9,
    "segmentation fault": 11,
    "abort": 6,
    "bus error": 7,
    "illegal hardware instruction": 4,
    "floating point exception": 8,
}
_SHELL_NAME = "|".join(sorted(map(re.escape, _SHELL_SIGNALS), key=len, reverse=True))
_SHELL = re.compile(
    # Alone (a paste's wrappers are already off), or closing a progress bar it cut short.
    rf"(?:^|\]|\|)(?P<alone>{_SHELL_NAME})(?: \(core dumped\))?$"
    # bash's job report from a script: `./train.sh: line 12: 4242 Killed   python train.py`.
    rf"|: line \d+: +\d+ (?P<job>{_SHELL_NAME})(?: \(core dumped\))?(?:  |$)"
    # zsh: `zsh: killed     python train.py`, `[1]  4242 segmentation fault (core dumped)  ...`.
    rf"|^(?:zsh: |\[\d+\] +\d+ |\d+ )(?P<zsh>{_SHELL_NAME})(?: \(core dumped\))?(?:  |$)",
    re.ASCII,
)
_IDE_EXIT = re.compile(
    r"Process finished with exit code (-?\d{1,10})"
    # `\dx`, not `0x`: every expression here treats the ten digits alike (see below).
    r"(?: \((?:interrupted by signal (\d{1,3}): SIG[A-Z]+|\dx([0-9A-Fa-f]{1,8}))\))?",
    re.ASCII,
)
# The NTSTATUS codes of Windows' own process faults, as the POSIX signal each corresponds to.
_NTSTATUS_SIGNALS = {0xC0000005: 11, 0xC000001D: 4, 0xC0000094: 8}


def _signal_of(code: int) -> int | None:
    return -code if code < 0 else None


def read_launch(body: str) -> LaunchReport | None:
    """The launcher report in one line (its wrappers and rank prefix taken off), if any."""
    m = _TORCHRUN_FAILED.search(body)
    if m is not None:
        code = int(m.group(1))
        local_rank = int(m.group(2) if m.group(2) is not None else m.group(3))
        return LaunchReport("torchrun", local_rank, True, code, _signal_of(code))
    m = _SUMMARY_RANK.match(body)
    if m is not None:
        return LaunchReport("torchrun", int(m.group(1)), False, None, None, "rank")
    m = _SUMMARY_EXIT.match(body)
    if m is not None:
        code = int(m.group(1))
        return LaunchReport("torchrun", None, False, code, _signal_of(code), "field")
    if _SUMMARY_FIELD.match(body):
        m = _SIGNAL_PID.search(body)
        sig = int(m.group(1)) if m is not None else None
        return LaunchReport("torchrun", None, False, None, sig, "field")
    stripped = body.strip()
    if _ROOT_HEADER.fullmatch(stripped):
        return LaunchReport("torchrun", None, False, None, None, "root-header")
    if _OTHER_HEADER.fullmatch(stripped):
        return LaunchReport("torchrun", None, False, None, None, "other-header")
    m = _SRUN.search(body)
    if m is not None:
        what = m.group(2)
        code_m = _SRUN_CODE.search(what)
        if code_m is not None:
            return LaunchReport("srun", int(m.group(1)), False, int(code_m.group(1)), None)
        sig = next((n for text, n in _SRUN_SIGNALS.items() if what.startswith(text)), None)
        return LaunchReport("srun", int(m.group(1)), False, None, sig)
    m = _MPIRUN.search(body)
    if m is not None:
        return LaunchReport("mpirun", int(m.group(1)), False, None, int(m.group(2)))
    m = _SPAWN.search(body)
    if m is not None:
        if m.group(2) is not None:
            number = _SIGNAL_NUMBERS.get(m.group(2))
            return LaunchReport("spawn", int(m.group(1)), True, None, number)
        code = int(m.group(3))
        return LaunchReport("spawn", int(m.group(1)), True, code, _signal_of(code))
    m = _PALS.search(body)
    if m is not None:
        return LaunchReport("mpirun", int(m.group(1)), False, None, int(m.group(2)))
    m = _MPI_NAME.match(body)
    if m is not None:
        return LaunchReport("mpirun", int(m.group(1)), False, None, None, "rank")
    m = _MPI_EXIT.match(body)
    if m is not None:
        return LaunchReport("mpirun", None, False, int(m.group(1)), None, "field")
    m = _DEEPSPEED.search(body)
    if m is not None:
        code = int(m.group(1))
        return LaunchReport("deepspeed", None, True, code, _signal_of(code))
    return read_shell(body)


def read_shell(body: str) -> LaunchReport | None:
    """The shell's (or an IDE's) report of a job that a signal or a fault ended, if the line is
    one; its rank is the line's own (None here)."""
    m = _SHELL.search(body.strip())
    if m is not None:
        name = m.group("alone") or m.group("job") or m.group("zsh")
        return LaunchReport("shell", None, False, None, _SHELL_SIGNALS[name])
    m = _IDE_EXIT.search(body)
    if m is not None:
        code = int(m.group(1))
        if m.group(2) is not None:
            sig: int | None = int(m.group(2))
        elif m.group(3) is not None:
            sig = _NTSTATUS_SIGNALS.get(int(m.group(3), 16))
        else:
            sig = code - 128 if code > 128 and code - 128 in SIGNALS else None
        return LaunchReport("shell", None, False, code, sig)
    return None


# Literals the scanner's prefilter looks for: every launcher line above holds one.
ANCHORS = (
    "local_rank: ",
    "exitcode",
    "traceback : ",
    "error_file:",
    "msg: ",
    "Root Cause",
    "Failures:",
    "received by PID",
    "srun: error: ",
    "noticed that process rank",
    "died from signal",
    " terminated with ",
    "Process name: [[",
    "Exit code:",
    "exits with return code = ",
    "Killed",
    "killed",
    "Segmentation fault",
    "segmentation fault",
    "Aborted",
    "abort",
    "Bus error",
    "bus error",
    "Illegal instruction",
    "illegal hardware instruction",
    "Floating point exception",
    "floating point exception",
    "Process finished with exit code",
)
