"""Shell completion scripts for bash, zsh and fish, written from the argument parser itself,
so every command and option the CLI has is in them (`trainwreck completion SHELL`)."""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh", "fish")


def _commands(top: argparse.ArgumentParser) -> dict[str, tuple[str, list[str]]]:
    """Each command: its one-line help and its options."""
    found: dict[str, tuple[str, list[str]]] = {}
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                found[name] = (helps.get(name, ""), _options(sub))
    return found


def _options(command: argparse.ArgumentParser) -> list[str]:
    """A command's options, and those of its own commands (`fleet scan --out`), which the
    scripts offer after the command's name."""
    options: list[str] = []
    for action in command._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                options += [o for o in _options(sub) if o not in options]
        else:
            options += [o for o in action.option_strings if o.startswith("--") and o not in options]
    return options


def _bash(commands: dict[str, tuple[str, list[str]]]) -> str:
    cases = "".join(
        f'        {name}) opts="{" ".join(options)}" ;;\n'
        for name, (_, options) in commands.items()
    )
    return f"""# bash completion for trainwreck: eval "$(trainwreck completion bash)"
_trainwreck() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{" ".join(commands)} --help --version" -- "$cur"))
        return
    fi
    local opts=""
    case "${{COMP_WORDS[1]}}" in
{cases}    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -F _trainwreck trainwreck
"""


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "'\\''")


def _zsh(commands: dict[str, tuple[str, list[str]]]) -> str:
    described = "".join(
        f"        '{name}:{_quote(help_.replace(':', ' '))}'\n"
        for name, (help_, _) in commands.items()
    )
    cases = "".join(
        f"        {name}) _arguments '*:file:_files' {' '.join(repr(o) for o in options)} ;;\n"
        for name, (_, options) in commands.items()
    )
    return f"""#compdef trainwreck
# zsh completion for trainwreck: eval "$(trainwreck completion zsh)"
_trainwreck() {{
    local -a commands
    commands=(
{described}    )
    if (( CURRENT == 2 )); then
        _describe 'command' commands
        return
    fi
    case "$words[2]" in
{cases}    esac
}}
compdef _trainwreck trainwreck
"""


def _fish(commands: dict[str, tuple[str, list[str]]]) -> str:
    lines = [
        "# fish completion for trainwreck: trainwreck completion fish | source",
        "complete -c trainwreck -f",
    ]
    for name, (help_, options) in commands.items():
        lines.append(
            f"complete -c trainwreck -n __fish_use_subcommand -a {name} -d '{_quote(help_)}'"
        )
        for option in options:
            lines.append(
                f"complete -c trainwreck -n '__fish_seen_subcommand_from {name}' "
                f"-l {option.removeprefix('--')}"
            )
        lines.append(f"complete -c trainwreck -n '__fish_seen_subcommand_from {name}' -F")
    return "\n".join(lines) + "\n"


def completion_script(top: argparse.ArgumentParser, shell: str) -> str:
    commands = _commands(top)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](commands)
