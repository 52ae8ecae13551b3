"""The validator, fed files broken in each checked way, reports the complete problem list."""

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


def test_valid_entry_has_no_problems() -> None:
    assert problems({GOOD: entry_yaml()}) == []


def test_yaml_level_problems_each_name_their_place_and_all_files_report() -> None:
    files: dict[str, str | bytes] = {
        "entries/x/duplicate.yaml": "id: a\ntitle: A\ntitle: B\n",
        "entries/x/anchor.yaml": "id: &name a\ntitle: *name\n",
        "entries/x/alias-bomb.yaml": "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n",
        "entries/x/tabs.yaml": "id: a\ntags:\n\t- b\n",
        "entries/x/python-tag.yaml": "id: !!python/object/apply:os.system ['true']\n",
        "entries/x/list.yaml": "- id: a\n",
        "entries/x/two-docs.yaml": "id: a\n---\nid: b\n",
        "entries/x/empty.yaml": "",
        "entries/x/utf16.yaml": "id: a\n".encode("utf-16"),
        "entries/x/bom.yaml": b"\xef\xbb\xbfid: a\n",
        "entries/x/latin1.yaml": b"id: a\ntitle: caf\xe9\n",
        "entries/x/nul.yaml": b"id: a\ntitle: x\x00y\n",
        "entries/x/unclosed.yaml": 'id: a\ntitle: "open\n',
        "entries/x/huge.yaml": "a: " + "x" * (600 * 1024) + "\n",
        "entries/x/bad-date.yaml": "last_reviewed: 2026-13-45\n",
        GOOD: entry_yaml(),
    }
    assert problems(files) == [
        "entries/x/alias-bomb.yaml:1:4: error [yaml-anchor] anchor &a is not allowed; "
        "entries do not share values",
        "entries/x/anchor.yaml:1:5: error [yaml-anchor] anchor &name is not allowed; "
        "entries do not share values",
        "entries/x/bad-date.yaml:1:16: error [yaml-syntax] invalid value '2026-13-45': "
        "month must be in 1..12",
        "entries/x/bom.yaml:1:1: error [file-encoding] file starts with a byte-order mark; "
        "save it as UTF-8 without BOM",
        "entries/x/duplicate.yaml:3:1: error [yaml-duplicate-key] duplicate key 'title' "
        "(first defined at line 2)",
        "entries/x/empty.yaml:1:1: error [yaml-not-mapping] file is empty; an entry is a mapping",
        "entries/x/huge.yaml:1:1: error [file-too-large] file is larger than the "
        "524,288-byte limit for an entry",
        "entries/x/latin1.yaml:2:11: error [file-encoding] invalid UTF-8 byte 0xe9; "
        "save it as UTF-8",
        "entries/x/list.yaml:1:1: error [yaml-not-mapping] the document is not a mapping "
        "of field names to values",
        "entries/x/nul.yaml:2:9: error [file-encoding] NUL byte in file; entries are plain text",
        "entries/x/python-tag.yaml:1:5: error [yaml-tag] tag "
        "'tag:yaml.org,2002:python/object/apply:os.system' is not allowed; use plain YAML values",
        "entries/x/tabs.yaml:3:1: error [yaml-syntax] a tab cannot indent YAML; indent with spaces",
        "entries/x/two-docs.yaml:2:1: error [yaml-multiple-documents] file holds more than one "
        "YAML document; an entry is one document",
        "entries/x/unclosed.yaml:3:1: error [yaml-syntax] while scanning a quoted scalar "
        "found unexpected end of stream",
        "entries/x/utf16.yaml:1:1: error [file-encoding] file is UTF-16; save it as UTF-8",
    ]


