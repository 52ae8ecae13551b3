"""The stack dumps people take of a hung job, read per rank: where each rank's main thread
waits, and the ranks that are not where the others are.

Two dump formats (docs/progress.md gives their sources):

- Python's faulthandler (`faulthandler.dump_traceback_later`, `PYTHONFAULTHANDLER` and a
  signal): `Thread 0x00007f... (most recent call first):` or `Current thread 0x...`, then
  `  File "path", line N in function` lines, innermost first;
- py-spy `dump`: `Thread 12345 (idle): "MainThread"`, then `    function (path:line)` lines.

A rank's main thread is py-spy's `MainThread`, or faulthandler's thread whose outermost frame
is `<module>`. Where it waits is its innermost frame outside the standard library (a
`select()` or a lock's `wait()` says nothing). A rank waits in a collective when that frame is
one of torch.distributed's collectives. When some ranks wait in a collective and others are
elsewhere (a DataLoader, a file write), the others are the odd ones out: the collective waits
for them. When all wait in collectives, but not the same one, the smaller group is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

STACK_HINTS = (b"most recent call first", b"Thread ")
MAX_FRAMES = 64
MAX_THREADS = 16  # per rank
MAX_RANKS = 1024

_FAULTHANDLER_THREAD = re.compile(
    r"(?:Current thread|Thread) 0x[0-9a-fA-F]+ (?:\[[^\]]*\] )?\(most recent call first\):"
    r"|Stack \(most recent call first\):",
    re.ASCII,
)
_FAULTHANDLER_FRAME = re.compile(r'File "([^"]+)", line (\d+) in (\S+)', re.ASCII)
_PYSPY_THREAD = re.compile(
    r'Thread (?:0x[0-9A-Fa-f]+|\d+)(?: \([a-z+]+\))?(?:: "([^"]*)")?', re.ASCII
)
_PYSPY_FRAME = re.compile(r"(\S.*?) \(([^()]+?)(?::(\d+))?\)", re.ASCII)
_STDLIB_DIR = re.compile(r"/lib/python\d\.\d+/", re.ASCII)
# Standard-library modules a waiting thread is usually inside, as py-spy names their files.
_STDLIB = frozenset(
    [
        "threading",
        "selectors",
        "multiprocessing",
        "queue",
        "socket",
        "subprocess",
        "concurrent",
        "asyncio",
        "contextlib",
        "functools",
        "ssl",
        "signal",
        "time",
        "runpy",
    ]
)
COLLECTIVES = frozenset(
    [
        "all_reduce",
        "barrier",
        "broadcast",
        "all_gather",
        "all_gather_into_tensor",
        "all_gather_object",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "all_to_all",
        "all_to_all_single",
        "reduce",
        "gather",
        "scatter",
        "send",
        "recv",
        "monitored_barrier",
        "broadcast_object_list",
        "wait",
    ]
)


@dataclass(frozen=True)
class Frame:
    function: str
    path: str
    line: int  # of the log, where the frame is printed
    offset: int
    text: str


@dataclass
class Thread:
    name: str | None  # py-spy's thread name; None from faulthandler
    frames: list[Frame] = field(default_factory=list)  # innermost first


@dataclass
class Stacks:
    """The threads each rank's dumps show, in the order they were printed."""

    threads: dict[int, list[Thread]] = field(default_factory=dict)
    open: dict[int, Thread] = field(default_factory=dict)  # a thread whose frames come next

    def read(self, rank: int | None, body: str, number: int, offset: int, text: str) -> bool:
        """Take a line (its text after the rank prefix); whether it belongs to a dump."""
        if rank is None:
            return False
        body = body.strip()
        thread = self.open.get(rank)
        if thread is not None:
            frame = _frame(body, number, offset, text)
            if frame is not None:
                if len(thread.frames) < MAX_FRAMES:
                    thread.frames.append(frame)
                return True
            del self.open[rank]
        header = _FAULTHANDLER_THREAD.fullmatch(body) or _PYSPY_THREAD.fullmatch(body)
        if header is None:
            return False
        threads = self.threads.get(rank)
        if threads is None:
            if len(self.threads) >= MAX_RANKS:
                return True
            threads = self.threads[rank] = []
        if len(threads) < MAX_THREADS:
            name = header.group(1) if header.re is _PYSPY_THREAD else None
            self.open[rank] = Thread(name)
            threads.append(self.open[rank])
        return True

    @property
    def active(self) -> bool:
        return bool(self.open)


def _frame(body: str, number: int, offset: int, text: str) -> Frame | None:
    m = _FAULTHANDLER_FRAME.fullmatch(body)
    if m is not None:
        return Frame(m.group(3), m.group(1), number, offset, text)
    m = _PYSPY_FRAME.fullmatch(body)
    if m is not None and m.group(3) is not None:
        return Frame(m.group(1), m.group(2), number, offset, text)
    return None


def _module_path(path: str) -> str | None:
    """The frame's file below site-packages (or as py-spy shortens it); None for the
    standard library."""
    for folder in ("site-packages/", "dist-packages/"):
        at = path.rfind(folder)
        if at >= 0:
            return path[at + len(folder) :]
    if _STDLIB_DIR.search(path):
        return None
    head = path.split("/")[0].removesuffix(".py")
    return None if head in _STDLIB else path


def main_thread(threads: list[Thread]) -> Thread | None:
    for t in threads:
        if t.name == "MainThread":
            return t
    for t in threads:
        if t.name is None and t.frames and t.frames[-1].function == "<module>":
            return t
    return None


@dataclass(frozen=True)
class Where:
    """Where a rank's main thread waits: its innermost frame outside the standard library."""

    function: str
    path: str
    frame: Frame

    @property
    def collective(self) -> bool:
        short = self.function.rsplit(".", 1)[-1]
        return self.path.startswith("torch/distributed/") and short in COLLECTIVES

    @property
    def key(self) -> str:
        return f"{self.function} ({self.path})"


def where_of(thread: Thread) -> Where | None:
    for frame in thread.frames:
        path = _module_path(frame.path)
        if path is not None:
            return Where(frame.function, path, frame)
    return None


def odd_ones_out(stacks: dict[int, Where]) -> tuple[list[int], dict[str, list[int]]]:
    """The ranks the others wait for, and every rank grouped by where it waits."""
    groups: dict[str, list[int]] = {}
    for rank in sorted(stacks):
        groups.setdefault(stacks[rank].key, []).append(rank)
    waiting = [r for r in sorted(stacks) if stacks[r].collective]
    elsewhere = [r for r in sorted(stacks) if not stacks[r].collective]
    if waiting and elsewhere:
        return elsewhere, groups
    if len(groups) >= 2 and not elsewhere:
        sizes = sorted(len(g) for g in groups.values())
        if sizes[0] < sizes[1]:
            return next(g for g in groups.values() if len(g) == sizes[0]), groups
    return [], groups
