"""Properties: the browser engine and the Python engine agree on generated input.

The browser engine's files (templates/static/javascripts/engine/) run in Node through
diagnose_node.js, exactly as the site serves them; Hypothesis generates patterns in the signature
dialect, lines, raw bytes and whole logs, and every answer must equal the Python engine's:
whether a pattern matches a line (and whether it parses at all, and its anchor), how bytes
decode, what rank, time and host a line states, the rank a path names, the complete diagnosis
of a log read in blocks of any size (and of pasted text, encoded a slice at a time), every match
the scanner passes on (with the `repeat` of a line folded with the copies that follow it) on
storms of repeated lines, and the Markdown report. test_diagnose_parity.py runs the same engine
in Chromium on the real corpus.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.diagnose import scan
from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.index import SignatureIndex, build_index, index_data
from generator.diagnose.lineinfo import rank_from_path, read_line
from generator.diagnose.pattern import Matcher, PatternError
from generator.model.entry import Entry

from .diagnose_support import python_result

REPO = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("diagnose_node.js")


class Node:
    """One Node process running diagnose_node.js: a JSON request in, a JSON answer out."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.fail("node is not installed; the engine property tests run the JavaScript in it")
        self.proc = subprocess.Popen(
            [node, str(HARNESS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="surrogatepass",
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        assert "crash" not in answer, answer["crash"]
        return answer

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def node() -> Iterator[Node]:
    n = Node()
    yield n
    n.close()


def real_entries() -> list[Entry]:
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.validation import validate_sources

    sources, _ = read_sources(find_entry_files(REPO / "entries"), REPO)
    return list(validate_sources(sources).entries)


ENTRIES = real_entries()
INDEX_DATA = build_index(ENTRIES)
INDEX = SignatureIndex(INDEX_DATA)
INDEX_JSON = index_data(INDEX_DATA)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- patterns and lines ------------------------------------------------------------------------

# Characters that exercise every class boundary: digits, hex letters, the class punctuation,
# spaces (ASCII and not), a NUL, non-ASCII letters and an astral character.
ALPHABET = "0123456789abcdefxXgzAF_.-:/ ()[]=,\t\x00\x1c\x85\xa0\u3000\ufeffé€😀"
PLACEHOLDER = st.sampled_from(["{int}", "{num}", "{hex}", "{pci}", "{word}", "{token}", "{*}"])
LITERAL = st.text(alphabet=ALPHABET + "{}", min_size=1, max_size=12).map(
    lambda s: s.replace("{", "{{").replace("}", "}}")
)


@st.composite
def patterns(draw: st.DrawFn) -> str:
    parts = [draw(LITERAL)]
    for _ in range(draw(st.integers(0, 4))):
        parts.append(draw(PLACEHOLDER))
        parts.append(draw(LITERAL))
    if draw(st.booleans()):
        parts[0] = "NCCL WARN " + parts[0]  # usually long enough to have an anchor
    return "".join(parts)


def unescape(literal: str) -> str:
    return literal.replace("{{", "{").replace("}}", "}")


@st.composite
def pattern_and_lines(draw: st.DrawFn) -> tuple[str, list[str]]:
    pattern = draw(patterns())
    # Lines made from the pattern's own literals and random fillers: many near misses.
    pieces = [unescape(p) for p in pattern.replace("{{", "\x01").replace("}}", "\x02").split("{")]
    fragments = [p.replace("\x01", "{").replace("\x02", "}").split("}")[-1] for p in pieces]
    filler = st.text(alphabet=ALPHABET, max_size=6)
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        bits = []
        for fragment in fragments:
            if draw(st.integers(0, 5)) > 0:
                bits.append(fragment)
            bits.append(draw(filler))
        lines.append("".join(bits))
    lines.append(draw(st.text(alphabet=ALPHABET, max_size=40)))
    return pattern, lines


@SETTINGS
@given(pattern_and_lines())
def test_matchers_agree_on_generated_patterns_and_lines(
    node: Node, case: tuple[str, list[str]]
) -> None:
    pattern, lines = case
    try:
        matcher = Matcher(pattern)
    except PatternError as exc:
        assert node.ask({"op": "match", "pattern": pattern, "lines": lines}) == {"error": str(exc)}
        return
    expected = [matcher.search(line) for line in lines]
    assert node.ask({"op": "match", "pattern": pattern, "lines": lines}) == {"ok": expected}
    assert node.ask({"op": "parse", "pattern": pattern}) == {"anchor": matcher.anchor}


CODE_POINTS = [
    *range(0x3100),  # ASCII, Latin, the spaces of General Punctuation, CJK punctuation
    *(c for c in range(0xFE00, 0x10000) if not 0xD800 <= c < 0xE000),
    0x1F600,
    0x10FFFF,
]


@pytest.mark.parametrize("name", ["int", "num", "hex", "pci", "word", "token"])
def test_every_class_holds_the_same_characters(node: Node, name: str) -> None:
    pattern = f"anchor: {{{name}}} :end"
    lines = [f"anchor: {chr(c)} :end" for c in CODE_POINTS]
    expected = [Matcher(pattern).search(line) for line in lines]
    assert node.ask({"op": "match", "pattern": pattern, "lines": lines}) == {"ok": expected}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_matchers_agree_on_the_catalogs_own_signatures(node: Node, data: st.DataObject) -> None:
    sig = data.draw(st.sampled_from(INDEX.signatures))
    # The signature's literals with generated text between them, and some cut short.
    lits = sig.matcher.literals
    filler = st.text(alphabet=ALPHABET, max_size=8)
    lines = [
        "".join(lit + data.draw(filler) for lit in lits),
        "".join(lit[: data.draw(st.integers(0, len(lit)))] + data.draw(filler) for lit in lits),
    ]
    expected = [sig.matcher.search(line) for line in lines]
    assert node.ask({"op": "match", "pattern": sig.pattern, "lines": lines}) == {"ok": expected}


# --- bytes, lines and paths --------------------------------------------------------------------


@SETTINGS
@given(st.binary(max_size=64))
def test_invalid_utf8_decodes_to_the_same_replacement_characters(node: Node, raw: bytes) -> None:
    answer = node.ask({"op": "decode", "b64": base64.b64encode(raw).decode()})
    assert answer == {"text": raw.decode("utf-8", "replace")}


LINE_HEADS = [
    "[rank{r}]:",
    "[default{r}]:",
    "{r}: ",
    "  {r}: [rank{r}]: ",
    "",
]
STAMPS = [
    "2024-06-26 06:24:44,903 ",
    "[2024-02-29T23:59:60.123456789+05:30] ",
    "2024-12-31T23:30:00-01:00 ",
    "0001-01-01 00:00:00+05:00 ",
    "2023-02-29 10:00:00 ",
    "E0626 06:24:44.903881 ",
    "[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] ",
    "I20240626 06:24:44.9 ",
    "[Tue Jul  2 08:58:41 2024] ",
    "Dec  2 11:38:47 worker4 kernel: ",
    "[  123.456789] ",
    "",
]
TAILS = [
    "gpu-node-02:48215:48395 [1] NCCL INFO x",
    "[PG 3 Rank 5] Watchdog caught",
    "Rank 12: step",
    "FRank 3",
    "loss 2.0",
    "",
]


@st.composite
def log_lines(draw: st.DrawFn) -> str:
    line = (
        draw(st.sampled_from(LINE_HEADS)).format(r=draw(st.integers(0, 1_000_000)))
        + draw(st.sampled_from(STAMPS))
        + draw(st.sampled_from(TAILS))
    )
    # Perturb a few characters: digits, separators, letters.
    for _ in range(draw(st.integers(0, 3))):
        if not line:
            break
        at = draw(st.integers(0, len(line) - 1))
        line = line[:at] + draw(st.sampled_from("0913 :.-+TZ[]ab\u0663")) + line[at + 1 :]
    return line


@SETTINGS
@given(st.lists(log_lines(), min_size=1, max_size=8))
def test_rank_time_and_host_are_read_alike(node: Node, lines: list[str]) -> None:
    expected = [asdict(read_line(line)) for line in lines]
    assert node.ask({"op": "readLine", "texts": lines}) == {"infos": expected}


PATH_PARTS = st.sampled_from(
    ["logs", "rank3", "rank_12", "node2", "attempt_0", "5", "7", "\u00b2", "train", "RANK-4", "x"]
)
PATH_NAMES = st.sampled_from(
    [
        "rank3.log",
        "train-rank-17.out.gz",
        "stdout.log",
        "franky3.log",
        "Rank5.LOG.GZ",
        ".log",
        "x_rank.7.txt",
        "rank1234567.log",
    ]
)


@SETTINGS
@given(st.lists(st.tuples(st.lists(PATH_PARTS, max_size=3), PATH_NAMES), min_size=1, max_size=6))
def test_ranks_from_paths_are_read_alike(node: Node, paths: list[tuple[list[str], str]]) -> None:
    names = ["/".join([*parts, name]) for parts, name in paths]
    names.append(names[0].replace("/", "\\"))
    expected = [rank_from_path(name) for name in names]
    assert node.ask({"op": "rankFromPath", "paths": names}) == {"ranks": expected}


# --- whole logs --------------------------------------------------------------------------------

EXAMPLE_LINES = sorted(
    {line for e in ENTRIES for x in e.examples for line in x.log.splitlines() if line.strip()}
)
BENIGN_LINES = sorted(
    {
        line
        for p in (REPO / "corpus" / "benign").glob("*.log")
        for line in p.read_text(errors="replace").splitlines()
    }
)
BREAKS = st.sampled_from([b"\n", b"\r\n", b"\r", b"\n\n"])


@st.composite
def raw_logs(draw: st.DrawFn) -> bytes:
    out = b""
    for _ in range(draw(st.integers(1, 30))):
        kind = draw(st.integers(0, 9))
        if kind <= 3:
            line = draw(st.sampled_from(EXAMPLE_LINES)).encode()
        elif kind <= 6:
            line = draw(st.sampled_from(BENIGN_LINES)).encode()
        elif kind == 7:
            line = draw(log_lines()).encode()
        elif kind == 8:
            line = draw(st.binary(max_size=30))
        else:
            line = b"x" * draw(st.integers(250, 700))  # over a small line cap
        if draw(st.integers(0, 5)) == 0 and len(line) > 4:
            at = draw(st.integers(0, len(line) - 1))
            line = (
                line[:at]
                + draw(st.sampled_from([b"\x1b[31m", b"\x1b[0m", b"\x1b[", b"\xff"]))
                + line[at:]
            )
        out += draw(st.sampled_from([b"", b"[rank1]:", b"3: ", b"[default0]:"])) + line
        out += draw(BREAKS)
    if draw(st.booleans()):
        out = out.rstrip(b"\r\n")
    return out


def python_run(logs: list[tuple[str, bytes]], chunk: int, cap: int) -> dict[str, Any]:
    index = SignatureIndex(replace(INDEX_DATA, max_line_bytes=cap))
    saved = scan.CHUNK_BYTES
    scan.CHUNK_BYTES = chunk
    try:
        return python_result(index, logs)
    finally:
        scan.CHUNK_BYTES = saved


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(raw_logs(), min_size=1, max_size=3),
    st.sampled_from([7, 64, 300, 4 << 20]),
    st.sampled_from([256, 65536]),
)
def test_whole_logs_diagnose_alike_in_blocks_of_any_size(
    node: Node, raws: list[bytes], chunk: int, cap: int
) -> None:
    logs = [(f"logs/rank{i}.log" if i else "train.log", raw) for i, raw in enumerate(raws)]
    expected = python_run(logs, chunk, cap)
    answer = node.ask(
        {
            "op": "diagnose",
            "index": {**INDEX_JSON, "max_line_bytes": cap},
            "logs": [{"name": n, "b64": base64.b64encode(r).decode()} for n, r in logs],
            "chunk": chunk,
        }
    )
    assert answer == expected


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(raw_logs(), min_size=1, max_size=2),
    st.sampled_from([7, 300, 4 << 20]),
    st.sampled_from([1, 3, 64]),
)
def test_pasted_text_diagnoses_as_its_utf8_bytes(
    node: Node, raws: list[bytes], chunk: int, text_slice: int
) -> None:
    """A paste reaches the engine as a string, encoded a slice at a time; the verdict is that
    of its UTF-8 bytes, whatever the slice (an astral character is never split)."""
    texts = [raw.decode("utf-8", "replace") + "\U0001f600" * 3 for raw in raws]
    logs = [(f"rank{i}.log", text.encode()) for i, text in enumerate(texts)]
    expected = python_run(logs, chunk, 65536)
    answer = node.ask(
        {
            "op": "diagnose",
            "index": INDEX_JSON,
            "logs": [{"name": f"rank{i}.log", "text": t} for i, t in enumerate(texts)],
            "chunk": chunk,
            "textSlice": text_slice,
        }
    )
    assert answer == expected


STORM_LINES = [
    *[line for line in EXAMPLE_LINES if "Watchdog caught" in line or "OutOfMemory" in line][:6],
    "Traceback (most recent call last):",
    '  File "train.py", line 9, in <module>',
    "ValueError: same again",
    "  rank      : 2 (local_rank: 2)",
    "  exitcode  : -11 (pid: 4242)",
    "Root Cause (first observed failure):",
    "[2024-06-26 06:24:41,000] INFO start",
    "gpu-node-03:4242:4300 [2] NCCL INFO Using network IB",
]


@st.composite
def storms(draw: st.DrawFn) -> bytes:
    """Runs of identical lines (a storm), with the lines between that they inherit a time or
    host from, tracebacks that end in the line they repeat, and launcher summaries."""
    out = b""
    for _ in range(draw(st.integers(1, 12))):
        prefix = draw(st.sampled_from([b"", b"[rank1]:", b"[rank7]: ", b"3: "]))
        line = prefix + draw(st.sampled_from(STORM_LINES)).encode()
        brk = draw(st.sampled_from([b"\n", b"\n", b"\r\n", b"\r"]))
        out += (line + brk) * draw(st.sampled_from([1, 2, 3, 40, 200]))
    return out


def python_scan(logs: list[tuple[str, bytes]], chunk: int) -> list[dict[str, Any]]:
    import io

    saved = scan.CHUNK_BYTES
    scan.CHUNK_BYTES = chunk
    try:
        scanner = scan.Scanner(INDEX)
        matches = []
        for number, (name, raw) in enumerate(logs):
            found = scanner.scan(
                io.BytesIO(raw).read,
                name,
                number,
                scan.ScanStats(),
                [],
                file_rank=rank_from_path(name),
            )
            matches += [asdict(m) for m in found]
        result: list[dict[str, Any]] = json.loads(json.dumps(matches))
        return result
    finally:
        scan.CHUNK_BYTES = saved


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(storms(), min_size=1, max_size=2), st.sampled_from([97, 4096, 4 << 20]))
def test_storms_scan_to_the_same_matches_and_repeats(
    node: Node, raws: list[bytes], chunk: int
) -> None:
    """Issue 15, defect 6: a line repeated in a row is one match with its `repeat` in both
    engines, each match with the same line, offset, time and host as Python's, and the
    diagnosis is the same."""
    logs = [(f"rank{i}.log", raw) for i, raw in enumerate(raws)]
    encoded = [{"name": n, "b64": base64.b64encode(r).decode()} for n, r in logs]
    expected = python_scan(logs, chunk)
    got = node.ask({"op": "scan", "index": INDEX_JSON, "logs": encoded, "chunk": chunk})
    assert got == {"matches": expected}
    assert node.ask(
        {"op": "diagnose", "index": INDEX_JSON, "logs": encoded, "chunk": chunk}
    ) == python_run(logs, chunk, 65536)


