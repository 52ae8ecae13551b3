"""Parity: the browser engine in headless Chromium gives the Python engine's verdict.

One corpus runs through both: every entry's examples (one log each, named as the
`example-diagnosis` check names them), each healthy log of corpus/benign/, and each multi-rank
fixture set of the diagnosis engine (tests/fixtures/logs/<set>/, one file per rank), each launcher
log of tests/fixtures/launchers/ (torchrun, srun, mpirun, DeepSpeed; an unknown exception with
NCCL collateral), and those logs again inside every paste wrapper of tests/diagnose/pastes.py.
Both read the
site's published /signatures.json. The browser side runs in the page's real Web Worker; the
results must be identical: the ids, roles, first failed rank, and file and line of each first
hit, and beyond those the whole JSON report (counts, ranks, times, matched text) and the line
counts. Two more cases push the streaming code: a rank's log compressed with gzip (decompressed
by Chromium's DecompressionStream), and a generated multi-rank log of several 4 MiB blocks with
long lines, carriage returns, colour codes and invalid UTF-8.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.catalog import Catalog
from tests.browser.diagnose_support import (
    REPO,
    Logs,
    brief,
    browser_results,
    python_result,
    python_stream_result,
    site_index,
)
from tests.diagnose.pastes import WRAPPERS

pytestmark = pytest.mark.browser

FIXTURES = REPO / "tests" / "fixtures" / "logs"
LAUNCHERS = REPO / "tests" / "fixtures" / "launchers"


def corpus(catalog: Catalog) -> list[tuple[str, Logs]]:
    cases: list[tuple[str, Logs]] = []
    for entry in catalog.entries:
        for number, example in enumerate(entry.examples):
            name = f"{entry.id} examples[{number}]"
            cases.append((name, [(name, example.log.encode())]))
    for path in sorted((REPO / "corpus" / "benign").glob("*.log")):
        cases.append((f"benign/{path.name}", [(path.name, path.read_bytes())]))
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        logs = [(f.relative_to(FIXTURES).as_posix(), f.read_bytes()) for f in files]
        cases.append((f"fixtures/{folder.name}", logs))
    for path in sorted(p for p in LAUNCHERS.iterdir() if p.suffix != ".md"):
        cases.append((f"launchers/{path.name}", [(path.name, path.read_bytes())]))
        for wrapper, wrap in sorted(WRAPPERS.items()):
            cases.append(
                (f"launchers/{path.name} {wrapper}", [(path.name, wrap(path.read_bytes()))])
            )
    return cases


def test_the_browser_engine_gives_the_python_verdict_on_the_whole_corpus(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    site, url = site_dir
    index = site_index(site)
    cases = corpus(catalog)
    expected = [python_result(index, logs) for _, logs in cases]
    got = browser_results(page, url, [logs for _, logs in cases])
    names = [name for name, _ in cases]
    # The fields the issue names first, for a readable failure; then everything.
    assert dict(zip(names, map(brief, got), strict=True)) == dict(
        zip(names, map(brief, expected), strict=True)
    )
    assert dict(zip(names, got, strict=True)) == dict(zip(names, expected, strict=True))
    # The corpus is not trivially empty: examples name their entries, benign logs nothing.
    found = {n: [f["id"] for f in r["json"]["findings"]] for n, r in zip(names, got, strict=True)}
    roles = {
        n: {f["id"]: f["role"] for f in r["json"]["findings"]}
        for n, r in zip(names, got, strict=True)
    }
    # An entry about a harmless line shows in its example as not the cause, after the rest.
    harmless = {
        e.id
        for e in catalog.entries
        if e.signatures and all(s.role.value in ("harmless", "context") for s in e.signatures)
    }
    assert sum(1 for name in names if " examples[" in name) >= len(catalog.entries)
    for name, ids in found.items():
        if " examples[" in name:
            owner = name.split(" ")[0]
            if owner in harmless:
                assert roles[name].get(owner) == "not-the-cause", name
            else:
                assert ids and ids[0] == owner, name
        if name.startswith("benign/"):
            # Healthy logs name no failure; harmless lines they print show as not the cause.
            assert set(roles[name].values()) <= {"not-the-cause"}, name
    storm = got[names.index("fixtures/storm")]["json"]
    assert storm["first_failed_rank"] == 5
    unknown = got[names.index("launchers/unknown-exception-rank3.log")]["json"]
    assert unknown["first_failed_rank"] == 3
    assert [u["text"] for u in unknown["unrecognized"]] == ["[rank3]: KeyError: 'input_ids'"]
    segv = got[names.index("launchers/torchrun-2-gloo-sigsegv.log")]["json"]
    assert (segv["first_failed_rank"], segv["launcher"][0]["signal"]) == (2, "SIGSEGV")
    assert page.errors == []


def test_a_gzip_rank_log_is_decompressed_in_the_browser(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
) -> None:
    site, url = site_dir
    index = site_index(site)
    files = sorted((FIXTURES / "storm").glob("*.log"))
    plain = [(f"storm/{f.name}", f.read_bytes()) for f in files]
    packed = [
        (f"{name}.gz", gzip.compress(raw)) if name.endswith("rank5.log") else (name, raw)
        for name, raw in plain
    ]
    # Python's in-memory engine takes decompressed bytes (the command line decompresses them).
    expected = python_result(
        index, [(n, gzip.decompress(r) if n.endswith(".gz") else r) for n, r in packed]
    )
    (got,) = browser_results(page, url, [packed])
    assert got == expected
    assert got["json"]["first_failed_rank"] == 5
    assert got["json"]["findings"][0]["first"]["file"] == "storm/rank5.log.gz"


def test_gzip_members_padding_and_junk_read_as_python_reads_them(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
) -> None:
    """Chromium's DecompressionStream fails on any byte after a gzip member and drops the
    output it had queued; the engine still gives every byte of every member, and then the
    problem Python gives, word for word (issue 15, defect 19)."""
    site, url = site_dir
    index = site_index(site)
    files = sorted((FIXTURES / "storm").glob("*.log"))
    plain = [(f"storm/{f.name}", f.read_bytes()) for f in files]
    rank5 = dict(plain)["storm/rank5.log"]
    # Lines before the failure that compress 100:1, so the piece holding the member's end
    # expands to far more than one output buffer.
    filler = b"".join(b"[rank5]: step %d loss 1.25\n" % (i % 1000) for i in range(100_000))
    member = gzip.compress(filler + rank5)
    half = len(filler) // 2
    variants = {
        "junk": member + b"this is not gzip\n",
        "padding then junk": member + b"\0" * 100 + b"x",
        "two members and padding": gzip.compress(filler[:half])
        + gzip.compress(filler[half:] + rank5)
        + b"\0" * 40_000,
        "truncated": member[: len(member) - 20],
    }
    sets = [
        [(f"{n}.gz", packed) if n.endswith("rank5.log") else (n, r) for n, r in plain]
        for packed in variants.values()
    ]
    expected = [python_stream_result(index, logs) for logs in sets]
    got = browser_results(page, url, sets)
    assert dict(zip(variants, got, strict=True)) == dict(zip(variants, expected, strict=True))
    junk = (
        "gzip data is followed by bytes that are not gzip (from byte {:,}); the lines before "
        "them were diagnosed"
    )
    assert [r["problems"] for r in expected] == [
        [{"file": "storm/rank5.log.gz", "message": junk.format(len(member)), "kind": "read"}],
        [{"file": "storm/rank5.log.gz", "message": junk.format(len(member) + 100), "kind": "read"}],
        [],
        [
            {
                "file": "storm/rank5.log.gz",
                "message": "gzip data ends early (a truncated file); the lines before the cut "
                "were diagnosed",
                "kind": "read",
            }
        ],
    ]
    whole = len(b"".join(r for _, r in plain)) + len(filler)
    assert [r["stats"]["bytes"] for r in expected[:3]] == [whole] * 3
    assert [r["json"]["first_failed_rank"] for r in got[:3]] == [5] * 3
    assert page.errors == []


def big_log(catalog: Catalog, seed: int, size: int) -> bytes:
    """Several blocks of multi-rank log: example and benign lines, long lines, CR, ANSI."""
    rng = random.Random(seed)
    examples = [
        line
        for e in catalog.entries
        for x in e.examples
        for line in x.log.splitlines()
        if line.strip()
    ]
    benign = [
        line
        for p in sorted((REPO / "corpus" / "benign").glob("*.log"))
        for line in p.read_text(errors="replace").splitlines()
    ]
    out = bytearray()
    second = 0
    while len(out) < size:
        second += 1
        stamp = (
            f"2024-06-26 06:{(second // 60) % 60:02d}:{second % 60:02d},{rng.randrange(1000):03d}"
        )
        rank = rng.randrange(16)
        kind = rng.random()
        if kind < 0.002:
            line = "x" * rng.randrange(60_000, 200_000) + rng.choice(examples)  # past the cap
        elif kind < 0.02:
            line = rng.choice(examples)
        elif kind < 0.03:
            line = "\x1b[31m" + rng.choice(examples) + "\x1b[0m"
        else:
            line = rng.choice(benign)
        raw = f"[rank{rank}]:[{stamp}] {line}".encode()
        if rng.random() < 0.005:
            raw += b" \xff\xfe"
        out += raw + rng.choice([b"\n", b"\n", b"\n", b"\r\n", b"\r"])
    return bytes(out)


class _CorsHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder served on loopback to the site's pages (CORS), for logs too big to pass inline."""
    handler = functools.partial(_CorsHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_log_of_many_blocks_diagnoses_alike(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
    served: tuple[Path, str],
) -> None:
    site, url = site_dir
    folder, files_url = served
    index = site_index(site)
    names = {"job/rank0-7.log": (1, 9 << 20), "job/node1.log": (2, 1 << 20)}
    for name, (seed, size) in names.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(big_log(catalog, seed, size))
    expected: dict[str, Any] = python_result(
        index, [(name, (folder / name).read_bytes()) for name in names]
    )
    (got,) = browser_results(
        page,
        url,
        [[(name, b"") for name in names]],
        served={name: f"{files_url}/{name}" for name in names},
    )
    assert brief(got) == brief(expected)
    assert got == expected
    assert expected["stats"]["longLines"] > 0 and len(expected["json"]["findings"]) > 3


OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
    "total capacity of 79.15 GiB of which 12.33 GiB is free."
)


