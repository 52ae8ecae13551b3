"""The culprit of a Python error: which installed package raised it, which line of the user's
own code called into it, the names its message gives, and the versions the log prints.

Read from the lines before the error line, once the diagnosis has chosen that line (context.py
reads them again from the log), so the scan keeps no traceback in memory:

- the frames are those of the last `Traceback (most recent call last):` of the error line's own
  stream (its rank prefix) before it, or, in a traceback pasted as one line, those of that line;
- the package is the top folder under `site-packages` or `dist-packages` of the deepest frame
  after the user's last one, else the module the message names (`No module named 'mmcv.runner'`
  names mmcv, `cannot import name 'x' from 'trl'` names trl) or the folder of the library file it
  names;
- the caller is the last frame outside those folders and outside Python's own library;
- names: the argument, attribute, module, name, key, path or symbol the message quotes;
- versions: what `pkg==1.2.3` and `pkg version 1.2.3` say in the lines read.

Pure functions of the lines; the browser engine's culprit.js is a port, kept equal by the
parity tests.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from generator.diagnose.evidence import TRACEBACK, body_of
from generator.diagnose.lineinfo import read_line_body

# How far back the lines are read, at most: a traceback of a deep model is 100-200 lines.
LINES_BEFORE = 400
LINE_BYTES = 2048
MAX_VERSIONS = 8

_FRAME = re.compile(r'File "([^"\n]{1,1000})", line (\d{1,9}), in ([\w<>.]{1,200})', re.ASCII)
_LIBRARY = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z0-9_.\-]{1,200})", re.ASCII)
# Python's own library: lib/python3.11/x.py (not under site-packages), Lib\x.py, <frozen ...>.
_STDLIB = re.compile(r"[/\\]lib[/\\]python\d\.\d{1,2}[/\\]|[/\\]Lib[/\\]|^<", re.ASCII)
_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.ASCII))
    for kind, pattern in (
        ("callable", r"([A-Za-z_][\w.]{0,200})\(\) (?:got an unexpected|missing \d|takes )"),
        ("argument", r"got an unexpected keyword argument '(\w{1,200})'"),
        ("argument", r"required (?:positional|keyword-only) arguments?: '(\w{1,200})'"),
        ("object", r"'(\w{1,200})' object (?:has no attribute|is not)"),
        ("module", r"module '([\w.]{1,200})' has no attribute"),
        ("attribute", r"has no attribute '(\w{1,200})'"),
        ("name", r"cannot import name '(\w{1,200})'"),
        ("module", r"cannot import name '\w{1,200}' from '([\w.]{1,200})'"),
        ("module", r"No module named '?([\w.]{1,200})"),
        ("name", r"name '(\w{1,200})' is not defined"),
        ("key", r"(?:Key|Missing key) '?([\w.]{1,200})"),
        ("key", r"KeyError: '([^'\n]{1,200})'"),
        ("path", r"No such file or directory: '([^'\n]{1,1000})'"),
        ("path", r"can't open file '([^'\n]{1,1000})'"),
        ("library", r"([^\s:'`]{1,1000}\.so[\w.]{0,20}): undefined symbol"),
        ("symbol", r"undefined symbol: +(\S{1,1000})"),
    )
)  # fmt: skip
# `torch==2.1.0` (pip, requirement errors), `PyTorch version: 2.1.0` and `DeepSpeed version 0.14`
# (environment dumps, banners), `transformers, version 4.46` (click's --version).
_VERSION = re.compile(
    r"(?<![\w.\-])([A-Za-z][A-Za-z0-9_.\-]{0,100}?)(?:==| version:? |, version )"
    r"v?(\d{1,4}\.\d{1,4}(?:\.[0-9A-Za-z]{1,20}){0,3})(?!\w|\.\w)",
    re.ASCII,
)


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str


@dataclass(frozen=True)
class Culprit:
    package: str | None  # the installed package that raised the error
    raised_in: Frame | None  # the package's deepest frame
    called_from: Frame | None  # the user's own last frame
    names: tuple[tuple[str, str], ...]  # (kind, value) the message quotes
    versions: tuple[tuple[str, str], ...]  # (package, version) the lines read print


def _stream_body(line: str) -> tuple[int | None, str]:
    info, rest = read_line_body(line)
    return info.prefix_rank, body_of(rest)


def _package(path: str) -> str | None:
    m = _LIBRARY.search(path)
    if m is None:
        return None
    top = m.group(1)
    return top[:-3] if top.endswith(".py") else top


def frames_of(text: str) -> list[Frame]:
    return [Frame(m.group(1), int(m.group(2)), m.group(3)) for m in _FRAME.finditer(text)]


def traceback_frames(error: str, before: Sequence[str]) -> list[Frame]:
    """The frames of the error's traceback: those of the error line itself (a traceback pasted
    as one line), else those between its stream's last `Traceback` line and the error."""
    stream, body = _stream_body(error)
    own = frames_of(body)
    if own:
        return own
    frames: list[Frame] = []
    for line in reversed(before):
        rank, text = _stream_body(line)
        if rank != stream:
            continue
        if text.lstrip().startswith(TRACEBACK):
            return frames
        frames[:0] = frames_of(text)
    return frames


def _named_package(names: Sequence[tuple[str, str]]) -> str | None:
    """The package the message names: a module's top part, or the folder of a library file
    under site-packages (`.../dist-packages/mmcv/_ext.so: undefined symbol` names mmcv)."""
    for kind, value in names:
        if kind == "module":
            return value.split(".")[0]
        if kind == "library" and _package(value) is not None:
            return _package(value)
    return None


def names_of(message: str) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    for kind, pattern in _NAMES:
        m = pattern.search(message)
        if m is not None and (kind, m.group(1)) not in found:
            found.append((kind, m.group(1)))
    return tuple(found)


def versions_of(lines: Sequence[str]) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for line in lines:
        for m in _VERSION.finditer(line):
            name = m.group(1).rstrip(".-_")
            if name.lower() in found:
                continue
            found[name.lower()] = m.group(2)
            if len(found) == MAX_VERSIONS:
                return tuple(found.items())
    return tuple(found.items())


def culprit_of(error: str, before: Sequence[str]) -> Culprit | None:
    """The culprit of the error line `error` (as the log has it), from the lines `before` it
    (nearest last); None when nothing is known of it."""
    _, body = _stream_body(error)
    frames = traceback_frames(error, before)
    own = [
        i for i, f in enumerate(frames) if _package(f.path) is None and not _STDLIB.search(f.path)
    ]
    called_from = frames[own[-1]] if own else None
    after = frames[own[-1] + 1 :] if own else frames
    library = [f for f in after if _package(f.path) is not None]
    raised_in = library[-1] if library else None
    names = names_of(body)
    package = _package(raised_in.path) if raised_in is not None else _named_package(names)
    versions = versions_of([*before[-LINES_BEFORE:], error])
    if package is None and called_from is None and not names:
        return None
    return Culprit(package, raised_in, called_from, names, versions)
