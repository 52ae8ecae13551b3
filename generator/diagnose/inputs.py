"""Log inputs: files, folders and stdin, decompressed while they are read.

The one module of the diagnosis engine that touches the file system. Compression is told from
the first bytes, not the name: gzip, bzip2 and xz are read as they stream; zstd, zip and
the other formats a run folder holds (checkpoints, arrays, core dumps) are named so the user
knows what to do, and skipped when a folder was given. Read failures (a truncated `.gz`, corrupt
data, an I/O error) become `LogReadError`, which the scanner turns into a problem after
diagnosing every line it did read.
"""

from __future__ import annotations

import bz2
import lzma
import os
import re
import stat
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO, Protocol, cast

from generator.diagnose.scan import LogReadError
from generator.walk import walk_files

STDIN_NAME = "<stdin>"
HEAD_BYTES = 16  # enough for every magic number below


class InputError(Exception):
    """An input that cannot be used at all: a missing path, a folder with no files."""


@dataclass(frozen=True)
class LogInput:
    name: str  # as reported: the path as given, or joined under the folder that was given
    path: str | None  # None for stdin
    explicit: bool  # named on the command line, not found by walking a folder
    size: int | None  # on disk, for progress; None when unknown


def _natural(text: str) -> list[tuple[int, int | str]]:
    """Sort key that puts rank2 before rank10."""
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text) if p]


def _walk(root: str) -> list[str]:
    found = [
        os.path.relpath(full, root)
        for full in walk_files(root, skip_hidden=True)
        if os.path.isfile(full)
    ]
    found.sort(key=lambda rel: [_natural(part) for part in rel.split(os.sep)])
    return [os.path.join(root, rel) for rel in found]


def _display(path: str) -> str:
    return path.replace(os.sep, "/")


def resolve_inputs(args: Sequence[str]) -> list[LogInput]:
    """Every log the arguments name, in order; folders are walked (hidden names skipped)."""
    inputs: list[LogInput] = []
    if list(args).count("-") > 1:
        raise InputError("-: standard input can be read only once")
    for arg in args:
        if arg == "-":
            inputs.append(LogInput(STDIN_NAME, None, True, None))
        elif os.path.isdir(arg):
            files = _walk(arg)
            if not files:
                raise InputError(f"{arg}: no files in this folder")
            inputs.extend(LogInput(_display(p), p, False, _size(p)) for p in files)
        elif os.path.exists(arg):
            inputs.append(LogInput(_display(arg), arg, True, _size(arg)))
        else:
            raise InputError(f"{arg}: no such file or directory")
    return inputs


def rereadable(log: LogInput) -> bool:
    """Whether the log can be opened again after it is read: a regular file. Standard input, a
    pipe or a FIFO gives its bytes once, and a second open of a FIFO waits for a writer forever."""
    if log.path is None:
        return False
    try:
        return stat.S_ISREG(os.stat(log.path).st_mode)
    except OSError:
        return False


def _size(path: str) -> int | None:
    try:
        return os.path.getsize(path)
    except OSError:
        return None


class _Decompressing(Protocol):
    def read1(self, size: int = -1, /) -> bytes: ...


class _Counted:
    """The raw stream, with bytes already read put back in front and a count of bytes read."""

    def __init__(self, raw: BinaryIO, head: bytes) -> None:
        self._raw = raw
        self._head = head
        self.count = len(head)

    def read(self, size: int = -1, /) -> bytes:
        if self._head:
            head, self._head = self._head, b""
            if size < 0 or size >= len(head):
                more = self._raw.read(-1 if size < 0 else size - len(head))
                self.count += len(more)
                return head + more
            self._head = head[size:]
            return head[:size]
        data = self._raw.read(size)
        self.count += len(data)
        return data


class _TrailingJunk(Exception):
    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


def trailing_junk_message(offset: int) -> str:
    """The problem for bytes after the last gzip member that are not gzip (the browser engine,
    engine.js, words it the same)."""
    return (
        f"gzip data is followed by bytes that are not gzip (from byte {offset:,}); "
        "the lines before them were diagnosed"
    )


class _GzipMembers:
    """gzip members one after another, as GzipFile reads them (zero bytes may pad a member),
    but knowing where each ends: bytes after the last one that are not gzip raise
    _TrailingJunk with their offset, once every byte of the members has been returned."""

    _BLOCK = 64 * 1024

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._read = 0  # raw bytes read
        self._input = b""  # raw bytes read and not yet given to a decompressor
        self._member: zlib._Decompress | None = None
        self._first = True

    def _more(self) -> bytes:
        data = self._raw.read(self._BLOCK)
        self._read += len(data)
        return data

    def _start_member(self) -> bool:
        """Find the next member's start; False at the end of the data."""
        while True:
            if not self._first:
                self._input = self._input.lstrip(b"\0")
            if len(self._input) >= 2:
                break
            more = self._more()
            if not more:
                break
            self._input += more
        if not self._input:
            return False
        if not self._input.startswith(b"\x1f\x8b"):
            raise _TrailingJunk(self._read - len(self._input))
        self._member = zlib.decompressobj(wbits=31)
        self._first = False
        return True

    def read1(self, size: int = -1, /) -> bytes:
        limit = max(size, 0) if size >= 0 else self._BLOCK
        while True:
            if self._member is None and not self._start_member():
                return b""
            assert self._member is not None
            if self._member.eof:
                self._input, self._member = self._member.unused_data, None
                continue
            if not self._input:
                self._input = self._more()
                if not self._input:
                    raise EOFError("compressed data ends before the end of a member")
            data = self._member.decompress(self._input, limit)
            self._input = self._member.unconsumed_tail
            if data:
                return data


