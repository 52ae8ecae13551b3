"""The formatter: schema key order, one quoting style, comments kept, idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from entry_factory import entry_yaml

from generator.loading.fmt import FormatError, format_text

ENTRIES = sorted((Path(__file__).resolve().parents[2] / "entries").rglob("*.yaml"))


def test_reorders_keys_into_schema_order_and_keeps_every_comment() -> None:
    messy = (
        "# top comment\n"
        "title: 'Xid 79'  # why this title\n"
        "id: xid-79\n"
        "unknown_key: kept\n"
        "mechanism:\n"
        "  actually: b\n"
        "  # explains the mistake\n"
        "  mistaken_for: a\n"
        "tags:\n"
        "  - xid\n"
        "  - pcie\n"
    )
    assert format_text(messy) == (
        "# top comment\n"
        "id: xid-79\n"
        "title: Xid 79    # why this title\n"  # the comment keeps its column
        "tags: [xid, pcie]\n"
        "mechanism:\n"
        "  mistaken_for: a\n"
        "  actually: b\n"
        # A full-line comment travels with the line above it when keys move (ruamel.yaml
        # attaches it there); it is kept, never dropped.
        "  # explains the mistake\n"
        "unknown_key: kept\n"
    )


def test_quotes_only_where_needed_and_then_with_double_quotes() -> None:
    assert format_text("title: 'a: b'\nsummary: 'plain'\n") == 'title: "a: b"\nsummary: plain\n'


@pytest.mark.parametrize("path", ENTRIES, ids=lambda p: p.stem)
def test_every_shipped_entry_is_already_formatted(path: Path) -> None:
    text = path.read_text()
    assert format_text(text) == text, f"run `trainwreck fmt {path.name}`"


def test_formatting_is_idempotent_and_keeps_the_data() -> None:
    once = format_text(entry_yaml())
    assert format_text(once) == once
    assert yaml.safe_load(once) == yaml.safe_load(entry_yaml())


def test_broken_yaml_is_a_placed_error_not_a_traceback() -> None:
    with pytest.raises(FormatError) as info:
        format_text("id: a\ntitle: [unclosed\n")
    assert (info.value.line, info.value.col) == (3, 1)
