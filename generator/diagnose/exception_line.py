"""The exception line that a reported line stands for.

A signature or an evidence rule can first meet a failure's message where it is not the error
line a reader looks for: in a traceback's source line (`raise Exception('CUDA SETUP: Setup
Failed!')`), or in the message alone, pasted by a person above the traceback that states it
(`'NoneType' object has no attribute 'peft_config'`). When the same stream goes on, within
`LOOK_AHEAD` lines, to the line that raises it with its type (`Exception: CUDA SETUP: Setup
Failed!`, `AttributeError: 'NoneType' object has no attribute 'peft_config'`), the report shows
that line instead: same finding, same rank, the line that states the error. The lines after
the reported one are read again, as the culprit's lines before it are (engine.with_culprit).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from generator.diagnose.context import decoded
from generator.diagnose.evidence import body_of
from generator.diagnose.lineinfo import HEAD_CHARS, read_line_body
from generator.diagnose.paste import unwrap
from generator.diagnose.triage import TEXT_CHARS, Diagnosis

LOOK_AHEAD = 64
LINE_BYTES = 4096
MIN_MESSAGE = 16  # a shorter bare line ("Killed", "failed") is too common to stand for one
_RAISE_MESSAGE = re.compile(r"raise\s+[\w.]+\(\s*[rbu]?(['\"])(.{8,}?)\1", re.ASCII)
# `Exception: ...`, `AttributeError: ...`, `torch.OutOfMemoryError: ...`, `SystemExit: ...`
_TYPED = re.compile(
    r"(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Exit|Interrupt|Fault)\w*: (.+)", re.ASCII
)

_TYPED_IN = re.compile(r"(?:Error|Exception|Exit|Interrupt|Fault)\w*: ", re.ASCII)

Reread = Callable[[set[int], int], Mapping[int, bytes]]


def message_of(body: str) -> str | None:
    """The message a line holds when it is not yet the typed exception line: the constant a
    `raise` line raises, or the line itself; None for a typed line or a short one."""
    text = body.strip()
    m = _RAISE_MESSAGE.match(text)
    if m is not None:
        return m.group(2)
    if _TYPED_IN.search(text) or len(text) < MIN_MESSAGE or text.startswith("raise "):
        return None  # already typed, as a logger prints it too (`... ERROR RuntimeError: ...`)
    return text


def _message_of_line(text: str) -> tuple[int | None, str | None]:
    """A whole line's rank prefix and the message_of its own text."""
    info, rest = read_line_body(text[:HEAD_CHARS])
    return info.prefix_rank, message_of(body_of(rest) + text[HEAD_CHARS:])


def exception_line_after(text: str, after: Mapping[int, str]) -> tuple[int, str] | None:
    """The first of the lines `after` (number -> text, decoded) in the stream of the line
    `text` that raises its message with a type: (number, text), or None."""
    rank, message = _message_of_line(text)
    if message is None:
        return None
    for number in sorted(after):
        line = after[number]
        other, other_rest = read_line_body(line[:HEAD_CHARS])
        if other.prefix_rank != rank:
            continue
        typed = _TYPED.fullmatch((body_of(other_rest) + line[HEAD_CHARS:]).strip())
        if typed is not None and message in typed.group(1):
            return number, line
    return None


def with_exception_line(diagnosis: Diagnosis, reread: Callable[[int], Reread | None]) -> Diagnosis:
    """The diagnosis with the line it puts first replaced by the exception line it stands for,
    where one follows; `reread(file_index)` reads lines of a log again, or is None."""
    hit = diagnosis.explained
    if hit is None or _message_of_line(hit.text)[1] is None:
        return diagnosis
    lines_of = reread(hit.file_index)
    if lines_of is None:
        return diagnosis
    wanted = set(range(hit.line + 1, hit.line + LOOK_AHEAD + 1))
    after = {n: decoded(raw) for n, raw in lines_of(wanted, LINE_BYTES).items()}
    found = exception_line_after(hit.text, after)
    if found is None:
        return diagnosis
    number, line = found
    shown = unwrap(line).text
    better = replace(hit, line=number, text=shown[:TEXT_CHARS], cut=max(len(shown) - TEXT_CHARS, 0))
    findings = tuple(replace(f, first=better) if f.first is hit else f for f in diagnosis.findings)
    unrecognized = tuple(
        replace(u, hit=better) if u.hit is hit else u for u in diagnosis.unrecognized
    )
    first = better if diagnosis.first_failure is hit else diagnosis.first_failure
    return replace(diagnosis, findings=findings, unrecognized=unrecognized, first_failure=first)
