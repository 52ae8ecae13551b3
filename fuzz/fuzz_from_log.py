"""atheris fuzz target: `new --from-log` on any bytes drafts an entry its own loader reads.

Run: make fuzz MINUTES=10   (or: python fuzz/fuzz_from_log.py -max_total_time=600)
Each input is written as a log file (so the draft reads it as the command does: streamed, then
the quoted lines read again), and the draft, when the log states an error, must load with the
entry loader; a log that states none is a plain ValueError, as the command says it.
"""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from generator.cli import _draft
    from generator.loading.yaml_source import load_yaml
    from generator.scaffold import draft_from_log

LOG = Path(tempfile.mkdtemp(prefix="trainwreck-fuzz-")) / "job.log"
TODAY = dt.date(2026, 12, 7)


def test_one_input(data: bytes) -> None:
    # A traceback's end, so that most inputs draft: the input is the exception's message.
    LOG.write_bytes(b"Traceback (most recent call last):\nRuntimeError: " + data)
    try:
        draft = _draft(str(LOG))
    except ValueError:
        return  # no line states an error, or the file is not a text log: said in one line
    load_yaml(draft_from_log("fuzzed-entry", "framework", TODAY, draft).encode())


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
