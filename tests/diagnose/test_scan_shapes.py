"""Lines of one shape are verified once (scan.py `Scanner._read`, pattern.py `digit_blind`).

A storm's lines differ in their numbers: rank, time, sequence. Where no signature of a line's
anchors has a digit among its literals, every line of one shape (its digits as zeros) matches
the same signatures, so the scanner verifies the shape once. A signature that names a number
(an error code) must still tell `code 12` from `code 13`.
"""

from __future__ import annotations

import io
import re
from re import _constants as sre
from re import _parser as sre_parse
from typing import Any

from catalog import SPECS, Spec, index
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose import evidence, launcher
from generator.diagnose.lineinfo import ascii_shape, read_line_parts
from generator.diagnose.pattern import CLASSES, digit_blind, parse
from generator.diagnose.scan import LineMatch, Scanner, ScanStats, _Line

CPU_OOM = Spec(
    "cpu-allocator-oom",
    "memory",
    "DefaultCPUAllocator: can't allocate memory",
    "Compute the requested size; if it is absurd, fix the shape that produced it.",
    (
        (
            "DefaultCPUAllocator: can't allocate memory: you tried to allocate {int} bytes. "
            "Error code 12 (Cannot allocate memory)",
            "defining",
        ),
    ),
    (
        (
            "https://github.com/JingyunLiang/VRT/issues/49",
            "RuntimeError: [enforce fail at alloc_cpu.cpp:73] . DefaultCPUAllocator: can't "
            "allocate memory: you tried to allocate 116813856768 bytes. Error code 12 (Cannot "
            "allocate memory)",
        ),
    ),
)
ALLOC = (
    "[enforce fail at alloc_cpu.cpp:{at}] . DefaultCPUAllocator: can't allocate memory: you tried "
    "to allocate {n} bytes. Error code {code} (Cannot allocate memory)"
)
# The test catalog and a signature that names a number: the allocator's error code.
INDEX = index((*SPECS, CPU_OOM))
WATCHDOG = (
    "[rank{r}]:[E626 06:{m:02d}:{s:02d}.{us}000 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={n}, "
    "NumelOut={n}, Timeout(ms)=600000) ran for {ms} milliseconds before timing out."
)
XID = "[{t}.{us}] NVRM: Xid (PCI:0000:{bus}:00): {code}, pid={pid}, name=python, Ch 0000000{c}"
OOM = (
    "{r}: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {a}.00 GiB. GPU {g} has "
    "a total capacity of 79.15 GiB of which {f}.33 GiB is free."
)
NCCL = "node-{h}:{pid}:{tid} [{d}] NCCL INFO Channel {c}/0 : {d} -> {d2} via P2P/IPC/read"
# Launcher lines: their anchors have no signatures, and what they report is in their numbers.
SRUN = "srun: error: gpu-node-{h}: task {t}: Exited with exit code {c}"
TORCHRUN = "[{i}]:\n  time      : 2024-06-26_06:{m}:{s}\n  rank      : {r} (local_rank: {lr})"
EXITCODE = "  exitcode  : {c} (pid: {pid})"
SIGNAL = "[rank{r}]: Signal {n} (SIGABRT) received by PID {pid}"
ERRORS = "[rank{r}]: {word} error: step {n} failed: Exception: code {c}"


def matches(raw: bytes, scanner: Scanner) -> list[LineMatch]:
    return list(scanner.scan(io.BytesIO(raw).read, "storm.log", 0, ScanStats(), []))


class LineByLine(Scanner):
    """Reads every line by itself: no shape's verification or head plan is used."""

    def _read(self, raw: bytes, anchors: set[int]) -> _Line:
        text = raw.decode("utf-8", "replace")
        verified = self._verify(raw, text, anchors)
        supporting = self._context_only(verified)
        return self._described(text, anchors, verified, supporting, read_line_parts(text))


def verifying_each_line() -> Scanner:
    return LineByLine(INDEX)


