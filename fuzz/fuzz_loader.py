"""atheris fuzz target: any bytes as an entry file give an entry or placed problems.

Run: make fuzz MINUTES=10   (or: python fuzz/fuzz_loader.py -max_total_time=600)
A crash writes crash-<hash> here; keep the input as a regression test before fixing it.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from generator.validation import SourceFile, validate_sources


def test_one_input(data: bytes) -> None:
    result = validate_sources([SourceFile("entries/fuzz/fuzz.yaml", data)])
    for problem in result.problems:
        if problem.line < 1 or problem.col < 1:
            raise AssertionError(f"problem without a place: {problem}")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
