"""Typing into the theme's search box the way a reader does."""

from __future__ import annotations

from typing import Any


def search(page: Any, query: str, timeout_ms: int = 20_000) -> Any:
    """Type `query` into the header search with real key events; return the first result link.

    Key events, not a programmatic fill: the theme reads the box on keyboard input, and a
    value set without them can leave the query unanswered.
    """
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(query)
    first = page.locator(".md-search-result__item > a").first
    first.wait_for(timeout=timeout_ms)
    return first
