"""Inputs: folders walked in natural order, compression told by content, read failures kept."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from pathlib import Path

import pytest

from generator.diagnose.inputs import (
    HEAD_BYTES,
    InputError,
    LogInput,
    OpenLog,
    not_a_log,
    resolve_inputs,
)
from generator.diagnose.scan import LogReadError

TEXT = b"".join(b"line %d\n" % i for i in range(20000))


def test_folders_are_walked_in_natural_order_without_hidden_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("rank10.log", "rank2.log", "node1/rank1.log", ".hidden.log", ".git/x.log"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    monkeypatch.chdir(tmp_path)
    assert [(i.name, i.explicit) for i in resolve_inputs([".", "rank2.log", "-"])] == [
        ("./node1/rank1.log", False),
        ("./rank2.log", False),
        ("./rank10.log", False),
        ("rank2.log", True),
        ("<stdin>", True),
    ]


def read_all(log: OpenLog) -> bytes:
    parts = []
    while data := log.read(4096):
        parts.append(data)
    return b"".join(parts)


@pytest.mark.parametrize(
    ("kind", "pack"),
    [
        ("plain", lambda b: b),
        ("gzip", gzip.compress),
        ("bzip2", bz2.compress),
        ("xz", lzma.compress),
    ],
)
def test_compression_is_told_by_content_not_name(kind: str, pack, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "log.txt"
    path.write_bytes(pack(TEXT))
    with OpenLog(LogInput("log.txt", str(path), True, None)) as log:
        assert (log.kind, read_all(log)) == (kind, TEXT)
        assert log.position() == path.stat().st_size


@pytest.mark.parametrize(
    ("pack", "message"),
    [
        (
            gzip.compress,
            "gzip data ends early (a truncated file); the lines before the cut were diagnosed",
        ),
        (
            # bzip2 works in blocks (100 kB at level 1): only whole blocks come back.
            lambda b: bz2.compress(b, 1),
            "bzip2 data ends early (a truncated file); the lines before the cut were diagnosed",
        ),
        (
            lzma.compress,
            "xz data ends early (a truncated file); the lines before the cut were diagnosed",
        ),
    ],
)
def test_truncated_archives_give_back_what_they_hold_then_fail(pack, message: str) -> None:  # type: ignore[no-untyped-def]
    packed = pack(TEXT)
    stdin = io.BytesIO(packed[: len(packed) * 9 // 10])
    log = OpenLog(LogInput("<stdin>", None, True, None), stdin)
    got = b""
    with pytest.raises(LogReadError) as caught:
        while data := log.read(1 << 20):
            got += data
    assert str(caught.value) == message
    assert len(got) > 0 and TEXT.startswith(got)


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        (b"", None),
        (b"\0" * 70_000, None),  # zero padding, as GzipFile reads it, past one read block
        (gzip.compress(b"more\n"), None),
        (b"\0" * 3 + gzip.compress(b"more\n") + b"\0", None),
        (b"junk", "from byte {:,}"),
        (b"\0\0junk", "from byte {:,}"),
        (b"\x1f", "from byte {:,}"),  # half a gzip magic
    ],
)
def test_members_padding_and_junk_after_gzip(tail: bytes, message: str | None) -> None:
    packed = gzip.compress(TEXT)
    log = OpenLog(LogInput("x", None, True, None), io.BytesIO(packed + tail))
    got = b""
    error = None
    try:
        while data := log.read(1 << 16):
            got += data
    except LogReadError as exc:
        error = str(exc)
    more = b"more\n" if tail.strip(b"\0").startswith(b"\x1f\x8b") else b""
    assert got == TEXT + more
    junk_at = len(packed) + len(tail) - len(tail.lstrip(b"\0"))
    assert error == (
        None
        if message is None
        else f"gzip data is followed by bytes that are not gzip ({message.format(junk_at)}); "
        "the lines before them were diagnosed"
    )


def test_corrupt_gzip_is_named(tmp_path: Path) -> None:
    packed = bytearray(gzip.compress(TEXT))
    packed[20:40] = b"\xff" * 20
    with pytest.raises(LogReadError) as caught:
        read_all(OpenLog(LogInput("x", None, True, None), io.BytesIO(bytes(packed))))
    assert str(caught.value).startswith("gzip data is corrupt (")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.log"], "nope.log: no such file or directory"),
        (["-", "-"], "-: standard input can be read only once"),
    ],
)
def test_unusable_arguments(args: list[str], message: str) -> None:
    with pytest.raises(InputError) as caught:
        resolve_inputs(args)
    assert str(caught.value) == message


def test_no_text_log_looks_like_a_checkpoint_or_an_archive() -> None:
    repo = Path(__file__).resolve().parents[2]
    logs = [p for d in ("tests/fixtures/logs", "corpus") for p in (repo / d).rglob("*.log")]
    assert len(logs) > 20
    looks = {p.name: not_a_log(p.read_bytes()[:HEAD_BYTES]) for p in logs}
    assert {name: why for name, why in looks.items() if why is not None} == {}
    # Text that starts like the binary formats' length prefixes is still text.
    assert not_a_log(b'12345678{"a": 1}') is None
    assert not_a_log(b"\x80\x02") == (
        "is a Python pickle (an older PyTorch checkpoint or a saved object), not a log"
    )