def test_every_class_holds_all_ten_digits() -> None:
    # digit_blind rests on it: a class that told one digit from another would make it wrong.
    for cls in CLASSES.values():
        assert set("0123456789") <= cls.ascii_members, cls.name


_DIGITS = range(ord("0"), ord("9") + 1)
_ALL_DIGITS = (sre.CATEGORY_DIGIT, sre.CATEGORY_WORD, sre.CATEGORY_NOT_SPACE)
_NO_DIGIT = (sre.CATEGORY_NOT_DIGIT, sre.CATEGORY_NOT_WORD, sre.CATEGORY_SPACE)


def expression_digit_blind(parsed: Any) -> bool:
    """Whether a parsed regular expression treats the ten ASCII digits alike: no digit is
    written out, and every class holds all of them or none. Anything else found is refused."""
    for op, av in parsed:
        if op in (sre.LITERAL, sre.NOT_LITERAL):
            if av in _DIGITS:
                return False
        elif op is sre.IN:
            held: set[int] = set()
            for item, value in av:
                if item is sre.LITERAL and value in _DIGITS:
                    held.add(value)
                elif item is sre.RANGE:
                    held.update(d for d in _DIGITS if value[0] <= d <= value[1])
                elif item is sre.CATEGORY and value in _ALL_DIGITS:
                    held.update(_DIGITS)
                elif not (item in (sre.LITERAL, sre.NEGATE) or value in _NO_DIGIT):
                    return False
            if held and len(held) != len(_DIGITS):
                return False
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            if not expression_digit_blind(av[2]):
                return False
        elif op is sre.SUBPATTERN:
            if not expression_digit_blind(av[3]):
                return False
        elif op is sre.BRANCH:
            if not all(expression_digit_blind(branch) for branch in av[1]):
                return False
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            if not expression_digit_blind(av[1]):
                return False
        elif not (
            op in (sre.AT, sre.ANY) or (op is sre.CATEGORY and av in _ALL_DIGITS + _NO_DIGIT)
        ):
            return False  # a back-reference compares digits; anything unknown is refused
    return True


def test_the_launcher_and_evidence_expressions_treat_the_ten_digits_alike() -> None:
    # scan.py reads a line of a shape as no launcher's report, with one evidence kind, once
    # any line of the shape is: true only while every expression here is digit-blind.
    found = {
        f"{module.__name__}.{name}": expression_digit_blind(sre_parse.parse(v.pattern, v.flags))
        for module in (launcher, evidence)
        for name, v in vars(module).items()
        if isinstance(v, re.Pattern)
    }
    assert len(found) == 29
    assert [name for name, blind in found.items() if not blind] == []


def test_the_digit_blind_check_refuses_what_tells_digits_apart() -> None:
    for pattern in (r"code 12", r"[0-7]+", r"(\d)\1", r"[1a]", r"\d{2}[^0]"):
        assert not expression_digit_blind(sre_parse.parse(pattern)), pattern
    for pattern in (r"\d+ \w+[A-Z0-9]", r"(?<![A-Za-z])error: \S", r"[^\s:]+ .*$"):
        assert expression_digit_blind(sre_parse.parse(pattern)), pattern


def test_a_pattern_is_digit_blind_when_no_literal_holds_a_digit() -> None:
    assert digit_blind(parse("Watchdog caught collective operation timeout: SeqNum={int}"))
    assert digit_blind(parse("CUDA out of memory. Tried to allocate {num} {word}"))
    assert not digit_blind(parse("NVRM: Xid (PCI:{pci}{*}): 79, "))
    assert not digit_blind(parse("RmInitAdapter failed! (0x{hex}:0x{hex}:{int})"))


def test_a_number_a_signature_names_is_read_on_every_line_of_a_shape() -> None:
    # Error code 12 is the signature's; 13 has the same shape, and must not match.
    lines = [ALLOC.format(at=73, n=116813856768, code=code) for code in (12, 13, 12)]
    raw = "".join(line + "\n" for line in lines).encode()
    assert len({ascii_shape(line.encode()) for line in lines}) == 1
    found = matches(raw, Scanner(INDEX))
    assert [(m.line, [INDEX.signatures[n].entry for n in m.signatures]) for m in found] == [
        (1, ["cpu-allocator-oom"]),
        (3, ["cpu-allocator-oom"]),
    ]
    assert found == matches(raw, verifying_each_line())


