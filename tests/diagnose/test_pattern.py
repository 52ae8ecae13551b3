"""The signature dialect: what parses, what matches, and that matching never backtracks."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose.pattern import Matcher, PatternError, parse, to_regex


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (
            "{int} leading placeholder",
            "a pattern starts with literal text; a leading "
            "placeholder adds nothing because patterns match anywhere in a line",
        ),
        (
            "short {int}",
            "a pattern needs a literal run of at least 8 characters, so that it "
            "is specific and can be found fast",
        ),
        (
            "NVRM: Xid {pcie}",
            "unknown placeholder {pcie}; use one of {int}, {num}, {hex}, "
            "{pci}, {word}, {token}, {*}, or {{ for a literal brace",
        ),
        ("NVRM: Xid {*}{*}x", "two {*} in a row; one is enough"),
        ("NVRM: Xid {*}", "drop the trailing {*}: patterns match anywhere in a line"),
        ("NVRM: Xid }", "a lone } must be written }} "),
        ("NVRM: Xid\nsecond line", "a pattern matches one line; it cannot contain a line break"),
        ("x" * 401, "pattern is 401 characters; the limit is 400"),
    ],
)
def test_bad_patterns_are_refused_with_a_reason(pattern: str, message: str) -> None:
    with pytest.raises(PatternError) as info:
        parse(pattern)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("pattern", "line", "matches"),
    [
        ("NVRM: Xid (PCI:{pci}{*}): 79, ", "[1.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1", True),
        ("NVRM: Xid (PCI:{pci}{*}): 79, ", "NVRM: Xid (PCI:0000:3b:00 GPU-I:01): 79, x", True),
        ("NVRM: Xid (PCI:{pci}{*}): 79, ", "NVRM: Xid (PCI:0000:3b:00): 13, pid=1", False),
        ("Tried to allocate {num} {word}.", "Tried to allocate 20.00 GiB. GPU 0", True),
        ("Tried to allocate {num} {word}.", "Tried to allocate  GiB.", False),
        ("literal {{braces}} here", "a literal {braces} here", True),
        ("SeqNum={int}, OpType={word}", "WorkNCCL(SeqNum=808, OpType=ALLREDUCE,", True),
        ("SeqNum={int}, OpType={word}", "WorkNCCL(SeqNum=, OpType=ALLREDUCE,", False),
        ("on host {token} failed", "on host gpu-node-01:29500 failed", True),
        ("on host {token} failed", "on host  failed", False),
        ("caseSensitive text", "casesensitive text", False),
    ],
)
def test_matching(pattern: str, line: str, matches: bool) -> None:
    assert Matcher(pattern).search(line) is matches


PIECES = st.sampled_from(
    [
        "abcdefgh",
        "ab",
        "a",
        ":",
        " ",
        "0",
        "12",
        "x",
        "{int}",
        "{hex}",
        "{pci}",
        "{word}",
        "{token}",
        "{num}",
        "{*}",
    ]
)
LINE = st.text(alphabet="ab:0123x -.AZ_\t{}é", max_size=40)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=8), LINE)
def test_the_automaton_agrees_with_the_regular_expression(pieces: list[str], line: str) -> None:
    pattern = "abcdefgh" + "".join(pieces)
    try:
        matcher = Matcher(pattern)
    except PatternError:
        return
    # Python's re backtracks, but on lines this short it is a fine oracle.
    expected = re.search(to_regex(matcher.tokens), line) is not None
    assert matcher.search(line) is expected, (pattern, line)


def test_a_backtracking_trap_costs_one_step_per_character(monkeypatch: pytest.MonkeyPatch) -> None:
    # Catastrophic for a backtracking engine: nested gaps before a character that never comes.
    trap = Matcher("aaaaaaaa{*}a{*}a{*}a{*}a{*}a{*}a{*}a{*}b")
    steps = 0
    real_mask = trap._mask

    def counting(ch: str) -> int:
        nonlocal steps
        steps += 1
        return real_mask(ch)

    monkeypatch.setattr(trap, "_mask", counting)
    # Every literal is in both lines, so each goes through the automaton, one step per character.
    hit = "a" * 100_000 + "b"
    miss = "b" + "a" * 100_000 + "c"
    assert trap.search(hit) is True
    assert steps == len(hit)
    steps = 0
    assert trap.search(miss) is False
    assert steps == len(miss) - 1  # the scan starts at the first literal, after the "b"
