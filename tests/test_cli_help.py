"""`trainwreck --help` teaches: one line per command, an example under every command, and
completion scripts for bash, zsh and fish that know every command and option."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.cli import main, parser

COMMANDS = [
    "validate",
    "build",
    "serve",
    "checks",
    "diagnose",
    "new",
    "fmt",
    "schema",
    "bundle",
    "completion",
    "export",
    "fleet",
]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_help_lists_every_command_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert list(subcommands()) == COMMANDS
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = lines.index("  COMMAND") + 1
    listed = lines[start : start + len(COMMANDS)]
    assert [line.split()[0] for line in listed] == COMMANDS
    # Each summary is on the command's own line, none wraps onto the next.
    assert all(len(line.split()) > 2 for line in listed)
    assert lines[start + len(COMMANDS)] == ""
    assert "example:\n  trainwreck diagnose logs/\n" in out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_help_has_an_example(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    example = out.split("\nexample:\n", 1)[1].splitlines()
    assert example
    assert all(line.startswith("  ") for line in example)
    shown = f"trainwreck {command}"
    assert shown in example[0]


def options(command: str) -> list[str]:
    """The command's options and its own commands' (`fleet scan --out`)."""
    found: list[str] = []
    pending = [subcommands()[command]]
    while pending:
        sub = pending.pop()
        for a in sub._actions:
            if isinstance(a, argparse._SubParsersAction):
                pending += a.choices.values()
            found += [o for o in a.option_strings if o.startswith("--")]
    return found


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_are_valid_and_name_every_command_and_option(
    shell: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    for command in COMMANDS:
        assert command in script
        for option in options(command):
            flag = option.removeprefix("--") if shell == "fish" else option
            assert flag in script, (command, option)
    if shell == "fish":
        for command in COMMANDS:
            assert f"-a {command} -d " in script
    # The shell's own syntax check: `make test` installs zsh and fish (the `shells` target).
    binary = shutil.which(shell)
    assert binary is not None, f"{shell} is not installed: run `make shells`"
    (tmp_path / f"trainwreck.{shell}").write_text(script)
    checked = subprocess.run(
        [binary, "-n", str(tmp_path / f"trainwreck.{shell}")], capture_output=True, text=True
    )
    assert (checked.returncode, checked.stderr) == (0, "")


def test_bash_completion_completes_commands_and_options(tmp_path: Path) -> None:
    from generator.completion import completion_script

    script = tmp_path / "trainwreck.bash"
    script.write_text(completion_script(parser(), "bash"))
    probe = (
        f"source {script}\n"
        'COMP_WORDS=(trainwreck di); COMP_CWORD=1; _trainwreck; echo "${COMPREPLY[@]}"\n'
        "COMP_WORDS=(trainwreck diagnose --pu); COMP_CWORD=2; _trainwreck; "
        'echo "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["diagnose", "--public"]
