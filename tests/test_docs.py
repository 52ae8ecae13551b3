"""The entry-format page documents every field of the schema, so the two cannot drift."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from generator.model.entry import Entry

DOC = Path(__file__).resolve().parents[1] / "docs" / "entry-format.md"


def field_names(model: type[BaseModel]) -> set[str]:
    return set(model.model_fields)


def test_every_entry_field_is_documented() -> None:
    text = DOC.read_text()
    missing = sorted(name for name in field_names(Entry) if f"`{name}" not in text)
    assert missing == []
