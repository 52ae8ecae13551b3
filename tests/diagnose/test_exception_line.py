"""The exception line a reported line stands for (generator/diagnose/exception_line.py), on
the real-failure benchmark's logs where the first match is a `raise` source line or a bare
message pasted above its traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.exception_line import exception_line_after, message_of
from generator.diagnose.index import SignatureIndex
from realeval.engines import catalog_index

REAL = Path(__file__).resolve().parents[2] / "corpus" / "real" / "logs"


@pytest.fixture(scope="module")
def index() -> SignatureIndex:
    return SignatureIndex(catalog_index())


def _first(index: SignatureIndex, raw: bytes) -> tuple[str, int, str]:
    d = diagnose_logs(index, [LogBytes("x.log", raw)]).diagnosis
    hit = d.explained
    assert hit is not None
    return d.findings[0].id, hit.line, hit.text


@pytest.mark.parametrize(
    ("case", "want"),
    [
        # bitsandbytes raises a constant message: its source line matched first (line 17)
        ("534", ("bnb-compiled-without-gpu", 18, "Exception: CUDA SETUP: Setup Failed!")),
        # the reporter pasted the message alone on line 2, the traceback after it
        (
            "115",
            (
                "object-has-no-attribute",
                10,
                "AttributeError: 'NoneType' object has no attribute 'peft_config'",
            ),
        ),
    ],
)
def test_the_report_shows_the_typed_exception_line_that_follows(
    index: SignatureIndex, case: str, want: tuple[str, int, str]
) -> None:
    [path] = REAL.glob(f"{case}-*")
    assert _first(index, path.read_bytes()) == want


def test_a_paste_cut_at_the_raise_line_keeps_it(index: SignatureIndex) -> None:
    [path] = REAL.glob("534-*")
    cut = b"".join(path.read_bytes().splitlines(keepends=True)[:17])
    assert _first(index, cut) == (
        "bnb-compiled-without-gpu",
        17,
        "    raise Exception('CUDA SETUP: Setup Failed!')",
    )


def test_only_the_same_streams_typed_line_with_the_message_counts() -> None:
    text = "[rank1]:    raise ValueError('batch size must divide the world size')"
    after = {
        5: "[rank0]:ValueError: batch size must divide the world size",
        6: "[rank1]:Warning: batch size must divide the world size",
        7: "[rank1]:ValueError: batch size must divide the world size",
    }
    assert exception_line_after(text, after) == (7, after[7])
    assert message_of("ValueError: already typed") is None
    assert message_of("Killed") is None
    assert message_of("raise RuntimeError(f'{x} failed')") is None
