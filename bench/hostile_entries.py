"""Benchmark the loader on hostile entries (issue 15): each must be refused in milliseconds.

    python bench/hostile_entries.py

Prints the CPU seconds `load_doc` takes on each input and exits 1 if any takes over 0.5 s.
Before issue 15, a 512 KiB YAML 1.1 base-60 integer took 11.6 s and 400 levels of nesting
raised RecursionError.
"""

from __future__ import annotations

import sys
import time

from generator.validation import SourceFile, _load_doc

LIMIT_SECONDS = 0.5
CASES = {
    "base-60 integer, 512 KiB": "a: " + ":".join(["1"] * 262_000) + "\n",
    "10,000-digit integer": "a: " + "9" * 10_000 + "\n",
    "400 levels of flow nesting": "a: " + "[" * 400 + "]" * 400 + "\n",
    "100,000 levels of flow nesting": "a: " + "[" * 100_000 + "]" * 100_000 + "\n",
}


def main() -> int:
    slow = False
    for name, text in CASES.items():
        started = time.process_time()
        _load_doc.__wrapped__(SourceFile("entries/x/bench.yaml", text.encode()))
        seconds = time.process_time() - started
        slow |= seconds > LIMIT_SECONDS
        print(f"{seconds:8.3f} s  {name}")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
