"""The compiled verifier answers as the automaton does, and takes over in a storm.

verify.py checks an anchor's signatures with pattern.py's automaton until the anchor has been
seen COMPILE_AFTER times, then with a Hyperscan database of the full patterns, on ASCII lines.
Both forms must say the same of every line: checked here for every signature of the public
catalog on its own examples and on lines generated from its own literals and classes, and for
the dialect's classes one by one on every ASCII character.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose import verify
from generator.diagnose.index import load_index
from generator.diagnose.pattern import CLASSES, Gap, Lit, Matcher, Run
from generator.diagnose.scan import Scanner, ScanStats
from generator.diagnose.verify import Verifier, _Compiled

BUNDLED = Path(__file__).resolve().parents[2] / "generator" / "bundled" / "signatures.json"
INDEX = load_index(BUNDLED.read_bytes())
MATCHERS = [s.matcher for s in INDEX.signatures]
ASCII = "".join(chr(i) for i in range(128))


@pytest.fixture(scope="module")
def compiled() -> _Compiled:
    numbers = list(range(len(MATCHERS)))
    return _Compiled(numbers, MATCHERS)


def by_automaton(line: str) -> list[int]:
    # A line a pattern matches holds its anchor: the others need no look.
    return sorted(n for n, m in enumerate(MATCHERS) if m.anchor in line and m.search(line))


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_class_holds_the_same_ascii_characters(name: str) -> None:
    matcher = Matcher(f"boundary{{{name}}}end")
    one = _Compiled([0], [matcher])
    for ch in ASCII:
        line = f"boundary{ch}end"
        assert (one.matching(line.encode()) == [0]) == matcher.search(line), repr(ch)


def test_every_signature_agrees_on_the_catalog_s_pattern_texts(compiled: _Compiled) -> None:
    # Each pattern with its placeholders filled in, and cut short by one character.
    fills = {"int": "42", "num": "-1.5", "hex": "0xff", "pci": "0000:3b:00.0", "word": "w_1",
             "token": "tok/en", "*": " any thing "}  # fmt: skip
    for matcher in MATCHERS:
        text = "".join(
            t.text
            if isinstance(t, Lit)
            else fills[t.cls.name]
            if isinstance(t, Run)
            else fills["*"]
            for t in matcher.tokens
        )
        for line in (text, text[:-1], "prefix " + text + " suffix"):
            if line.isascii():
                assert sorted(compiled.matching(line.encode())) == by_automaton(line), line


def signature_line(tokens: tuple[Lit | Run | Gap, ...], draw: st.DrawFn) -> str:
    parts = []
    for t in tokens:
        if isinstance(t, Lit):
            text = t.text
            if draw(st.integers(0, 9)) == 0:  # now and then, spoil one character
                at = draw(st.integers(0, len(text) - 1))
                text = text[:at] + draw(st.sampled_from(ASCII)) + text[at + 1 :]
            parts.append(text)
        else:
            parts.append(draw(st.text(alphabet=ASCII, max_size=6)))
    return "".join(parts)


@st.composite
def catalog_lines(draw: st.DrawFn) -> str:
    matcher = draw(st.sampled_from(MATCHERS))
    return draw(st.text(alphabet=ASCII, max_size=4)) + signature_line(matcher.tokens, draw)


@settings(max_examples=500, deadline=None)
@given(catalog_lines())
def test_generated_lines_agree(line: str) -> None:
    assert sorted(_module_compiled().matching(line.encode())) == by_automaton(line)


_CACHE: list[_Compiled] = []


def _module_compiled() -> _Compiled:
    if not _CACHE:
        _CACHE.append(_Compiled(list(range(len(MATCHERS))), MATCHERS))
    return _CACHE[0]


WATCHDOG = (
    "[rank{r}]:[E626 06:00:{s:02d}.{us:06d}000 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
    "NumelIn={n}, NumelOut={n}, Timeout(ms)=600000) ran for {ms} milliseconds before timing out."
)


def watchdog_storm(lines: int) -> bytes:
    return "".join(
        WATCHDOG.format(r=i % 100, s=i % 60, us=i * 7919 % 10**6, seq=46 + i // 100, n=i + 1,
                        ms=600000 + i % 97) + "\n"
        for i in range(lines)
    ).encode()  # fmt: skip


def scan_all(raw: bytes, scanner: Scanner) -> list[tuple[int, tuple[int, ...], int | None]]:
    return [
        (m.line, m.signatures, m.rank)
        for m in scanner.scan(io.BytesIO(raw).read, "storm.log", 0, ScanStats(), [])
    ]


def lettered_storm(lines: int) -> bytes:
    """A watchdog storm whose lines differ in letters too, so that no two have one shape: each
    is verified (scan.py verifies the lines of one shape once)."""
    return b"".join(
        line.replace(
            b"OpType=ALLREDUCE", b"OpType=" + bytes(65 + i // 26**k % 26 for k in range(4))
        )
        for i, line in enumerate(watchdog_storm(lines).splitlines(keepends=True))
    )


def test_a_storm_of_distinct_lines_is_checked_by_the_automaton_only_at_first() -> None:
    raw = lettered_storm(5_000)
    scanner = Scanner(INDEX)
    found = scan_all(raw, scanner)
    assert len(found) == 5_000
    watchdog = {s.number for s in INDEX.signatures if "Watchdog caught collective" in s.pattern}
    assert all(set(sigs) & watchdog for _, sigs, _ in found)
    # One anchor is on every line: the automaton checks its first COMPILE_AFTER lines and
    # Hyperscan the rest. Before verify.py the automaton checked all 5,000.
    assert scanner.verifier.automaton_checks == verify.COMPILE_AFTER


def test_the_compiled_form_changes_no_match(monkeypatch: pytest.MonkeyPatch) -> None:
    odd = WATCHDOG.format(r=3, s=1, us=1, seq=47, n=1, ms=600001).replace("Rank 3", "R\u00e4nk 3")
    raw = lettered_storm(600) + (odd + "\n").encode()
    fast = scan_all(raw, Scanner(INDEX))
    monkeypatch.setattr(verify, "COMPILE_AFTER", 10**9)
    slow_scanner = Scanner(INDEX)
    assert scan_all(raw, slow_scanner) == fast
    assert slow_scanner.verifier.automaton_checks == 601


def test_non_ascii_lines_go_through_the_automaton() -> None:
    numbers = [n for n, m in enumerate(MATCHERS) if "Watchdog caught collective" in m.pattern]
    checker = Verifier([numbers], MATCHERS)
    line = "caf\u00e9 Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1"
    for _ in range(verify.COMPILE_AFTER + 5):
        checker.matching(0, line.encode(), line)
    assert checker.automaton_checks == verify.COMPILE_AFTER + 5