def storm_logs(catalog: Catalog) -> Logs:
    """Issue 15's inputs, small: ranks of long matching lines (cut at 2,048 characters, one
    with an astral character across the cut), and storms the Python scanner folds (identical
    lines in a row, CRLF ones, a repeated torchrun summary, a traceback ending in the line it
    follows) while the browser reads them line by line."""
    wide = "".join(
        f"[rank{r}]: {OOM} " + "x" * (2040 - len(f"[rank{r}]: {OOM} ")) + "\U0001f600" * 20
        + "y" * 3000 + "\n"
        for r in range(300)
    )  # fmt: skip
    watchdog = next(
        line
        for e in catalog.entries
        if e.id == "nccl-watchdog-timeout"
        for x in e.examples
        for line in x.log.splitlines()
        if "Watchdog caught" in line
    )
    body = watchdog.split("]:", 1)[1] if watchdog.startswith("[rank") else watchdog
    storm = [
        "[rank3]:[2024-06-26 06:24:41,000] INFO start",
        "[rank3]: Traceback (most recent call last):",
        '[rank3]:   File "train.py", line 9, in <module>',
        f"[rank3]: {OOM}",
    ]
    storm += [f"[rank3]: {OOM}"] * 50  # fmt: skip
    for r in range(16):
        storm += [f"[rank{r}]:{body}"] * 30
        storm += [f"[rank{r}]: ValueError: same again\r"] * 3
    storm += ["  rank      : 2 (local_rank: 2)"] * 3 + ["  exitcode  : -11 (pid: 4242)"] * 4
    storm += [OOM] * 5000
    return [("wide.log", wide.encode()), ("storm.log", ("\n".join(storm) + "\n").encode())]


