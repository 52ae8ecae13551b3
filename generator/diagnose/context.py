"""A log's lines around some line numbers, read again once the scan has said which matter.

The scan keeps no text but the lines it reports; what surrounds them (the lines an entry's
draft quotes, the frames above an error) is read in a second pass over the same log, as the
browser's `contextOf` reads the file again. Lines are numbered as the scanner numbers them (LF
counts), and memory stays bounded whatever the log holds: only the wanted lines are kept, each
cut at `max_bytes`, and reading stops after the last of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

Read = Callable[[int], bytes]
BLOCK_BYTES = 1 << 20


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
