"""atheris fuzz target: the exported regular expressions stay linear in time and exact.

Run: make fuzz MINUTES=10   (or: python fuzz/fuzz_export_regex.py -max_total_time=600)
Each input is a signature (pieces of literal text at the classes' edges, and placeholders) and
a line made of that signature's own pieces, repeated to up to 64 Ki characters: the shape of
line that makes a backtracking engine try many splits. For every signature `validate` allows,
the atomic form (what sqlite, Spark and Splunk get) must find what the signature matcher finds,
on that line, in Python's re, within a time linear in the line: a few nanoseconds per
character and pattern character measured, so the bound below leaves a factor of hundreds, and
a quadratic read of a 64 Ki line exceeds it.
"""

from __future__ import annotations

import re
import sys
import time

import atheris

with atheris.instrument_imports():
    from generator.diagnose.pattern import Matcher, PatternError, parse
    from generator.fleet.regex import export_problems, signature_regex

PIECES = ["{int}", "{num}", "{hex}", "{pci}", "{word}", "{token}", "{*}", "{{", "}}"]
# Literal characters at the edges of the classes: digits, hex letters, . - : _ x, spaces.
CHARS = "a1f9x_.-: 'Z\t\u3000\u2028é"
HEADS = ["zzqxredos", "zzqx redos ", "aaaaaaaa", "1a:'x_ 1a"]
MAX_LINE = 1 << 16
# Seconds per line character and pattern character, and a floor for the timer's noise.
PER_STEP = 1e-6
FLOOR = 0.05


def _pattern(data: atheris.FuzzedDataProvider) -> str:
    parts = [HEADS[data.ConsumeIntInRange(0, len(HEADS) - 1)]]
    for _ in range(data.ConsumeIntInRange(0, 24)):
        if data.ConsumeBool():
            parts.append(PIECES[data.ConsumeIntInRange(0, len(PIECES) - 1)])
        else:
            parts.append(CHARS[data.ConsumeIntInRange(0, len(CHARS) - 1)])
    return "".join(parts)


def test_one_input(raw: bytes) -> None:
    data = atheris.FuzzedDataProvider(raw)
    pattern = _pattern(data)
    try:
        tokens = parse(pattern)
    except PatternError:
        return
    if export_problems(tokens):
        return  # refused by `validate`; `export` skips the entry
    matcher = Matcher(pattern)
    pieces = [*matcher.literals, *CHARS, "1", "a"]
    unit = "".join(
        pieces[data.ConsumeIntInRange(0, len(pieces) - 1)]
        for _ in range(data.ConsumeIntInRange(1, 16))
    )
    length = data.ConsumeIntInRange(1, MAX_LINE)
    line = (unit * (length // len(unit) + 1))[:length]
    if data.ConsumeBool():
        line += data.ConsumeUnicodeNoSurrogates(64)
    atomic = re.compile(signature_regex(pattern, "atomic"))
    start = time.perf_counter()
    found = atomic.search(line) is not None
    took = time.perf_counter() - start
    want = any(matcher.search(part) for part in line.split("\n"))
    if found != want:
        raise AssertionError(f"atomic form says {found}, matcher {want}: {pattern!r}")
    bound = PER_STEP * len(line) * len(pattern) + FLOOR
    if took > bound:
        raise AssertionError(
            f"{took:.2f} s on a {len(line)}-character line, over {bound:.2f} s: {pattern!r}"
        )


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
