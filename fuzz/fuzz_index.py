"""atheris fuzz target: any bytes as `--index FILE` give a usable index or one IndexFormatError
whose message prints as one line; an index that loads compiles its prefilter and scans a log.

Run: make fuzz MINUTES=10   (or: python fuzz/fuzz_index.py -max_total_time=600)
Half the inputs are raw bytes; the other half are spliced into the catalog's own index at a
fuzzed offset, so the fuzzer also explores indexes that are nearly right. A crash writes
crash-<hash> here; keep the input as a regression test in tests/diagnose/test_index.py before
fixing it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from generator.diagnose.engine import LogBytes, diagnose_logs
    from generator.diagnose.index import IndexFormatError, build_index, index_json, load_index
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.model.invisible import printable
    from generator.validation import validate_sources

ROOT = Path(__file__).resolve().parents[1]
_sources, _ = read_sources(find_entry_files(ROOT / "entries"), ROOT)
# A few entries keep each splice cheap; the whole catalog's index is 335 KB.
_entries = sorted(validate_sources(_sources).entries, key=lambda e: e.id)[:3]
SEED = index_json(build_index(_entries)).encode()
LOG = LogBytes(
    "rank3.log",
    b"[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    b'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: boom\n',
)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    if fdp.ConsumeBool():
        raw = fdp.ConsumeBytes(fdp.remaining_bytes())
    else:
        at = fdp.ConsumeIntInRange(0, len(SEED))
        cut = fdp.ConsumeIntInRange(0, 64)
        raw = SEED[:at] + fdp.ConsumeBytes(fdp.remaining_bytes()) + SEED[at + cut :]
    try:
        index = load_index(raw)
    except IndexFormatError as exc:
        shown = printable(str(exc))
        if "\n" in shown or "\r" in shown or "\x1b" in shown:
            raise AssertionError(f"message is not one printable line: {shown!r}") from None
        return
    diagnose_logs(index, [LOG])


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
