"""Shared by every test: the helper folder on sys.path, and Debian's Chromium via Playwright."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chromium import CHROMIUM, launch

# Tests import helpers (entry_factory) from this folder.
sys.path.insert(0, str(Path(__file__).parent))

# `diagnose` keeps its compiled prefilter in a user cache; tests keep theirs in a temporary
# folder of their own, never in the home of whoever runs them (prefilter_cache.py).
os.environ.setdefault("TRAINWRECK_CACHE_DIR", tempfile.mkdtemp(prefix="trainwreck-test-cache-"))


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.fail("Debian's chromium is not installed; `make test` installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        yield browser
        browser.close()


@pytest.fixture()
def page(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.errors = errors
    yield page
    context.close()
