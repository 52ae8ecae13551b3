"""The JSON Schema that editors' YAML plugins use to autocomplete and flag entries as they type.

Generated from the pydantic models, never written by hand, and committed at
schema/entry.schema.json; a test fails when the committed file is out of date.
"""

from __future__ import annotations

import json
from typing import Any

from generator.model.entry import Entry

SCHEMA_PATH = "schema/entry.schema.json"


def editor_schema() -> dict[str, Any]:
    schema = Entry.model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Trainwreck entry",
        "description": "One ML training failure: entries/<category>/<id>.yaml. "
        "See docs/entry-format.md.",
        **{k: v for k, v in schema.items() if k != "title"},
    }


def editor_schema_text() -> str:
    return json.dumps(editor_schema(), indent=2, ensure_ascii=False) + "\n"