def test_schema_errors_point_at_the_key_or_value_at_fault() -> None:
    text = entry_yaml()
    text = edit(text, "severity: critical", "severity: urgent")
    text = edit(text, "layer: hardware\n", "")
    text = edit(text, "tags: [xid, pcie]", "tags: [xid, pcie]\ntitel: typo")
    text = edit(text, "mechanism:\n", "mechanism: 5\nformer_mechanism:\n")
    text = edit(text, "    needs_root: true", "    needs_root: maybe")
    text = edit(text, '"NVRM: Xid (PCI:{pci}): 79, "', '"NVRM: Xid (PCI:{pcie}): 79, "')
    text = edit(text, "url: https://docs.nvidia.com", "url: http://docs.nvidia.com")
    text = edit(text, "  xid: [79]", "  xid: [79, seventy]")
    assert problems({GOOD: text}) == [
        f"{GOOD}:1:1: error [schema] missing required field 'layer' — write where the fault "
        "usually lies: hardware, software or either",
        f"{GOOD}:6:1: error [schema] unknown field 'titel'; did you mean 'title'?",
        f"{GOOD}:7:11: error [schema] severity: Input should be 'critical', 'high', "
        "'medium' or 'low'",
        f"{GOOD}:13:12: error [schema] mechanism: Input should be a valid dictionary or "
        "instance of Mechanism",
        f"{GOOD}:14:1: error [schema] unknown field 'former_mechanism'; did you mean 'mechanism'?",
        f"{GOOD}:30:17: error [schema] confirm[0].needs_root: Input should be a valid boolean, "
        "unable to interpret input",
        f"{GOOD}:32:14: error [schema] signatures[0].pattern: unknown placeholder {{pcie}}; use "
        "one of {int}, {num}, {hex}, {pci}, {word}, {token}, {*}, or {{ for a literal brace",
        f"{GOOD}:47:13: error [schema] codes.xid[1]: Input should be a valid integer, "
        "unable to parse string as an integer",
        f"{GOOD}:57:10: error [schema] references[0].url: must be an https:// URL with no "
        "spaces or quotes",
    ]


def test_wrong_type_at_line_12_names_line_12() -> None:
    text = edit(entry_yaml(), "root_cause: The GPU", "root_cause: [The GPU")
    text = edit(text, "failing board).", "failing board)]")
    assert text.splitlines()[11].startswith("root_cause: [")
    assert problems({GOOD: text}) == [
        f"{GOOD}:12:13: error [schema] root_cause: Input should be a valid string",
    ]


def test_identity_and_cross_entry_checks() -> None:
    misplaced = edit(entry_yaml("nan-loss"), "category: gpu-hardware", "category: numerics")
    renamed = entry_yaml("xid-79-renamed")
    related = edit(entry_yaml("xid-48-double-bit-ecc"), "related: []", "related: [no-such-entry]")
    related = edit(related, "collateral: []", "collateral: [xid-48-double-bit-ecc]")
    assert problems(
        {
            GOOD: entry_yaml(),
            "entries/gpu-hardware/nan-loss.yaml": misplaced,
            "entries/gpu-hardware/xid-79-gpu-fallen-off-bus-copy.yaml": entry_yaml(),
            "entries/gpu-hardware/xid-79-wrong-name.yaml": renamed,
            "entries/gpu-hardware/xid-48-double-bit-ecc.yaml": related,
        }
    ) == [
        "entries/gpu-hardware/nan-loss.yaml:4:11: error [category-directory] category "
        "'numerics' does not match the folder 'gpu-hardware'; move the file to entries/numerics/",
        "entries/gpu-hardware/xid-48-double-bit-ecc.yaml:57:11: error [unknown-id] related "
        "names unknown entry 'no-such-entry'",
        "entries/gpu-hardware/xid-48-double-bit-ecc.yaml:58:14: error [unknown-id] collateral "
        "names the entry itself",
        # "-copy" sorts before ".yaml", so the copy counts as the first holder of the id.
        "entries/gpu-hardware/xid-79-gpu-fallen-off-bus-copy.yaml:2:5: error [id-filename] id "
        "'xid-79-gpu-fallen-off-bus' does not match the file name "
        "'xid-79-gpu-fallen-off-bus-copy'",
        "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml:2:5: error [duplicate-id] id "
        "'xid-79-gpu-fallen-off-bus' is already used by "
        "entries/gpu-hardware/xid-79-gpu-fallen-off-bus-copy.yaml",
        "entries/gpu-hardware/xid-79-wrong-name.yaml:2:5: error [id-filename] id "
        "'xid-79-renamed' does not match the file name 'xid-79-wrong-name'",
    ]