WATCHDOG = next(line for line in EXAMPLE_LINES if "Watchdog caught" in line)


@st.composite
def interleaved_storms(draw: st.DrawFn) -> bytes:
    """Many ranks' matches interleaved, as a watchdog storm prints them: the look-backs the
    sweep answers (scan.py's _Sweep, scan.js's Sweep). Lines that say a rank's time or host,
    or neither, stand between them, a few or more than SWEEP_GAP at a time, with empty lines,
    CRs, copies in a row, and long lines that put a window's 64 KiB floor inside a line."""
    ranks = draw(st.integers(1, 80))
    out = []
    for _ in range(draw(st.integers(1, 400))):
        r = draw(st.integers(0, ranks - 1))
        second = draw(st.integers(0, 59))
        kind = draw(
            st.sampled_from(["match"] * 6 + ["time", "host", "both", "plain", "blank", "long"])
        )
        if kind == "match":
            body = draw(st.sampled_from([WATCHDOG, *STORM_LINES[:6]]))
            line = (
                f"[rank{r}]:"
                + draw(st.sampled_from(["", " ", f"[E626 06:24:{second:02d}.5 x.cc:1] "]))
                + body
            )
        elif kind == "time":
            line = f"[rank{r}]:[2024-06-26 06:24:{second:02d},000] INFO step"
        elif kind == "host":
            line = f"[rank{r}]:gpu-node-{r % 7:02d}:4242:4300 [2] NCCL INFO Using network IB"
        elif kind == "both":
            host = f"gpu-node-{r % 7:02d}:42:43 [0]"
            line = f"[rank{r}]:2024-06-26 06:24:{second:02d} {host} NCCL INFO x"
        elif kind == "plain":
            line = f"[rank{r}]: loss 2.{second}"
        elif kind == "blank":
            line = ""
        else:
            line = f"[rank{r}]: " + "x" * draw(st.sampled_from([600, 9000, 30000]))
        brk = draw(st.sampled_from(["\n"] * 8 + ["\r\n", "\r"]))
        out.append((line + brk) * draw(st.sampled_from([1, 1, 1, 2, 70])))
    return "".join(out).encode()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(interleaved_storms())
