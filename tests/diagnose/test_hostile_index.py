"""`diagnose --index FILE` on files built to hurt: deep nesting, devices, FIFOs, huge files, and
indexes whose every item is wrong. Each is one line on stderr and exit 2, in bounded memory.

The CLI runs in a child with its address space capped (RLIMIT_AS), so that a regression fails
with a MemoryError instead of taking the machine's memory, and reports its own peak RSS (VmHWM).
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from catalog import OOM, index
from peak_rss import MAX_RSS_MIB, RUN

from generator.diagnose.index import index_json

REPO = Path(__file__).resolve().parents[2]
ADDRESS_SPACE = 3 << 30
LOG = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5\n"


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def diagnose(work: Path, index_arg: str) -> tuple[int, str, str, int]:
    """Exit code, stdout, stderr without the RSS line, and the child's peak RSS in MiB."""
    (work / "rank0.log").write_text(LOG)
    proc = subprocess.run(
        [sys.executable, "-c", RUN, "diagnose", "--index", index_arg, "rank0.log"],
        capture_output=True,
        cwd=work,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=_cap_memory,
    )
    err = proc.stderr.decode()
    assert "Traceback" not in err, err
    rss = int(re.findall(r"MAXRSS (\d+)", err)[-1]) // 1024
    err = re.sub(r"MAXRSS \d+\n", "", err)
    return proc.returncode, proc.stdout.decode(), err, rss


def good() -> dict[str, object]:
    return json.loads(index_json(index((OOM,)).data))  # type: ignore[no-any-return]


def test_a_good_index_still_diagnoses(tmp_path: Path) -> None:
    (tmp_path / "signatures.json").write_text(json.dumps(good()))
    rc, out, err, _ = diagnose(tmp_path, "signatures.json")
    assert (rc, err) == (0, "")
    assert out.splitlines()[:4] == [
        "trainwreck diagnose: 1 file, 1 line read",
        "First failed rank: 0 (rank0.log:1)",
        "",
        "ROOT CAUSE  CUDA out of memory  cuda-out-of-memory · severity high",
    ]


def _deep(n: int) -> bytes:
    return b"[" * n + b"]" * n


def _bad_signatures(item: bytes, size: int) -> bytes:
    head = b'{"version": 1, "max_line_bytes": 65536, "entries": {}, "signatures": ['
    count = (size - len(head) - 2) // (len(item) + 1)
    return head + b",".join([item] * count) + b"]}"


NOT_USABLE = "trainwreck: {}: not a usable signature index: "


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        # 100,000 levels: json's C parser recursed until RecursionError (a traceback, exit 1).
        (
            "deep.json",
            _deep(100_000),
            NOT_USABLE + "nests deeper than 32 levels (an index nests 4)",
        ),
        # 32 levels are read (and the extra key refused); brackets in strings do not count.
        (
            "at-limit.json",
            json.dumps({**good(), "extra": json.loads(_deep(31)), "s": "[" * 99}).encode(),
            NOT_USABLE + "extra: Extra inputs are not permitted",
        ),
        (
            "past-limit.json",
            json.dumps({**good(), "extra": json.loads(_deep(32))}).encode(),
            NOT_USABLE + "nests deeper than 32 levels (an index nests 4)",
        ),
        (
            "spaces.json",
            b" " * (5 << 20),
            NOT_USABLE + "larger than 4 MiB, more than an index may be",
        ),
        # 3 MiB of empty objects: a million and a half of them before anything is checked.
        (
            "objects.json",
            _bad_signatures(b"{}", 3 << 20),
            NOT_USABLE + "holds 1,048,555 lists and objects, more than the 100,000 an index "
            "may hold",
        ),
        # 800,000 bad signatures: validated together, they were millions of errors (gigabytes).
        (
            "strings.json",
            _bad_signatures(b'"ab"', 4 << 20),
            NOT_USABLE + "signatures: 838,846 items, more than the 10,000 an index may hold",
        ),
        (
            "one-bad.json",
            json.dumps({**good(), "signatures": [*good()["signatures"], 1]}).encode(),  # type: ignore[misc]
            NOT_USABLE + "signatures.2: Input should be a valid dictionary or instance of "
            "IndexSignature",
        ),
        (
            "digits.json",
            b'{"version": 1, "max_line_bytes": ' + b"9" * 5000 + b"}",
            NOT_USABLE + "not JSON (Exceeds the limit (4300 digits) for integer string "
            "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase "
            "the limit)",
        ),
    ],
)
def test_a_hostile_index_is_one_line_and_exit_2_in_bounded_memory(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    (tmp_path / name).write_bytes(content)
    rc, out, err, rss = diagnose(tmp_path, name)
    assert (rc, out, err) == (2, "", message.format(name) + "\n")
    assert rss < MAX_RSS_MIB, f"peak RSS {rss} MiB"


def test_dev_zero_a_link_to_it_and_a_fifo_are_never_read(tmp_path: Path) -> None:
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo.json")
    for index_arg, message in [
        ("/dev/zero", "a character device"),
        ("zero.json", "a link to /dev/zero, a character device"),
        ("fifo.json", "a FIFO"),  # opened for reading, it would wait for a writer forever
        (str(tmp_path), "a folder"),
    ]:
        rc, out, err, rss = diagnose(tmp_path, index_arg)
        expected = f"trainwreck: {index_arg}: {message}; only regular files are read\n"
        assert (rc, out, err) == (2, "", expected)
        assert rss < MAX_RSS_MIB, f"{index_arg}: peak RSS {rss} MiB"
