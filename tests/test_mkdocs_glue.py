"""The plugin's share of Material's search plugin: a page that search does not index gets its
body after the search plugin's page event, stripped as that event would have stripped it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mkdocs.config import load_config

from generator.mkdocs_glue import _material_search_strip

ROOT = Path(__file__).resolve().parents[1]
# What material/plugins/search/plugin.py's on_page_context removes from page.content.
MATERIAL = re.compile(r"\s?data-search-\w+=\"[^\"]+\"")


@pytest.mark.parametrize(
    "body",
    [
        "",
        '<ul class="tw-related" data-search-exclude data-pagefind-ignore="all"><li>x</li></ul>',
        '<h2 id="a" data-search-title="A">A</h2>\n<p data-search-boost="2">b</p>',
        '<p>data-search-x="1" in text, and\tdata-search-y="" (empty: kept)</p>',
    ],
)
def test_the_strip_is_materials(body: str) -> None:
    config = load_config(str(ROOT / "mkdocs.yml"))
    assert _material_search_strip(body, config) == MATERIAL.sub("", body)


def test_nothing_is_stripped_without_materials_search() -> None:
    config = load_config(str(ROOT / "mkdocs.yml"))
    config.plugins.pop("material/search", None)
    config.plugins.pop("search", None)
    body = '<p data-search-boost="2">b</p>'
    assert _material_search_strip(body, config) == body
