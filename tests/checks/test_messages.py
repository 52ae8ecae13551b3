"""Problems that point to the right place must also say the right thing (issue 15, defect 16):
what YAML made of a plain value, characters rather than items, no input echoed whole, the
placeholder as written, and UTF-16 named as UTF-16."""

from __future__ import annotations

from entry_factory import entry_yaml

from generator.validation import SourceFile, validate_sources

GOOD = "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"


def problems(files: dict[str, str | bytes]) -> list[str]:
    sources = [
        SourceFile(path, text.encode() if isinstance(text, str) else text)
        for path, text in files.items()
    ]
    return [p.text() for p in validate_sources(sources).problems]


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_plain_values_yaml_reads_as_booleans_numbers_or_dates_are_named_with_the_fix() -> None:
    text = edit(
        entry_yaml(), "quick_fix: Drain the node", "quick_fix: no\nsymptom_: Drain the node"
    )
    text = edit(text, "symptom_: ", "# ")
    text = edit(text, "tags: [xid, pcie]", "tags: [xid, on, off, yes, n, 1.10, 0x1f]")
    text = edit(text, "    versions: any", "    versions: 2024-06-01")
    text = edit(text, "  - NVIDIA data-centre GPUs on PCIe or SXM boards", "  - 1.10")
    assert problems({GOOD: text}) == [
        f"{GOOD}:5:13: error [schema] tags[1]: YAML read `on` as the boolean true; quote it: 'on'",
        f"{GOOD}:5:17: error [schema] tags[2]: YAML read `off` as the boolean false; "
        "quote it: 'off'",
        f"{GOOD}:5:22: error [schema] tags[3]: YAML read `yes` as the boolean true; "
        "quote it: 'yes'",
        # `n` is text to PyYAML (it follows YAML 1.1's booleans but not its y/n).
        f"{GOOD}:5:30: error [schema] tags[5]: YAML read `1.10` as the number 1.1; "
        "quote it: '1.10'",
        f"{GOOD}:5:36: error [schema] tags[6]: YAML read `0x1f` as the number 31; quote it: '0x1f'",
        f"{GOOD}:10:12: error [schema] quick_fix: YAML read `no` as the boolean false; "
        "quote it: 'no'",
        f"{GOOD}:26:5: error [schema] affected_systems[0]: YAML read `1.10` as the number 1.1; "
        "quote it: '1.10'",
        f"{GOOD}:54:15: error [schema] applies_to[0].versions: YAML read `2024-06-01` as a "
        "date; quote it: '2024-06-01'",
    ]


def test_an_empty_or_null_text_field_says_so() -> None:
    text = edit(entry_yaml(), "quick_fix: Drain the node", "quick_fix:\nsymptom_: Drain the node")
    text = edit(text, "symptom_: ", "# ")
    text = edit(text, "root_cause: The GPU", "root_cause: ~\n# The GPU")
    assert problems({GOOD: text}) == [
        f"{GOOD}:10:11: error [schema] quick_fix: has no value",
        f"{GOOD}:13:13: error [schema] root_cause: YAML read `~` as null (no value); quote it: '~'",
    ]


def test_length_limits_on_text_count_characters_and_on_lists_items() -> None:
    text = edit(entry_yaml(), 'title: "Xid 79: GPU has fallen off the bus"', "title: " + "x" * 1000)
    text = edit(text, "    versions: any", "    versions: '" + "9" * 10_000 + "'")
    text = edit(text, "  - Watch `dmesg` for Xid events with DCGM health checks.", "  []")
    text = edit(text, "prevention:\n  []", "prevention: []")
    assert problems({GOOD: text}) == [
        f"{GOOD}:3:8: error [schema] title: is 1,000 characters long; the limit is 200 characters",
        f"{GOOD}:43:13: error [schema] prevention: needs at least 1 item — write what stops it "
        "from happening again",
        f"{GOOD}:52:15: error [schema] applies_to[0].versions: is 10,000 characters long; the "
        "limit is 200 characters",
    ]