def test_a_storm_of_distinct_lines_is_verified_once_per_shape() -> None:
    lines = [
        WATCHDOG.format(
            r=i % 100, m=i // 600 % 60, s=i // 10 % 60, us=f"{i * 7919 % 10**6:06d}",
            seq=46 + i // 100, n=i * 31 % 9973 + 1, ms=600000 + i % 97,
        )
        for i in range(5_000)
    ]  # fmt: skip
    raw = "".join(line + "\n" for line in lines).encode()
    scanner = Scanner(INDEX)
    found = matches(raw, scanner)
    assert len(found) == 5_000
    shapes = {ascii_shape(line.encode()) for line in lines}
    assert 1 < len(shapes) < 50
    # Every line holds the same anchors: one verification per shape, by the automaton (a
    # shape is far from the COMPILE_AFTER lines that would compile the anchor).
    assert scanner.verifier.automaton_checks == len(shapes)
    assert found == matches(raw, verifying_each_line())


# Numbers of many lengths (lines of many shapes), and of a few (lines that share one).
digits = st.one_of(st.integers(0, 10**7), st.integers(100, 999))
line = st.one_of(
    st.builds(
        lambda r, m, s, us, seq, n, ms: WATCHDOG.format(
            r=r % 1000, m=m % 100, s=s % 100, us=f"{us % 10**6:06d}", seq=seq, n=n, ms=ms
        ),
        digits, digits, digits, digits, digits, digits, digits,
    ),
    st.builds(
        lambda t, us, bus, code, pid, c: XID.format(
            t=t, us=f"{us % 10**6:06d}", bus=f"{bus % 100:02d}", code=code, pid=pid, c=c % 10
        ),
        digits, digits, digits, st.sampled_from([79, 48, 13, 31, 94, 7, 790, 179]), digits,
        digits,
    ),
    st.builds(
        lambda at, n, code: ALLOC.format(at=at, n=n, code=code),
        st.integers(10, 99), st.integers(10**9, 10**9 + 999), st.sampled_from([12, 13, 21, 1]),
    ),
    st.builds(
        lambda r, a, g, f: OOM.format(r=r % 10**6, a=a, g=g % 100, f=f),
        digits, digits, digits, digits,
    ),
    st.builds(
        lambda h, t, c: SRUN.format(h=h % 100, t=t % 1000, c=c % 300),
        digits, digits, digits,
    ),
    st.builds(
        lambda i, m, s, r, lr: TORCHRUN.format(
            i=i % 10, m=f"{m % 60:02d}", s=f"{s % 70:02d}", r=r % 1000, lr=lr % 8
        ),
        digits, digits, digits, digits, digits,
    ),
    st.builds(
        lambda c, pid: EXITCODE.format(c=c % 300 - 10, pid=pid),
        digits, digits,
    ),
    st.builds(
        lambda r, n, pid: SIGNAL.format(r=r % 1000, n=n % 40, pid=pid),
        digits, digits, digits,
    ),
    st.builds(
        lambda r, word, n, c: ERRORS.format(r=r % 1000, word=word, n=n, c=c),
        digits, st.sampled_from(["srun", "fatal", "io", "cuda"]), digits, digits,
    ),
    st.builds(
        lambda h, pid, tid, d, c, d2: NCCL.format(
            h=h % 100, pid=pid, tid=tid, d=d % 8, c=f"{c % 100:02d}", d2=d2 % 8
        ),
        digits, digits, digits, digits, digits, digits,
    ),
)  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(st.lists(line, min_size=1, max_size=60))
def test_lines_read_by_their_shape_read_as_each_line_alone(lines: list[str]) -> None:
    raw = "".join(text + "\n" for text in lines).encode()
    assert matches(raw, Scanner(INDEX)) == matches(raw, verifying_each_line())