def test_interleaved_storms_look_back_alike(node: Node, raw: bytes) -> None:
    """Every match of many ranks' interleaved lines has the time and host Python's has: what
    the sweep answers is what the walk would find, in one block and in blocks smaller than the
    log (where a walk near a block's start reaches back into the block before)."""
    logs = [("train.log", raw)]
    encoded = [{"name": n, "b64": base64.b64encode(r).decode()} for n, r in logs]
    for chunk in (97, 4096, 70_000, 4 << 20):
        expected = python_scan(logs, chunk)
        got = node.ask({"op": "scan", "index": INDEX_JSON, "logs": encoded, "chunk": chunk})
        assert got == {"matches": expected}, chunk


def test_a_match_64_lines_back_lends_its_time_alike(node: Node) -> None:
    """The sweep's edge: rank 0's second match is LOOKBACK_LINES lines after its first, the last
    line its look-back reaches, so it takes the time its first match took (from a line that is
    itself out of reach)."""
    raw = (
        "[rank0]:[2024-06-26 06:24:41,000] INFO step\n"
        + "".join(f"[rank{r}]:{WATCHDOG}\n" for r in range(64))
        + f"[rank0]:{WATCHDOG}\n"
    ).encode()
    logs = [("train.log", raw)]
    encoded = [{"name": n, "b64": base64.b64encode(r).decode()} for n, r in logs]
    expected = python_scan(logs, 4 << 20)
    times = [(m["line"], m["time"]["text"] if m["time"] else None) for m in expected]
    assert times == [(2, "2024-06-26T06:24:41.000"), *((line, None) for line in range(3, 66)),
                     (66, "2024-06-26T06:24:41.000")]  # fmt: skip
    for chunk in (97, 4 << 20):
        got = node.ask({"op": "scan", "index": INDEX_JSON, "logs": encoded, "chunk": chunk})
        assert got == {"matches": python_scan(logs, chunk)}, chunk