class NotALog(LogReadError):
    """A file whose first bytes name a format that is not a log (a checkpoint, an archive).
    Inside a folder it is skipped with a note; named on the command line it is an error."""


# Formats that sit next to logs in a run folder, told by their first bytes (never by the
# name: a `.pt` is a zip, and so is an `.npz`). A text log cannot start with any of these:
# each holds a byte that is not printable ASCII or starts no UTF-8 character.
_NOT_LOGS = (
    (
        b"\x28\xb5\x2f\xfd",
        "is zstd-compressed; decompress it first: zstd -dc FILE | trainwreck diagnose -",
    ),
    # torch.save writes a zip since PyTorch 1.6; so do numpy.savez and most archives.
    (b"PK\x03\x04", "is a zip archive (a PyTorch .pt checkpoint is one); unzip it first"),
    (b"PK\x05\x06", "is a zip archive (empty); unzip it first"),
    (b"7z\xbc\xaf\x27\x1c", "is a 7z archive; unpack it first"),
    (b"\x93NUMPY", "is a NumPy array (.npy), not a log"),
    (b"\x89HDF\r\n\x1a\n", "is an HDF5 file (a Keras checkpoint, a dataset), not a log"),
    (b"\x7fELF", "is an ELF file (a program or a core dump), not a log"),
)


def not_a_log(head: bytes) -> str | None:
    """Why a file that starts with `head` (16 bytes or fewer) is not a log, or None."""
    for magic, message in _NOT_LOGS:
        if head.startswith(magic):
            return message
    # safetensors: an 8-byte little-endian header length, then the JSON header. Text never
    # has four zero bytes at 4..7, which a header under 4 GiB has.
    if len(head) >= 10 and head[4:8] == b"\0\0\0\0" and head[8:10] in (b'{"', b"{}"):
        return "is a safetensors file (model weights), not a log"
    # A pickle from protocol 2 on (torch.save before 1.6, joblib) starts with PROTO n; 0x80
    # starts no UTF-8 character.
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return "is a Python pickle (an older PyTorch checkpoint or a saved object), not a log"
    return None


class OpenLog:
    """A log opened for streaming: `read(n)` gives decompressed bytes or raises LogReadError."""

    def __init__(self, log: LogInput, stdin: BinaryIO | None = None) -> None:
        self.log = log
        self._own: BinaryIO | None = None
        if log.path is None:
            if stdin is None:
                raise LogReadError("standard input is closed")
            raw = stdin
        else:
            try:
                raw = self._own = open(log.path, "rb")  # noqa: SIM115 - closed in close()
            except OSError as exc:
                raise LogReadError(exc.strerror or str(exc)) from None
        try:
            head = _read_head(raw, HEAD_BYTES)
        except OSError as exc:
            self.close()
            raise LogReadError(exc.strerror or str(exc)) from None
        why = not_a_log(head)
        if why is not None:
            self.close()
            raise NotALog(why)
        self._counted = _Counted(raw, head)
        self._failure: LogReadError | None = None
        self.kind = "plain"
        self._stream: _Decompressing | None = None
        fileobj = cast(BinaryIO, self._counted)
        if head.startswith(b"\x1f\x8b"):
            self.kind, self._stream = "gzip", _GzipMembers(fileobj)
        elif head.startswith(b"BZh") and head[3:4].isdigit():
            self.kind, self._stream = "bzip2", bz2.BZ2File(fileobj)
        elif head.startswith(b"\xfd7zXZ\x00"):
            self.kind, self._stream = "xz", lzma.LZMAFile(fileobj)  # noqa: SIM115

    def read(self, size: int) -> bytes:
        """Up to `size` bytes; b"" at the end. A failure is raised only once the bytes
        decompressed before it have been returned, so nothing that was read is lost."""
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        if self._stream is None:
            try:
                return self._counted.read(size)
            except OSError as exc:
                raise LogReadError(f"read error: {exc.strerror or exc}") from None
        parts: list[bytes] = []
        got = 0
        while got < size:
            try:
                data = self._stream.read1(size - got)
            except EOFError:
                self._failure = LogReadError(
                    f"{self.kind} data ends early (a truncated file); "
                    "the lines before the cut were diagnosed"
                )
                break
            except _TrailingJunk as exc:
                self._failure = LogReadError(trailing_junk_message(exc.offset))
                break
            except (OSError, zlib.error, lzma.LZMAError) as exc:
                self._failure = LogReadError(f"{self.kind} data is corrupt ({exc})")
                break
            if not data:
                break
            parts.append(data)
            got += len(data)
        if not parts and self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        return b"".join(parts)

    def position(self) -> int:
        """Raw (compressed) bytes read so far, for progress."""
        return self._counted.count

    def close(self) -> None:
        if self._own is not None:
            self._own.close()
            self._own = None

    def __enter__(self) -> OpenLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_head(raw: BinaryIO, size: int) -> bytes:
    head = b""
    while len(head) < size:
        more = raw.read(size - len(head))
        if not more:
            break
        head += more
    return head
