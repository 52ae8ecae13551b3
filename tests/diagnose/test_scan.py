"""The scanner's line rules on hostile bytes, and proof that blocks and prefilters never
change a result."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from catalog import index

from generator.diagnose import scan
from generator.diagnose.lineinfo import Timestamp
from generator.diagnose.prefilter import FindPrefilter, HyperscanPrefilter
from generator.diagnose.scan import LineMatch, Scanner, ScanProblem, ScanStats, binary_reason

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
REPO = Path(__file__).resolve().parents[2]
INDEX = index()
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
ECC = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
# Signature numbers in the test catalog's index.
OOM_SIG, ECC_SIG = 2, 0


def run(
    raw: bytes, name: str = "x.log", scanner: Scanner | None = None
) -> tuple[list[LineMatch], ScanStats, list[ScanProblem]]:
    stats, problems = ScanStats(), []
    matches = list((scanner or Scanner(INDEX)).scan(io.BytesIO(raw).read, name, 0, stats, problems))
    return matches, stats, problems


def brief(matches: list[LineMatch]) -> list[tuple[int, str, tuple[int, ...], str | None]]:
    return [(m.line, m.text, m.signatures, m.time.text if m.time else None) for m in matches]


def test_signature_numbers_used_here() -> None:
    assert INDEX.signatures[OOM_SIG].pattern.startswith("CUDA out of memory")
    assert INDEX.signatures[ECC_SIG].pattern.startswith("CUDA error: uncorrectable ECC")


def test_crlf_lone_cr_nul_invalid_utf8_and_ansi_colour() -> None:
    raw = (
        b"2024-06-26 06:00:00,000 INFO start\r\n"  # CRLF
        b"  10%|#   | 1/10\r  20%|##  | 2/10\r" + OOM.encode() + b"\n"  # tqdm redraws with CR
        b"\x00\x00\x00" + ECC.encode() + b"\x00\n"  # NUL bytes are ordinary characters
        b"caf\xe9 \xff\xfe " + ECC.encode() + b"\n"  # invalid UTF-8 becomes U+FFFD
        b"\x1b[31m" + ECC[:20].encode() + b"\x1b[0m" + ECC[20:].encode() + b"\n"  # colour
        b"no newline at the end " + ECC.encode()
    )
    matches, stats, problems = run(raw)
    started = "2024-06-26T06:00:00.000"
    assert brief(matches) == [
        (2, OOM, (OOM_SIG,), started),
        (3, "\x00\x00\x00" + ECC + "\x00", (ECC_SIG,), started),
        (4, "caf\ufffd \ufffd\ufffd " + ECC, (ECC_SIG,), started),
        (5, ECC, (ECC_SIG,), started),
        (6, "no newline at the end " + ECC, (ECC_SIG,), started),
    ]
    assert stats == ScanStats(files=1, bytes=len(raw), lines=6, long_lines=0, skipped_bytes=0)
    assert problems == []


def test_long_lines_are_matched_on_their_first_bytes_and_the_rest_is_counted() -> None:
    cap = INDEX.max_line_bytes
    early = ECC.encode() + b" " + b"x" * (cap + 1000)  # signature in the first bytes
    late = b"y" * cap + ECC.encode()  # signature past the cap: not matched
    huge = b"z" * (3 * scan.CHUNK_BYTES) + ECC.encode()  # a line longer than a block
    raw = early + b"\n" + late + b"\n" + huge + b"\n" + ECC.encode() + b"\n"
    matches, stats, _ = run(raw)
    assert [(m.line, len(m.text.encode())) for m in matches] == [(1, cap), (4, len(ECC))]
    assert stats == ScanStats(
        files=1,
        bytes=len(raw),
        lines=4,
        long_lines=3,
        skipped_bytes=(len(early) - cap) + (len(late) - cap) + (len(huge) - cap),
    )


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_block_size_never_changes_a_result(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    logs = sorted(FIXTURES.rglob("*.log")) + sorted(FIXTURES.rglob("*.out"))
    expected = [run(p.read_bytes(), p.name) for p in logs]
    monkeypatch.setattr(scan, "CHUNK_BYTES", chunk)
    assert [run(p.read_bytes(), p.name) for p in logs] == expected
    # In the hand-made sets (the real/ corpus grows): 37 signature matches, and two launcher
    # reports no signature matches: srun's `task 5: Exited with exit code 1` and the torchrun
    # summary's `exitcode  : 1`.
    made = [r for p, r in zip(logs, expected, strict=True) if "real" not in p.parts]
    assert sum(len(m) for m, _, _ in made) == 39


def test_hyperscan_and_plain_find_prefilters_agree() -> None:
    logs = [
        *sorted(FIXTURES.rglob("*.log")),
        *sorted(FIXTURES.rglob("*.out")),
        *sorted((REPO / "corpus" / "benign").glob("*.log")),
    ]
    fast = Scanner(INDEX, HyperscanPrefilter(INDEX.anchors))
    plain = Scanner(INDEX, FindPrefilter(INDEX.anchors))
    for log in logs:
        assert run(log.read_bytes(), log.name, fast) == run(log.read_bytes(), log.name, plain)


def test_a_line_without_a_time_takes_the_latest_earlier_one_of_its_own_stream() -> None:
    raw = (
        b"[rank0]:[2024-06-26 06:00:00,000] INFO step 1\n"
        b"[rank1]:[2024-06-26 06:00:05,000] INFO step 1\n"
        b"[rank0]:Traceback (most recent call last):\n"
        b"[rank0]:" + ECC.encode() + b"\n"
        b"[rank1]:" + ECC.encode() + b"\n" + b"filler\n" * 70 + ECC.encode() + b"\n"
    )
    matches, _, _ = run(raw, "train.log")
    assert [(m.line, m.rank, m.stream, m.time) for m in matches] == [
        (4, 0, 0, Timestamp("2024-06-26T06:00:00.000", 1719381600.0, 15314400.0, None)),
        (5, 1, 1, Timestamp("2024-06-26T06:00:05.000", 1719381605.0, 15314405.0, None)),
        # 70 lines since the last time of this (unprefixed) stream: more than the look-back.
        (76, None, None, None),
    ]


def test_a_match_64_lines_back_still_lends_its_time() -> None:
    # Rank 0's second match is 64 lines after its first, the look-back's last line: it takes
    # the time the first one took (from line 1, itself out of reach by then).
    raw = (
        b"[rank0]:[2024-06-26 06:00:00,000] INFO step 1\n"
        + b"".join(b"[rank%d]:" % r + ECC.encode() + b"\n" for r in range(64))
        + b"[rank0]:"
        + ECC.encode()
        + b"\n"
    )
    matches, _, _ = run(raw, "train.log")
    first = Timestamp("2024-06-26T06:00:00.000", 1719381600.0, 15314400.0, None)
    assert [(m.line, m.rank, m.time) for m in matches] == [
        (2, 0, first),
        *((line, line - 2, None) for line in range(3, 66)),
        (66, 0, first),
    ]


def test_a_traceback_end_no_anchor_found_is_read_in_its_place() -> None:
    # `AssertionError` holds no anchor: only the traceback above it makes it a line to read,
    # and it comes before the line after it, with its own line number.
    raw = (
        b"[rank1]:Traceback (most recent call last):\n"
        b'[rank1]:  File "train.py", line 3, in <module>\n'
        b"[rank1]:AssertionError\n"
        b"[rank0]:" + ECC.encode() + b"\n"
    )
    matches, _, _ = run(raw)
    assert matches == [
        LineMatch(
            "x.log", 0, 3, 90, "[rank1]:AssertionError", (), 1, 1, None, None, "python-exception"
        ),
        LineMatch(
            "x.log", 0, 4, 113, f"[rank0]:{ECC}", (ECC_SIG,), 0, 0, None, None, "python-exception"
        ),
    ]


def test_a_long_stream_of_matches_is_resolved_without_reading_lines_twice() -> None:
    head = b"2024-06-26 06:00:00,000 INFO gpu-node-07:1:2 [0] NCCL INFO start\n"
    raw = head + (ECC.encode() + b"\n") * 500
    matches, _, _ = run(raw)
    # The same line 500 times in a row is one match that stands for all of them.
    assert [(m.line, m.repeat) for m in matches] == [(2, 500)]
    assert {(m.time.text if m.time else None, m.host) for m in matches} == {
        ("2024-06-26T06:00:00.000", "gpu-node-07")
    }


@pytest.mark.parametrize(
    ("sample", "reason"),
    [
        (b"plain text\n" * 100, None),
        (b"", None),
        (b"caf\xe9 " * 100 + b"x" * 1000, None),  # some Latin-1 in a text log
        (b"\x00" * 8192, "does not look like a text log (binary data)"),
        (bytes(range(256)) * 32, "does not look like a text log (binary data)"),
        (
            "log".encode("utf-16"),
            "is UTF-16 text; convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)",
        ),
        (
            "[rank0]: NCCL error\n".encode("utf-16-le"),
            "is UTF-16 text without a BOM; convert it to UTF-8 first (iconv -f UTF-16LE -t UTF-8)",
        ),
        (
            "[rank0]: NCCL error\n".encode("utf-16-be"),
            "is UTF-16 text without a BOM; convert it to UTF-8 first (iconv -f UTF-16BE -t UTF-8)",
        ),
        (b"ab\x00\x00cd\n" * 10, None),  # NULs, but not every other byte
    ],
)
def test_binary_reason(sample: bytes, reason: str | None) -> None:
    assert binary_reason(sample) == reason


def test_binary_noise_is_skipped_with_a_problem() -> None:
    noise = bytes((i * 7919 + 13) % 256 for i in range(100_000))
    assert run(noise) == (
        [],
        ScanStats(),
        [ScanProblem("x.log", "does not look like a text log (binary data)", "binary")],
    )


def test_a_read_error_keeps_what_was_read() -> None:
    data = [ECC.encode() + b"\npartial line " + ECC.encode()]

    def read(size: int) -> bytes:
        if data:
            return data.pop()
        raise scan.LogReadError("gzip data ends early (a truncated file)")

    stats, problems = ScanStats(), []
    matches = list(Scanner(INDEX).scan(read, "x.log.gz", 0, stats, problems))
    assert brief(matches) == [
        (1, ECC, (ECC_SIG,), None),
        (2, "partial line " + ECC, (ECC_SIG,), None),
    ]
    assert problems == [ScanProblem("x.log.gz", "gzip data ends early (a truncated file)", "read")]
