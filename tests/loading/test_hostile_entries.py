"""Hostile entry files from the second outside battery (issue 15): each one gives a complete,
placed problem list from every command, never a traceback, a hang or a silent skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from entry_factory import entry_yaml

from generator.cli import main
from generator.loading.fmt import FormatError, format_text
from generator.loading.yaml_source import load_yaml
from generator.validation import SourceFile, validate_sources

REPO = Path(__file__).resolve().parents[2]
DEEP = "a: " + "[" * 400 + "]" * 400 + "\n"  # 800 bytes, 400 levels
TOO_DEEP = (
    "error [yaml-too-deep] lists and mappings are nested more than 32 levels deep; "
    "an entry needs a few"
)


def problems(files: dict[str, str | bytes]) -> list[str]:
    sources = [
        SourceFile(path, text.encode() if isinstance(text, str) else text)
        for path, text in files.items()
    ]
    return [p.text() for p in validate_sources(sources).problems]


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "entries/framework").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_deep_nesting_is_a_placed_problem_in_flow_and_block_style() -> None:
    block = "a:\n" + "".join("  " * level + "b:\n" for level in range(1, 40))
    assert problems({"entries/x/flow.yaml": DEEP, "entries/x/block.yaml": block}) == [
        f"entries/x/block.yaml:33:65: {TOO_DEEP}",
        f"entries/x/flow.yaml:1:35: {TOO_DEEP}",
    ]


def test_nesting_up_to_the_limit_loads() -> None:
    # The root mapping is level 1; 31 lists inside it make 32.
    nested: object = load_yaml(("a: " + "[" * 31 + "]" * 31 + "\n").encode()).data["a"]
    lists = 1
    while nested:
        assert isinstance(nested, list)
        nested, lists = nested[0], lists + 1
    assert (lists, nested) == (31, [])


def test_deep_nesting_in_validate_and_fmt_is_reported_not_raised(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "entries/framework/deep.yaml").write_text(DEEP)
    assert main(["validate"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [f"entries/framework/deep.yaml:1:35: {TOO_DEEP}"]
    assert main(["fmt"]) == 1
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        "entries/framework/deep.yaml:1:35: error [fmt] cannot format: lists and mappings are "
        "nested more than 32 levels deep; an entry needs a few"
    ]
    assert (repo / "entries/framework/deep.yaml").read_text() == DEEP


def test_fmt_refuses_deep_nesting_with_its_place() -> None:
    with pytest.raises(FormatError) as caught:
        format_text(DEEP)
    assert (caught.value.line, caught.value.col) == (1, 35)


def trainwreck(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command in a child, so that a hang fails the test instead of stalling the run;
    stdin is a pipe that stays open, as a terminal would."""
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", *args],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.PIPE,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_fifos_devices_and_links_out_are_placed_problems_never_opened(repo: Path) -> None:
    folder = repo / "entries/framework"
    os.mkfifo(folder / "pipe.yaml")
    (folder / "stdin.yaml").symlink_to("/dev/stdin")
    (folder / "zero.yml").symlink_to("/dev/zero")
    outside = repo.parent / f"{repo.name}-outside.yaml"
    outside.write_text(entry_yaml())
    (folder / "outside.yaml").symlink_to(outside)
    (repo / "entries/gpu-hardware").mkdir()
    (repo / "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml").write_text(entry_yaml())
    done = trainwreck(repo, "validate")
    assert (done.returncode, done.stderr) == (1, "4 problem(s) in 5 file(s)\n")
    assert done.stdout.splitlines() == [
        f"entries/framework/outside.yaml:1:1: error [file-not-regular] a link to {outside}, "
        "outside the repository; only files in it are read",
        "entries/framework/pipe.yaml:1:1: error [file-not-regular] a FIFO; "
        "only regular files are read",
        "entries/framework/stdin.yaml:1:1: error [file-not-regular] a link to /dev/stdin, "
        "outside the repository; only files in it are read",
        "entries/framework/zero.yml:1:1: error [file-not-regular] a link to /dev/zero, "
        "outside the repository; only files in it are read",
    ]
    fmt = trainwreck(repo, "fmt", "--check")
    assert fmt.returncode == 1
    assert sorted(fmt.stderr.splitlines()) == [
        f"entries/framework/outside.yaml:1:1: error [fmt] cannot read: a link to {outside}, "
        "outside the repository; only files in it are read",
        "entries/framework/pipe.yaml:1:1: error [fmt] cannot read: a FIFO; "
        "only regular files are read",
        "entries/framework/stdin.yaml:1:1: error [fmt] cannot read: a link to /dev/stdin, "
        "outside the repository; only files in it are read",
        "entries/framework/zero.yml:1:1: error [fmt] cannot read: a link to /dev/zero, "
        "outside the repository; only files in it are read",
    ]


def test_a_fifo_inside_the_repository_is_refused_by_kind(repo: Path) -> None:
    os.mkfifo(repo / "fifo")
    (repo / "entries/framework/linked.yaml").symlink_to(repo / "fifo")
    done = trainwreck(repo, "validate")
    assert done.stdout.splitlines() == [
        f"entries/framework/linked.yaml:1:1: error [file-not-regular] a link to {repo}/fifo, "
        "a FIFO; only regular files are read"
    ]