def test_markdown_lint_points_into_block_scalars() -> None:
    text = edit(
        entry_yaml(),
        "    Every process holding a context on it gets errors on its next CUDA call.",
        "    Every process <b>holding</b> a context fails.\n\n    ## A heading\n\n"
        "    See [this](javascript:alert(1)) and ![x](https://example.com/x.png).\n"
        "    Compare [the ECC entry](xid-48-double-bit-ecc).",
    )
    text = edit(text, "  - Watch `dmesg`", "  - <script>alert(1)</script> Watch `dmesg`")
    assert problems({GOOD: text}) == [
        # A link to an entry is checked against the catalog, at the field that holds it.
        f"{GOOD}:15:13: error [markdown] link to unknown entry 'xid-48-double-bit-ecc'",
        f"{GOOD}:18:5: error [markdown] raw HTML is not allowed: '</b>'",
        f"{GOOD}:18:5: error [markdown] raw HTML is not allowed: '<b>'",
        f"{GOOD}:20:5: error [markdown] headings are not allowed inside a field; the page "
        "template sets the headings",
        f"{GOOD}:22:5: error [markdown] images are not allowed; link to the page instead",
        f"{GOOD}:22:5: error [markdown] link target 'javascript:alert(1)' must be an http(s) URL "
        "or another entry's id",
        f"{GOOD}:49:5: error [markdown] raw HTML is not allowed: '<script>alert(1)</script> "
        "Watch `dmesg` '",
    ]


def test_aliases_must_not_collide_with_ids_or_each_other() -> None:
    first = edit(
        entry_yaml(), "title:", "aliases: [gpu-fell-off-bus, xid-48-double-bit-ecc]\ntitle:"
    )
    second = edit(
        entry_yaml("xid-48-double-bit-ecc"), "title:", "aliases: [gpu-fell-off-bus]\ntitle:"
    )
    assert problems({GOOD: first, "entries/gpu-hardware/xid-48-double-bit-ecc.yaml": second}) == [
        # The first file by path keeps the alias; the later one is told.
        f"{GOOD}:3:11: error [alias-collision] alias 'gpu-fell-off-bus' is already an alias in "
        "entries/gpu-hardware/xid-48-double-bit-ecc.yaml",
        f"{GOOD}:3:29: error [alias-collision] alias 'xid-48-double-bit-ecc' is the id of "
        "entries/gpu-hardware/xid-48-double-bit-ecc.yaml",
    ]


def test_a_file_that_does_not_load_is_reported_once_not_by_every_entry_naming_it() -> None:
    """A pull request that breaks one entry must not put notes on the files that name it; and
    those entries' signature checks wait until the entry they relate to loads again."""
    naming = entry_yaml("xid-48-double-bit-ecc")
    naming = edit(naming, "related: []", "related: [xid-79-gpu-fallen-off-bus]")
    naming = edit(
        naming, "summary: >-\n", "summary: >-\n  Not [Xid 79](xid-79-gpu-fallen-off-bus).\n"
    )
    naming = edit(naming, '"NVRM: Xid (PCI:{pci}): 79, "', '"NVRM: Xid (PCI:{pci}): 48, "')
    # An example that names no signature of its entry: reported only once the index is whole.
    naming = edit(naming, "pid=1234, GPU has fallen off the bus.", "pid=1234, a line of no entry.")
    naming = edit(naming, "[ 123.456] NVRM: Xid (PCI:0000:3b:00): 79,", "[ 123.456] NVRM: Xid 2:")
    other = "entries/gpu-hardware/xid-48-double-bit-ecc.yaml"
    schema_broken = edit(entry_yaml(), "severity: critical", "severity: dire")
    assert problems({GOOD: schema_broken, other: naming}) == [
        f"{GOOD}:6:11: error [schema] severity: Input should be 'critical', 'high', 'medium' "
        "or 'low'",
    ]
    assert problems({GOOD: "id: [unclosed\n", other: naming}) == [
        f"{GOOD}:2:1: error [yaml-syntax] while parsing a flow sequence did not find expected "
        "',' or ']'",
    ]
    assert problems({GOOD: entry_yaml(), other: naming}) == [
        f"{other}:62:10: error [example-diagnosis] examples[0] does not diagnose to this "
        "entry: no line matches one of its defining signatures",
    ]


