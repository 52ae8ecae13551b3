"""Debian's Chromium, launched the one way that works here, for browser tests and benchmarks.

Playwright drives the system's /usr/bin/chromium; its own browser download cannot work on
these machines.
"""

from __future__ import annotations

from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def launch(playwright: Any) -> Any:
    """A headless Chromium from a started `sync_playwright()`."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
