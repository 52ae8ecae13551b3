"""Pastes as people make them: the wrappers around a log line, taken off before it is read.

A log reaches us quoted in an issue (`> `), bolded (`**...**`, taken off when the bold
opens the line), copied from a viewer with a line-number gutter (`[1824] `), from
`docker compose logs` (`trainer-1  | `), `pdsh` (`node7: `), `kubectl logs --prefix`
(`[pod/train-worker-3/pytorch] `), or with a timestamp that a collector put before torchrun's
`[rank3]:` prefix. `unwrap` removes those wrappers from
the start (and bold from the end) of one line, so that the rank prefix, the time and the
launcher lines are read as if the log had not been wrapped, and reports show the line as the
software printed it. Signatures match anywhere in a line, so wrappers never stop a match; they
only hid the rank and the time.

Both engines run this same step (templates/static/javascripts/engine/paste.js ports it rule for
rule). Each rule is anchored at the start of the line and tried at most a few times, so the cost
of a line stays fixed. The rules are conservative where a real log line could look like a
wrapper: a pdsh host must be lower case and hold a digit (`node7`, `gpu-a100-03`), so that
`RuntimeError: ...` or `error: ...` are never taken for one; bold is taken off only when it
touches a word (`**RuntimeError`, never glog's `*** SIGSEGV`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# How many wrappers one line may carry (a quoted compose log with bold is three).
MAX_WRAPPERS = 6

_QUOTE = re.compile(r" {0,3}>(?: ?>)* ?", re.ASCII)
_GUTTER = re.compile(r"\[\d{1,7}\] ", re.ASCII)
_COMPOSE = re.compile(r"([A-Za-z0-9][\w.-]*) +\| ", re.ASCII)
_KUBECTL = re.compile(r"\[pod/([A-Za-z0-9][\w.-]*)/[\w.-]+\] ", re.ASCII)
_PDSH = re.compile(r"([a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*): ", re.ASCII)
_LEAD_TIME = re.compile(
    r"\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)\]?:? +"
    r"(?=\[(?:rank|default)\d{1,6}\]:|\[\d{1,9},\d{1,6}\]<std(?:out|err)>:)",
    re.ASCII,
)
_BOLD_OPEN = re.compile(r"\*\*(?=[^\s*])", re.ASCII)
_BOLD_CLOSE = re.compile(r"(?<!\*)\*\*\s*$", re.ASCII)
# A pod of a StatefulSet (`train-3`) or an indexed Job (`train-3-x7k2p`) ends in its index.
_POD_INDEX = re.compile(r".*?-(\d{1,6})(?:-[a-z0-9]{5})?", re.ASCII)


@dataclass(frozen=True)
class Unwrapped:
    text: str  # the line with its wrappers taken off
    host: str | None  # from a pdsh prefix
    rank: int | None  # from a Kubernetes pod name that ends in an index
    time_text: str | None  # a timestamp that stood before the rank prefix


Span = tuple[int, int]


@dataclass(frozen=True)
class WrapperSpans:
    """Where `unwrap`'s results lie in the line it read: the line without its wrappers is
    `line[start:end]`, and each of the others is a (start, end) slice of the line, or None.

    Every rule here treats the ten digits alike (each is matched by a digit class, never
    written out), so two lines that differ only in their digits have the same spans:
    lineinfo.py reads a storm's lines, which differ in their numbers, by one plan."""

    start: int
    end: int
    host: Span | None  # a pdsh prefix's host
    rank: Span | None  # the index a Kubernetes pod name ends in
    time: Span | None  # a timestamp that stood before the rank prefix


def wrapper_spans(text: str) -> WrapperSpans:
    """The wrappers a paste put around the line, as places in it (see `unwrap`)."""
    host: Span | None = None
    rank: Span | None = None
    lead: Span | None = None
    bold = False
    base = 0  # where `text`, the line as unwrapped so far, starts in the line
    if text.endswith("\r"):
        text = text.rstrip("\r")
    for _ in range(MAX_WRAPPERS):
        if not text:
            break
        first = text[0]
        m: re.Match[str] | None = None
        if first in " >":
            m = _QUOTE.match(text)
            if m is not None and ">" not in m.group(0):
                m = None
        elif first == "[":
            m = _GUTTER.match(text)
            if m is None:
                m = _KUBECTL.match(text)
                if m is not None:
                    pod = _POD_INDEX.fullmatch(m.group(1))
                    if pod is not None:
                        at = base + m.start(1)
                        rank = (at + pod.start(1), at + pod.end(1))
            if m is None:
                m = _LEAD_TIME.match(text)
                if m is not None:
                    lead = (base + m.start(1), base + m.end(1))
        elif first == "*":
            m = _BOLD_OPEN.match(text)
            bold = bold or m is not None
        elif first.isdigit():
            m = _LEAD_TIME.match(text)
            if m is not None:
                lead = (base + m.start(1), base + m.end(1))
        if m is None and (first.isalnum()):
            m = _COMPOSE.match(text)
            if m is None:
                m = _PDSH.match(text)
                if m is not None and (
                    m.group(1).isdigit() or not any(c.isdigit() for c in m.group(1))
                ):
                    m = None  # srun's `3: ` label, or a word such as `error: `
                elif m is not None:
                    host = (base + m.start(1), base + m.end(1))
        if m is None or not m.end():
            break
        base += m.end()
        text = text[m.end() :]
    if bold:
        close = _BOLD_CLOSE.search(text)
        if close is not None:
            text = text[: close.start()]
    return WrapperSpans(base, base + len(text), host, rank, lead)


def unwrap(text: str) -> Unwrapped:
    """The line without the wrappers a paste put around it, and what those wrappers said."""
    spans = wrapper_spans(text)
    host, rank, lead = spans.host, spans.rank, spans.time
    return Unwrapped(
        text[spans.start : spans.end],
        text[host[0] : host[1]] if host is not None else None,
        int(text[rank[0] : rank[1]]) if rank is not None else None,
        text[lead[0] : lead[1]] if lead is not None else None,
    )