def test_lines_read_without_the_line_cache_read_as_with_it(node: Node) -> None:
    """A storm of distinct lines fills scan.js's line cache without one hit, and the lines after
    it are read without the cache for a while (Scanner.uncached): among them lines that repeat,
    a launcher's summary whose lines carry state, and lines whose time and host the matches
    inherit. Every match is Python's, whose cache never stands aside."""
    distinct = [
        f"[rank{i % 100}]:[E626 06:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d} x.cc:1] {WATCHDOG}"
        for i in range(4500)
    ]
    again = []
    for i in range(3000):
        r = i % 50
        if i % 7 == 0:
            again.append(f"[rank{r}]:[2024-06-26 06:24:{i % 60:02d},000] INFO step")
        elif i % 11 == 0:
            again.append(f"[rank{r}]:gpu-node-{r % 7:02d}:4242:4300 [2] NCCL INFO Using network IB")
        else:
            again.append(f"[rank{r}]: {STORM_LINES[i % 6]}")
    summary = [
        "[default0]:torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2024-06-26_06:25:11",
        "  host      : gpu-node-03",
        "  rank      : 3 (local_rank: 3)",
        "  exitcode  : -6 (pid: 4242)",
        "  error_file: <N/A>",
    ]
    raw = ("\n".join(distinct + again + summary + again[:500]) + "\n").encode()
    logs = [("train.log", raw)]
    encoded = [{"name": n, "b64": base64.b64encode(r).decode()} for n, r in logs]
    for chunk in (4096, 4 << 20):
        expected = python_scan(logs, chunk)
        got = node.ask(
            {"op": "scan", "index": INDEX_JSON, "logs": encoded, "chunk": chunk, "uncached": True}
        )
        # The cache stood aside to the log's end: every line after the distinct ones was read
        # without it.
        assert got["uncached"] > 0, chunk
        assert got == {"matches": expected, "uncached": got["uncached"]}, chunk
        # The exit code's line takes its rank from the `rank :` line before it.
        assert [m["launch"]["rank"] for m in expected if m["launch"] is not None] == [3]
        later = expected[4500:]
        assert len({m["text"] for m in later}) * 10 < len(later)  # lines that repeat


