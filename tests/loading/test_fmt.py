"""The formatter: schema key order, one quoting style, comments kept, idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from entry_factory import entry_yaml
from hypothesis import given, settings
from hypothesis import strategies as st

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
        # A full-line comment above a key moves with the key.
        "  # explains the mistake\n"
        "  mistaken_for: a\n"
        "  actually: b\n"
        "unknown_key: kept\n"
    )


def test_comments_above_keys_move_with_them_and_block_text_stays_text() -> None:
    messy = (
        "# yaml-language-server: $schema=../../schema/entry.schema.json\n"
        "title: T\n"
        "id: a\n"
        "# what the summary is for\n"
        "# (two lines)\n"
        "summary: s\n"
        "tags: [a]\n"
        "fix:\n"
        "  - step: one\n"
        "    code:\n"
        "      - language: python\n"
        "        # the snippet\n"
        "        code: |\n"
        "          x = 1\n"
        "          # a line of the snippet, not a comment\n"
        "        # which stack\n"
        "        stack: pytorch\n"
    )
    once = format_text(messy)
    assert once == (
        "# yaml-language-server: $schema=../../schema/entry.schema.json\n"
        "id: a\n"
        "title: T\n"
        "tags: [a]\n"
        "# what the summary is for\n"
        "# (two lines)\n"
        "summary: s\n"
        "fix:\n"
        "  - step: one\n"
        "    code:\n"
        # At the key's own column, also when the key now opens a list item.
        "        # which stack\n"
        "      - stack: pytorch\n"
        "        language: python\n"
        "        # the snippet\n"
        "        code: |\n"
        "          x = 1\n"
        "          # a line of the snippet, not a comment\n"
    )
    assert format_text(once) == once


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


def test_a_block_of_log_lines_that_starts_with_a_tab_keeps_its_indentation_indicator() -> None:
    # PyTorch prints weights_only hints indented by a tab; fmt once dropped the `|2` and
    # wrote a file that no longer loaded ("a tab cannot indent YAML").
    text = "examples:\n  - log: |2\n      \t(1) In PyTorch 2.6, we changed\n      Check it\n"
    assert format_text(text) == text
    assert yaml.safe_load(format_text(text)) == {
        "examples": [{"log": "\t(1) In PyTorch 2.6, we changed\nCheck it\n"}]
    }


def test_broken_yaml_is_a_placed_error_not_a_traceback() -> None:
    with pytest.raises(FormatError) as info:
        format_text("id: a\ntitle: [unclosed\n")
    assert (info.value.line, info.value.col) == (3, 1)


def _top_level_blocks(text: str) -> tuple[list[str], list[list[tuple[int, str]]]]:
    """The header comment lines, then each top-level key with the lines under it, numbered."""
    header: list[str] = []
    blocks: list[list[tuple[int, str]]] = []
    for number, line in enumerate(text.splitlines(keepends=True)):
        if not blocks and line.startswith("#"):
            header.append(line)
        elif not line.startswith((" ", "#", "\n")) or not blocks:
            blocks.append([(number, line)])
        else:
            blocks[-1].append((number, line))
    return header, blocks


def _key_lines(text: str) -> list[int]:
    """The line of every mapping key in the document (not lines inside block scalars)."""
    found: list[int] = []

    def walk(node: yaml.Node) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                found.append(key.start_mark.line)
                walk(value)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item)

    walk(yaml.compose(text))
    return sorted(found)


ENTRY_BLOCKS = _top_level_blocks(entry_yaml())
ENTRY_KEY_LINES = _key_lines(entry_yaml())


@given(
    order=st.permutations(range(len(ENTRY_BLOCKS[1]))),
    noted=st.sets(st.sampled_from(ENTRY_KEY_LINES)),
)
@settings(max_examples=80, deadline=None)
def test_any_key_order_with_comments_formats_to_the_same_data_and_comments(
    order: list[int], noted: set[int]
) -> None:
    """Keys in any order, a comment above any of them: the output holds the same data, each
    comment right above its key, and formatting it again changes nothing."""
    header, blocks = ENTRY_BLOCKS
    first_line = blocks[order[0]][0][0]  # comments above it would be the document's header
    commented: list[str] = list(header)
    notes: dict[str, str] = {}
    for number, line in (item for index in order for item in blocks[index]):
        if number in noted and number != first_line:
            note = f"# note {len(notes)}"
            commented.append(" " * (len(line) - len(line.lstrip(" "))) + note + "\n")
            notes[note] = line.strip()
        commented.append(line)
    once = format_text("".join(commented))
    assert yaml.safe_load(once) == yaml.safe_load(entry_yaml())
    assert format_text(once) == once
    out = [line.strip() for line in once.splitlines()]
    for note, key_line in notes.items():
        assert out.count(note) == 1, note
        assert out[out.index(note) + 1] == key_line, note
