"""Trojan Source (issue 15, defect 14): bidi controls and zero-width characters are refused
where text is run, matched or compared, and shown as visible marks in prose."""

from __future__ import annotations

from pathlib import Path

import yaml
from entry_factory import entry_yaml

from generator.catalog import Catalog
from generator.model.entry import Entry
from generator.render.pages import Renderer
from generator.validation import SourceFile, validate_sources

PATH = "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
RLO, ZWSP = "\u202e", "\u200b"


def problems(text: str) -> list[str]:
    return [p.text() for p in validate_sources([SourceFile(PATH, text.encode())]).problems]


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def message(field: str, code: str, name: str) -> str:
    return (
        f"error [invisible-character] {field}: character U+{code} ({name}) changes how the "
        "text displays without showing itself; remove it"
    )


def test_commands_code_titles_and_patterns_refuse_bidi_and_zero_width_characters() -> None:
    text = entry_yaml()
    text = edit(text, "dmesg -T | grep -i xid", f"dmesg -T | grep -i xid{RLO} ; rm -rf ~")
    text = edit(text, 'title: "Xid 79:', f'title: "Xid{RLO} 79:')
    text = edit(text, 'reason="xid79"', f'reason="xid79"{ZWSP}')
    text = edit(text, 'print("no code', f'print("no{RLO} code')
    text = edit(text, '"NVRM: Xid (PCI:{pci}): 79, "', f'"NVRM: Xid (PCI:{{pci}}): 79,{ZWSP} "')
    assert problems(text) == [
        f"{PATH}:3:12: " + message("title", "202E", "right-to-left override"),
        f"{PATH}:27:36: " + message("command", "202E", "right-to-left override"),
        f"{PATH}:31:41: " + message("pattern", "200B", "zero-width space"),
        f"{PATH}:37:66: " + message("commands", "200B", "zero-width space"),
        f"{PATH}:42:20: " + message("code", "202E", "right-to-left override"),
    ]


def test_a_pattern_of_zero_width_spaces_is_refused() -> None:
    text = edit(
        entry_yaml(),
        '"NVRM: Xid (PCI:{pci}): 79, "',
        f'"{ZWSP * 10}NVRM: Xid (PCI:{{pci}}): 79, "',
    )
    assert problems(text) == [f"{PATH}:31:15: " + message("pattern", "200B", "zero-width space")]


def test_prose_keeps_them_and_the_page_shows_them() -> None:
    text = edit(entry_yaml(), "over **PCIe**", f"over **PCIe**{RLO}")
    assert problems(text) == []
    entry = Entry.model_validate(yaml.safe_load(text))
    html = Renderer(TEMPLATES).entry(entry, Catalog.of([entry])).html
    assert RLO not in html
    assert "<strong>PCIe</strong>[U+202E]" in html