def test_300000_identical_lines_are_a_few_matches_in_both_engines(node: Node) -> None:
    """(The million of bench/diagnose.py goes through Chromium in test_diagnose_parity.py.)"""
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
        "total capacity of 79.15 GiB of which 12.33 GiB is free."
    )
    raw = b"[rank2]:[2024-06-26 06:24:41,000] INFO start\n"
    raw += f"[rank2]: {oom}\n".encode() * 300_000
    logs = [("train.log", raw)]
    encoded = [{"name": n, "b64": base64.b64encode(r).decode()} for n, r in logs]
    expected = python_scan(logs, 4 << 20)
    # One match per 4 MiB block (a run ends where a block does), standing for all its lines.
    assert sum(m["repeat"] for m in expected) == 300_000
    assert len(expected) == -(-len(raw) // (4 << 20))
    assert {(m["text"], m["rank"], m["time"]["text"]) for m in expected} == {
        (f"[rank2]: {oom}", 2, "2024-06-26T06:24:41.000")
    }
    got = node.ask({"op": "scan", "index": INDEX_JSON, "logs": encoded})
    assert got == {"matches": expected}


def test_the_copied_report_is_the_command_lines_markdown_with_masking(node: Node) -> None:
    """Where a report holds nothing to mask, the browser's Markdown is `trainwreck diagnose
    --format markdown`'s, plus one line saying what is masked; elsewhere it differs only there."""
    from generator.diagnose.report import markdown_report, stats_notes

    base = "https://trainwreck.example/"
    footer = "_IP addresses, host names, e-mail addresses and token-like strings are masked._\n"
    compared = masked = 0
    for entry in ENTRIES:
        for number, example in enumerate(entry.examples):
            name = f"{entry.id} examples[{number}]"
            run = diagnose_logs(INDEX, [LogBytes(name, example.log.encode())])
            notes = stats_notes(run.stats, INDEX.max_line_bytes)
            expected = markdown_report(run.diagnosis, run.stats, base, notes)
            answer = node.ask(
                {
                    "op": "markdown",
                    "index": INDEX_JSON,
                    "logs": [
                        {"name": name, "b64": base64.b64encode(example.log.encode()).decode()}
                    ],
                    "baseUrl": base,
                }
            )
            got = answer["markdown"]
            assert got.endswith(footer)
            got = got[: -len(footer)]
            # Placeholders stand as they are in code, escaped (\<host-1\>) in Markdown text.
            if any(
                f"<{kind}-1>" in got or f"\\<{kind}-1\\>" in got
                for kind in ("ip", "host", "email", "token")
            ):
                masked += 1
                assert got.splitlines()[:3] == expected.splitlines()[:3]
                continue
            compared += 1
            assert got == expected, name
    assert compared > 40 and masked > 0


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (
            "NVRM: Xid (PCI:{int 79, ",
            "placeholder {int is not closed; end it with } or write {{ for a literal brace",
        ),
        (
            "NVRM: Xid {",
            "placeholder { is not closed; end it with } or write {{ for a literal brace",
        ),
        (
            "NVRM: Xid {" + "p" * 300 + "}",
            "unknown placeholder {ppppppppppppppppppp... (302 characters); use one of {int}, "
            "{num}, {hex}, {pci}, {word}, {token}, {*}, or {{ for a literal brace",
        ),
    ],
)
def test_a_refused_pattern_gives_one_reason_in_both_engines(
    node: Node, pattern: str, reason: str
) -> None:
    with pytest.raises(PatternError) as info:
        Matcher(pattern)
    assert str(info.value) == reason
    assert node.ask({"op": "parse", "pattern": pattern}) == {"error": reason}


