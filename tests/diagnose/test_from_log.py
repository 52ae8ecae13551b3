"""`trainwreck new ID --category C --from-log FILE`: an entry drafted from a log's error line.

The draft holds the lines around the error (as `observed` and one example), and one defining
signature made from the error line with its hex numbers, paths and numbers as placeholders. The
prose, the example's URL and the signature's `seen_in` stay empty, so `validate` fails on
exactly those until the editor writes them.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli import main
from generator.scaffold import draft_signature, skeleton

LOG = (
    "[rank0]: step 3\n"
    "[rank0]: Traceback (most recent call last):\n"
    '[rank0]:   File "/opt/app/train.py", line 42, in <module>\n'
    "[rank0]: RuntimeError: pointer 0x7f3a2c00 from /opt/app/ext.so is misaligned by 3.5 words "
    "{align=16}\n"
)
AROUND = LOG.splitlines()
PATTERN = "RuntimeError: pointer {hex} from {token} is misaligned by {num} words {{align={int}}}"


def expected_file(today: dt.date) -> str:
    text = skeleton("ext-misaligned", "framework", today)
    observed = "observed: |\n" + "".join(f"  {line}\n" for line in AROUND)
    signature = (
        "# Drafted from logs/job.log:4 (python-exception); check it against the\n"
        "# upstream source, keep the words that name this failure, and set seen_in.\n"
        f'signatures:\n  - pattern: "{PATTERN}"\n    role: defining\n    seen_in: ""\n'
    )
    example = (
        "# From logs/job.log:4; set url to the public thread it was posted in.\n"
        'examples:\n  - url: ""\n    log: |\n' + "".join(f"      {line}\n" for line in AROUND)
    )
    text = text.replace('observed: ""\n', observed)
    text = text.replace("signatures: []\n", signature)
    return text.replace("examples: []\n", example)


def test_from_log_drafts_the_skeleton_and_validate_names_what_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "job.log").write_text(LOG)
    args = ["new", "ext-misaligned", "--category", "framework", "--from-log", "logs/job.log"]
    assert main(args) == 0
    target = Path("entries/framework/ext-misaligned.yaml")
    assert target.read_text() == expected_file(dt.date.today())
    capsys.readouterr()
    assert main(["validate", target.as_posix()]) == 1
    where = target.as_posix()
    assert capsys.readouterr().out.splitlines() == [
        f"{where}:7:8: error [schema] title: must not be empty — write what a reader searches "
        "for, usually the error as printed",
        f"{where}:10:7: error [schema] tags: needs at least 1 item — write one to eight "
        "kebab-case tags, the ways in besides the category",
        f"{where}:16:10: error [schema] summary: must not be empty — write the quick answer, one "
        "to three sentences",
        f"{where}:18:12: error [schema] quick_fix: must not be empty — write the first action to "
        "take, in one line (code spans and emphasis only)",
        f"{where}:20:10: error [schema] symptom: must not be empty — write what the engineer sees "
        "when it happens",
        f"{where}:22:13: error [schema] root_cause: must not be empty — write what actually broke",
        f"{where}:25:17: error [schema] mechanism.mistaken_for: must not be empty — write what "
        "people usually blame for this failure",
        f"{where}:27:13: error [schema] mechanism.actually: must not be empty — write what is "
        "really happening, step by step",
        f"{where}:37:11: error [schema] symptoms: needs at least 1 item — write rows of the "
        "symptom table: a symptom and why it happens",
        f"{where}:39:19: error [schema] affected_systems: needs at least 1 item — write hardware, "
        "software and setups where it happens",
        f"{where}:44:10: error [schema] confirm: needs at least 1 item — write a checklist of real "
        "commands, what to look for, and whether root is needed",
        f"{where}:55:14: error [schema] signatures[0].seen_in: must be an https:// URL with no "
        "spaces or quotes",
        f"{where}:65:6: error [schema] fix: needs at least 1 item — write ordered steps to fix it, "
        "with commands and code per stack where they differ",
        f"{where}:67:13: error [schema] prevention: needs at least 1 item — write what stops it "
        "from happening again",
        f"{where}:80:13: error [schema] references: needs at least 1 item — write upstream docs "
        "and issue threads you have read (https URLs)",
        f"{where}:91:10: error [schema] examples[0].url: must be an https:// URL with no spaces "
        "or quotes",
        f"{where}:100:6: error [schema] faq: needs at least 3 items — write three to six "
        "questions people ask, answered for this failure",
    ]


def test_a_log_with_no_error_line_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("ok.log").write_text("[rank0]: step 1 | loss 2.3\n")
    assert main(["new", "x-y", "--category", "framework", "--from-log", "ok.log"]) == 2
    assert capsys.readouterr().err == (
        "trainwreck: ok.log: no line in it states an error (no traceback, signal, Xid or error "
        "line)\n"
    )
    assert not Path("entries").exists() or not any(Path("entries").rglob("*.yaml"))


MAIN = "import sys; from generator.cli import main; sys.exit(main())"
NEW_FROM_FIFO = ["new", "x-y", "--category", "framework", "--from-log", "pipe.log"]


def test_a_fifo_is_refused_rather_than_waited_on(tmp_path: Path) -> None:
    """The draft reads its log twice, and a FIFO's second open would wait for a writer forever.
    Run apart, with a deadline: a hang is the defect this guards against."""
    os.mkfifo(tmp_path / "pipe.log")
    done = subprocess.run(
        [sys.executable, "-c", MAIN, *NEW_FROM_FIFO],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "trainwreck: pipe.log: not a regular file (a pipe is read only once); save the log to a "
        "file\n",
    )
    assert not (tmp_path / "entries").exists()


@pytest.mark.parametrize(
    ("line", "pattern"),
    [
        ("KeyError: 'input_ids'", "KeyError: 'input_ids'"),
        (
            "CUDA error: no kernel image for sm_80 (fp16)",
            "CUDA error: no kernel image for sm_80 (fp16)",
        ),
        (
            "2024-06-28 09:31:19 error: task 3 at C:/x/y.py exited",
            "error: task {int} at {token} exited",
        ),
        (
            "ValueError: shapes (64x512) and (256x10)",
            "ValueError: shapes ({int}x{int}) and ({int}x{int})",
        ),
    ],
)
def test_draft_signature_turns_variable_parts_into_placeholders(line: str, pattern: str) -> None:
    assert draft_signature(line) == pattern


def test_a_gzip_bomb_is_drafted_from_in_bounded_memory(tmp_path: Path) -> None:
    """Issue 39, defect 3: the draft read the whole log (a 1 MB bomb took it to 5.5 GB); it now
    streams the log twice, as `diagnose` does, keeping only the lines it quotes."""
    import gzip
    import os
    import re
    import subprocess
    import sys

    from tests.diagnose.peak_rss import MAX_RSS_MIB, RUN

    bomb = tmp_path / "job.log.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as handle:
        handle.write(LOG.encode())
        line = b"0" * (1 << 20) + b"\n"
        for _ in range(1500):
            handle.write(line)
    assert bomb.stat().st_size < 4 << 20
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            RUN,
            "new",
            "ext-misaligned",
            "--category",
            "framework",
            "--from-log",
            str(bomb),
        ],
        capture_output=True,
        cwd=tmp_path,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    rss_mib = int(re.findall(r"MAXRSS (\d+)", err)[-1]) // 1024
    assert rss_mib < MAX_RSS_MIB, f"peak RSS {rss_mib} MiB"
    drafted = (tmp_path / "entries" / "framework" / "ext-misaligned.yaml").read_text()
    assert f'  - pattern: "{PATTERN}"' in drafted
    assert drafted.count("0" * 4096) == 4  # the two lines after it, in observed and the example
    assert "0" * 4097 not in drafted


def test_a_draft_always_loads_whatever_the_log_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39, defect 8: colour codes, an OSC link, NUL and a right-to-left override were
    copied raw into the draft, a 1 MB line made a 1 MB signature, and an emoji was written as a
    pair of surrogate escapes; each made a draft its own loader refused."""
    from generator.loading.yaml_source import load_yaml

    osc = "\x1b]8;;https://x.example\x07link\x1b]8;;\x07"
    log = (
        f"\x1b[31mstep 3 {osc}\x1b[0m \u202egnirts\u202c nul\x00here\tcol \U0001f4a5\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/app/train.py", line 42, in <module>\n'
        f"\x1b[1;31mRuntimeError: boom \U0001f4a5 \u202eevil\u202c " + "x" * (1 << 20) + "\x1b[0m\n"
    )
    (tmp_path / "job.log").write_bytes(log.encode())
    monkeypatch.chdir(tmp_path)
    assert main(["new", "boom", "--category", "framework", "--from-log", "job.log"]) == 0
    raw = (tmp_path / "entries" / "framework" / "boom.yaml").read_bytes()
    assert len(raw) < 64 << 10
    data = load_yaml(raw).data
    # The first 200 characters of the shown line, its digits as placeholders.
    shown = "RuntimeError: boom \U0001f4a5 [U+202E]evil[U+202C] "
    assert data["signatures"][0]["pattern"] == (
        "RuntimeError: boom \U0001f4a5 [U+{int}E]evil[U+{int}C] " + "x" * (200 - len(shown))
    )
    assert data["observed"].splitlines()[0] == (
        "step 3 link [U+202E]gnirts[U+202C] nul[U+0000]here\tcol \U0001f4a5"
    )