ROW_79 = (
    "  xid_actions:\n    - code: 79\n      meaning: GPU has fallen off the bus\n"
    "      action: reboot\n"
)


def test_xid_codes_need_one_agreeing_row_of_meaning_and_action() -> None:
    base = entry_yaml()
    assert ROW_79 in base
    other = "entries/gpu-hardware/xid-48-double-bit-ecc.yaml"
    third = "entries/gpu-hardware/gpu-lost.yaml"
    files: dict[str, str | bytes] = {
        # Names 79 and 48, gives a row for 79 that differs and a row for 31 it does not name.
        GOOD: edit(
            base,
            ROW_79,
            "  xid_actions:\n    - code: 79\n      meaning: Fell off the bus\n"
            "      action: reset-gpu\n    - code: 31\n      meaning: Page fault\n"
            "      action: restart-app\n",
        ).replace("xid: [79]", "xid: [79, 48]"),
        # The row other entries must agree with: its path sorts first.
        other: entry_yaml("xid-48-double-bit-ecc"),
        # An action outside the fixed buckets.
        third: edit(entry_yaml("gpu-lost"), "action: reboot", "action: pray"),
    }
    assert problems(files) == [
        f"{third}:50:15: error [schema] codes.xid_actions[0].action: Input should be "
        "'ignore', 'restart-app', 'reset-gpu', 'reboot', 'check-hardware', 'contact-support' "
        "or 'follow-other-xid'",
        f"{GOOD}:46:13: error [xid-actions] Xid 48 has no row in any entry's "
        "codes.xid_actions; give its meaning and action bucket here",
        f"{GOOD}:48:13: error [xid-actions] Xid 79's row differs from the one in "
        f"{other}; keep one, or make them the same",
        f"{GOOD}:51:13: error [xid-actions] Xid 31 is not in codes.xid",
    ]


def test_an_example_names_one_source_a_public_url_or_a_lab_log() -> None:
    url = "  - url: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1\n"
    lab = "  - lab: corpus/lab/2.13.0/sigkill-one-of-two.log\n"
    both = edit(entry_yaml(), url, url + "    lab: corpus/lab/2.13.0/sigkill-one-of-two.log\n")
    neither = edit(entry_yaml(), url + "    log: |\n", "  - log: |\n")
    outside = edit(entry_yaml(), url, "  - lab: corpus/lab/2.13.0/../../../etc/passwd\n")
    assert problems({GOOD: edit(entry_yaml(), url, lab)}) == []
    assert problems({GOOD: both}) == [
        f"{GOOD}:60:5: error [schema] examples[0]: give exactly one of url "
        "(a public thread) or lab (a lab log)",
    ]
    assert problems({GOOD: neither}) == [
        f"{GOOD}:60:5: error [schema] examples[0]: give exactly one of url "
        "(a public thread) or lab (a lab log)",
    ]
    assert problems({GOOD: outside}) == [
        f"{GOOD}:60:10: error [schema] examples[0].lab: must be a lab log's path: "
        "corpus/lab/<torch release>/<scenario>.log",
    ]
