"""atheris fuzz target: any bytes as a log are scanned and triaged without an exception.

Run: make fuzz MINUTES=10   (or: python fuzz/fuzz_scanner.py -max_total_time=600)
The catalog is compiled once from entries/, so the fuzzer explores the real signatures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from generator.diagnose.engine import LogBytes, diagnose_logs
    from generator.diagnose.index import build_index, compile_index
    from generator.diagnose.scan import Scanner
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.validation import validate_sources

ROOT = Path(__file__).resolve().parents[1]
_sources, _ = read_sources(find_entry_files(ROOT / "entries"), ROOT)
INDEX = compile_index(build_index(validate_sources(_sources).entries))
SCANNER = Scanner(INDEX)


def test_one_input(data: bytes) -> None:
    split = len(data) // 2
    logs = [LogBytes("rank0.log", data[:split]), LogBytes("rank1.log", data[split:])]
    diagnose_logs(INDEX, logs, SCANNER)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