def test_utf16_logs_without_a_bom_are_named_alike(node: Node) -> None:
    text = "[rank0]: RuntimeError: NCCL error\n"
    logs = [("le.log", text.encode("utf-16-le")), ("be.log", text.encode("utf-16-be"))]
    expected = python_run(logs, 4 << 20, 65536)
    assert expected["problems"] == [
        {
            "file": "le.log",
            "message": "is UTF-16 text without a BOM; convert it to UTF-8 first "
            "(iconv -f UTF-16LE -t UTF-8)",
            "kind": "binary",
        },
        {
            "file": "be.log",
            "message": "is UTF-16 text without a BOM; convert it to UTF-8 first "
            "(iconv -f UTF-16BE -t UTF-8)",
            "kind": "binary",
        },
    ]
    answer = node.ask(
        {
            "op": "diagnose",
            "index": INDEX_JSON,
            "logs": [{"name": n, "b64": base64.b64encode(r).decode()} for n, r in logs],
        }
    )
    assert answer == expected


def test_a_line_the_window_floor_cuts_is_read_by_neither_engine(node: Node) -> None:
    """tests/diagnose/test_scan_edges.py's log: the last match's 64 KiB window begins inside a
    line whose head from the floor holds a time. Neither engine reads a line the floor cuts, so
    both give the last match no time, whatever their look-back caches kept."""
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
        "total capacity of 79.15 GiB of which 12.33 GiB is free."
    )
    lines = ["[rank1]: " + "a" * 600 + " 2024-06-26 06:30:00,000 " + "b" * 400]
    lines += ["[rank1]: " + oom] + ["[rank2]: " + "c" * 1070] * 60 + [oom]
    logs = [("train.log", ("\n".join(lines) + "\n").encode())]
    encoded = [{"name": n, "b64": base64.b64encode(r).decode()} for n, r in logs]
    expected = python_scan(logs, 4 << 20)
    assert [(m["line"], m["stream"], m["time"]) for m in expected] == [
        (2, 1, None),
        (63, None, None),
    ]
    assert node.ask({"op": "scan", "index": INDEX_JSON, "logs": encoded}) == {"matches": expected}
