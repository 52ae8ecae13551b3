"""A log's lines around some line numbers, read again once the scan has said which matter.

The scan keeps no text but the lines it reports; what surrounds them (the lines an entry's
draft quotes, the frames above an error) is read in a second pass over the same log, as the
browser's `contextOf` reads the file again. Lines are numbered as the scanner numbers them (LF
counts), and memory stays bounded whatever the log holds: only the wanted lines are kept, each
cut at `max_bytes`, and reading stops after the last of them. A log that can be read only
once keeps its last MiB for this (Tail).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable

Read = Callable[[int], bytes]
BLOCK_BYTES = 1 << 20
# What a log read once (standard input) keeps of its end for a second look: a few hundred lines
# of traceback, with room to spare.
TAIL_BYTES = 1 << 20
# What a log keeps of its end when nothing reads it twice: the line it ends with.
END_BYTES = 64 << 10
LAST_LINE_BYTES = 2048


def wanted_lines(numbers: Iterable[int], before: int, after: int) -> set[int]:
    return {k for n in numbers for k in range(max(1, n - before), n + after + 1)}


def read_lines(read: Read, wanted: set[int], max_bytes: int = 4096) -> dict[int, bytes]:
    """The raw bytes of each wanted line (without its LF), cut at `max_bytes`."""
    found: dict[int, bytearray] = {}
    if not wanted:
        return {}
    last = max(wanted)
    line = 1
    while line <= last:
        block = read(BLOCK_BYTES)
        if not block:
            break
        at = 0
        while True:
            lf = block.find(b"\n", at)
            end = len(block) if lf < 0 else lf
            if line in wanted:
                kept = found.setdefault(line, bytearray())
                kept += block[at : min(end, at + max_bytes - len(kept))]
            if lf < 0:
                break
            line += 1
            at = lf + 1
            if line > last:
                break
    return {n: bytes(b) for n, b in found.items()}


_CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")


def decoded(raw: bytes) -> str:
    """A line read again, as the scanner reads it: colour codes removed, UTF-8 with U+FFFD,
    and of a line a carriage return redrew, what is left on the screen."""
    text = _CSI.sub(b"", raw).decode("utf-8", "replace")
    parts = [part for part in text.split("\r") if part]
    return parts[-1] if parts else ""


class Tail:
    """A read that keeps the last `keep` bytes it returned: what a log still has to give once
    it has been scanned, the line it ends with (every log), and the lines before an error when
    it cannot be read again (standard input). A line longer than `keep` is kept cut."""

    def __init__(self, read: Read, keep: int = TAIL_BYTES) -> None:
        self._read = read
        self._keep = keep
        self.kept = bytearray()
        self.first_line = 1  # the number of the line `kept` starts in
        self.size = 0  # bytes read in all

    def read(self, size: int) -> bytes:
        data = self._read(size)
        self.size += len(data)
        if len(data) >= self._keep:
            cut = len(data) - self._keep
            self.first_line += self.kept.count(b"\n") + data.count(b"\n", 0, cut)
            self.kept = bytearray(data[cut:])
        else:
            self.kept += data
            if len(self.kept) > 2 * self._keep:
                cut = len(self.kept) - self._keep
                self.first_line += self.kept.count(b"\n", 0, cut)
                del self.kept[:cut]
        return data

    def lines(self, wanted: set[int], max_bytes: int = 4096) -> dict[int, bytes]:
        """`read_lines` of the kept bytes, numbered as in the whole log."""
        shift = self.first_line - 1
        found = read_lines(
            io.BytesIO(bytes(self.kept)).read, {n - shift for n in wanted if n > shift}, max_bytes
        )
        return {n + shift: raw for n, raw in found.items()}

    def last_line(self) -> tuple[int, int, str] | None:
        """The log's last line with text in it, decoded as the scanner reads it: its number,
        its offset in the log, and its text; None when the kept end holds none."""
        kept = bytes(self.kept)
        end = len(kept)
        number = self.first_line + kept.count(b"\n")
        while end >= 0:
            start = kept.rfind(b"\n", 0, end) + 1
            text = decoded(kept[start : min(end, start + LAST_LINE_BYTES)])
            if text.strip():
                return number, self.size - len(kept) + start, text
            end, number = start - 1, number - 1
        return None
