"""The wrappers people's pastes put around log lines, as functions from a log to its paste.

Shared by the wrapper tests (test_pastes.py) and the browser parity tests, so that both engines
are held to the same rule: a wrapped log diagnoses exactly as the log does.
"""

from __future__ import annotations

from collections.abc import Callable


def _lines(log: bytes, wrap: Callable[[int, str], str], end: str = "\n") -> bytes:
    text = log.decode()
    return "".join(wrap(n, line) + end for n, line in enumerate(text.splitlines(), 1)).encode()


WRAPPERS: dict[str, Callable[[bytes], bytes]] = {
    # An issue comment quoting the log.
    "quote": lambda log: _lines(log, lambda n, line: "> " + line),
    # Markdown bold around each line that starts with a word, inside a quote (bold cannot open
    # before a space, so indented lines are quoted only).
    "bold": lambda log: _lines(
        log, lambda n, line: "> **" + line + "**" if line[:1].strip() else "> " + line
    ),
    # A log viewer's line-number gutter (GitHub Actions, Buildkite, Jenkins' console).
    "gutter": lambda log: _lines(log, lambda n, line: f"[{1823 + n}] {line}"),
    # `docker compose logs`: the service name, padded, then `| `.
    "compose": lambda log: _lines(log, lambda n, line: "trainer-1  | " + line),
    # `pdsh -w node[1-4] ...`: the host, then `: `.
    "pdsh": lambda log: _lines(log, lambda n, line: "gpu-node-07: " + line),
    # Windows line endings.
    "crlf": lambda log: _lines(log, lambda n, line: line, "\r\n"),
}