def test_an_upper_case_suffix_is_reported_not_skipped(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "entries/framework/x.YAML").write_text(entry_yaml("x"))
    assert main(["validate"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "entries/framework/x.YAML:1:1: error [file-name] entry files end in .yaml, in lower "
        "case; rename it to x.yaml"
    ]
    assert err == "1 problem(s) in 1 file(s)\n"


# The child's own peak RSS (KiB): VmHWM belongs to the memory map that exec replaced.
# getrusage's ru_maxrss would carry over the peak of the pytest process that forked it,
# which is how this test once failed in CI at 268 MiB with validate itself near 50.
PEAK_RSS = """
import re, sys
from generator.cli import main
code = main(["validate"])
hwm = re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)
print(code, hwm, file=sys.stderr)
"""


def test_the_benign_corpus_is_capped_and_only_regular_files_are_read(repo: Path) -> None:
    (repo / "entries/gpu-hardware").mkdir()
    (repo / "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml").write_text(entry_yaml())
    benign = repo / "corpus/benign"
    benign.mkdir(parents=True)
    (benign / "healthy.log").write_text("NCCL INFO Bootstrap : Using eth0\n")
    (benign / "zero.log").symlink_to("/dev/zero")
    os.mkfifo(benign / "pipe.log")
    with (benign / "huge.log").open("wb") as handle:
        handle.truncate(4 << 30)  # 4 GiB, sparse: costs no disk
    done = subprocess.run(
        [sys.executable, "-c", PEAK_RSS],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.PIPE,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stdout.splitlines() == [
        "corpus/benign/huge.log:1:1: error [file-too-large] benign log is larger than the "
        "8,388,608-byte limit; keep the lines that matter",
        "corpus/benign/pipe.log:1:1: error [file-not-regular] a FIFO; only regular files are read",
        "corpus/benign/zero.log:1:1: error [file-not-regular] a link to /dev/zero, outside the "
        "repository; only files in it are read",
    ]
    lines = done.stderr.splitlines()
    assert lines[0] == "3 problem(s) in 1 file(s)"
    code, peak_kib = lines[1].split()
    assert code == "1"
    assert int(peak_kib) < 200 * 1024, f"peak RSS {int(peak_kib) // 1024} MiB"


@pytest.mark.parametrize(
    ("char", "name"),
    [("\x85", "next line"), ("\u2028", "line separator"), ("\u2029", "paragraph separator")],
)
def test_line_breaks_editors_do_not_see_are_refused_where_they_stand(char: str, name: str) -> None:
    text = entry_yaml().replace("severity: critical", f"severity: crit{char}ical", 1)
    line = next(n for n, t in enumerate(text.split("\n"), 1) if t.startswith("severity"))
    assert problems({"entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml": text}) == [
        f"entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml:{line}:15: error [file-encoding] "
        f"character U+{ord(char):04X} ({name}) is a line break to YAML but not to editors; "
        "use a plain newline or a space"
    ]


def test_fmt_formats_a_linked_entry_where_it_lives_and_keeps_the_link(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = repo / "shared/xid-79-gpu-fallen-off-bus.yaml"
    shared.parent.mkdir()
    messy = (
        entry_yaml()
        .replace("severity: critical\n", "")
        .replace("layer: hardware\n", "layer: hardware\nseverity: critical\n")
    )
    shared.write_text(messy)
    link = repo / "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
    link.parent.mkdir()
    link.symlink_to("../../shared/xid-79-gpu-fallen-off-bus.yaml")
    assert main(["fmt"]) == 0
    assert (
        capsys.readouterr().out
        == "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml: reformatted\n"
    )
    assert os.readlink(link) == "../../shared/xid-79-gpu-fallen-off-bus.yaml"
    assert shared.read_text() == entry_yaml()
    assert sorted(p.name for p in shared.parent.iterdir()) == [shared.name]


def test_base_60_and_overlong_numbers_are_refused_before_they_are_converted() -> None:
    sexagesimal = "a: " + ":".join(["1"] * 170_000) + "\n"  # 340 KB: seconds to convert
    assert problems(
        {
            "entries/x/bomb.yaml": sexagesimal,
            "entries/x/time.yaml": "a: 1:30\n",
            "entries/x/float.yaml": "a: 1:30.5\n",
            "entries/x/digits.yaml": "a: " + "9" * 10_000 + "\n",
        }
    ) == [
        "entries/x/bomb.yaml:1:4: error [yaml-number] '1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:'"
        "... (339,999 characters) is a YAML 1.1 base-60 number; quote it if it is text",
        "entries/x/digits.yaml:1:4: error [yaml-number] number "
        "'9999999999999999999999999999999999999999'... (10,000 characters) is longer than 32 "
        "characters; quote it if it is text",
        "entries/x/float.yaml:1:4: error [yaml-number] '1:30.5' is a YAML 1.1 base-60 number; "
        "quote it if it is text",
        "entries/x/time.yaml:1:4: error [yaml-number] '1:30' is a YAML 1.1 base-60 number; "
        "quote it if it is text",
    ]


def test_merge_keys_are_named_as_merge_keys() -> None:
    assert problems({"entries/x/merge.yaml": "a: 1\n<<: {b: 2}\n"}) == [
        "entries/x/merge.yaml:2:1: error [yaml-key] merge keys (<<) are not allowed; "
        "write the keys out in full"
    ]