def test_long_input_is_quoted_by_its_start_and_length_never_whole() -> None:
    long_key = "k" * 1000  # YAML allows keys of up to 1,024 characters
    link = "https-not://" + "9" * 10_000
    other = "entries/gpu-hardware/xid-48-double-bit-ecc.yaml"
    unknown = edit(
        entry_yaml("xid-48-double-bit-ecc"),
        "tags: [xid, pcie]",
        f"tags: [xid, pcie]\n'{long_key}': x",
    )
    files: dict[str, str | bytes] = {
        GOOD: edit(entry_yaml(), "  The driver lost", f"  See [this]({link}). The driver lost"),
        other: unknown,
        "entries/x/duplicate.yaml": f"'{long_key}': 1\n'{long_key}': 2\n",
        "entries/x/anchor.yaml": f"a: &{'a' * 10_000} 1\n",
        "entries/x/tag.yaml": f"a: !{'t' * 10_000} 1\n",
        "entries/x/number.yaml": "a: " + "9" * 10_000 + "\n",
    }
    found = problems(files)
    assert found == [
        f"{other}:6:1: error [schema] unknown field 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk'"
        "... (1,000 characters)",
        f"{GOOD}:8:10: error [markdown] link target 'https-not://9999999999999999999999999999'"
        "... (10,012 characters) must be an http(s) URL or another entry's id",
        "entries/x/anchor.yaml:1:4: error [yaml-anchor] anchor "
        "&'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'... (10,000 characters) is not allowed; "
        "entries do not share values",
        "entries/x/duplicate.yaml:2:1: error [yaml-duplicate-key] duplicate key "
        "'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk'... (1,000 characters) (first defined at "
        "line 1)",
        "entries/x/number.yaml:1:4: error [yaml-number] number "
        "'9999999999999999999999999999999999999999'... (10,000 characters) is longer than 32 "
        "characters; quote it if it is text",
        "entries/x/tag.yaml:1:4: error [yaml-tag] tag '!" + "t" * 79 + "'... (10,001 "
        "characters) is not allowed; use plain YAML values",
    ]
    assert max(len(line) for line in found) < 300


def test_an_unclosed_placeholder_is_shown_as_written() -> None:
    text = edit(entry_yaml(), '"NVRM: Xid (PCI:{pci}): 79, "', '"NVRM: Xid (PCI:{int 79, "')
    long_name = edit(
        entry_yaml(), '"NVRM: Xid (PCI:{pci}): 79, "', '"NVRM: Xid {' + "p" * 300 + '}"'
    )
    assert problems({GOOD: text}) == [
        f"{GOOD}:31:14: error [schema] signatures[0].pattern: placeholder {{int is not closed; "
        "end it with } or write {{ for a literal brace",
    ]
    assert problems({GOOD: long_name}) == [
        f"{GOOD}:31:14: error [schema] signatures[0].pattern: unknown placeholder "
        "{ppppppppppppppppppp... (302 characters); use one of {int}, {num}, {hex}, {pci}, "
        "{word}, {token}, {*}, or {{ for a literal brace",
    ]


def test_utf16_without_a_bom_is_named_as_utf16_not_as_nul_bytes() -> None:
    text = entry_yaml()
    assert problems(
        {
            "entries/x/le.yaml": text.encode("utf-16-le"),
            "entries/x/be.yaml": text.encode("utf-16-be"),
            "entries/x/short.yaml": "id: é\n".encode("utf-16-le"),
            # A NUL in text that is not UTF-16 is still a NUL.
            "entries/x/nul.yaml": b"id: a\x00\x00b\n",
        }
    ) == [
        "entries/x/be.yaml:1:1: error [file-encoding] file is UTF-16 without a BOM; "
        "save it as UTF-8",
        "entries/x/le.yaml:1:1: error [file-encoding] file is UTF-16 without a BOM; "
        "save it as UTF-8",
        "entries/x/nul.yaml:1:6: error [file-encoding] NUL byte in file; entries are plain text",
        "entries/x/short.yaml:1:1: error [file-encoding] file is UTF-16 without a BOM; "
        "save it as UTF-8",
    ]