def test_storms_and_wide_lines_diagnose_alike(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    site, url = site_dir
    index = site_index(site)
    logs = storm_logs(catalog)
    expected = python_result(index, logs)
    (got,) = browser_results(page, url, [logs])
    assert got == expected
    findings = expected["json"]["findings"]
    counts = [(f["id"], f["role"], f["count"]) for f in findings]
    assert counts[0] == ("cuda-out-of-memory", "root-cause", 300 + 51 + 5000)
    assert ("nccl-watchdog-timeout", "collateral", 480) in counts
    assert findings[0]["first"]["text"].endswith("\U0001f600\u2026") and expected["notes"] == [
        "1 reported line is longer than 2,048 characters; the report keeps the first 2,048 of "
        "it (3,012 characters left off; in the JSON such a text ends in …)"
    ]


def bench_storms(folder: Path) -> list[tuple[str, Path]]:
    """bench/diagnose.py's storms of issue 15 (defect 6), written to `folder`: a million
    identical OOM lines, 20,000 lines of 1,000 interleaved rank prefixes, watchdog lines
    from 1,000 ranks that are all different (the first 10,000 of them: Python reads each), and
    200,000 lines each from its own rank (every line a new stream)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_diagnose", REPO / "bench" / "diagnose.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    storms: list[tuple[str, Path]] = bench.storm_logs(folder, random.Random(15))
    watchdog = storms[2][1]
    with watchdog.open("rb") as src:
        head = b"".join(src.readline() for _ in range(10_000))
    watchdog.write_bytes(head)
    return storms


def test_storms_diagnose_alike(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
    served: tuple[Path, str],
) -> None:
    site, url = site_dir
    folder, files_url = served
    index = site_index(site)
    storms = bench_storms(folder)
    expected = [python_result(index, [(p.name, p.read_bytes())]) for _, p in storms]
    got = browser_results(
        page,
        url,
        [[(p.name, b"")] for _, p in storms],
        served={p.name: f"{files_url}/{p.name}" for _, p in storms},
    )
    names = [name for name, _ in storms]
    assert dict(zip(names, got, strict=True)) == dict(zip(names, expected, strict=True))
    assert [
        [(f["id"], f["count"], f["ranks"][:3]) for f in r["json"]["findings"]] for r in got
    ] == [
        [("cuda-out-of-memory", 1_000_000, [])],
        [("cuda-out-of-memory", 20_000, [0, 1, 2])],
        [("nccl-watchdog-timeout", 10_000, [0, 1, 2])],
        [("cuda-out-of-memory", 200_000, [0, 1, 2])],
    ]
    assert page.errors == []
