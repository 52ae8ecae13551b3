"""The search box's shards of the signature index (generator/diagnose/search_shards.py): every
signature that matches a line is in the files that line's words fetch, so the box's matcher
answers as it would over the whole index; and the shards together are the whole index."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import yaml

from generator.diagnose.index import (
    IndexEntry,
    IndexFile,
    IndexSignature,
    index_from_data,
)
from generator.diagnose.pattern import Matcher
from generator.diagnose.search_shards import (
    FOLDER,
    HEAD,
    choose_keys,
    key_words,
    layout,
    query_words,
    shard_files,
    word_hash,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def real() -> IndexFile:
    # The bundled copy is what the site publishes (tests/test_bundled_index.py keeps it so).
    return index_from_data(json.loads((REPO / "generator/bundled/signatures.json").read_text()))


def example_lines() -> list[tuple[str, str]]:
    """(entry id, line) for every line of every example log in entries/."""
    found = []
    for path in sorted((REPO / "entries").glob("*/*.yaml")):
        entry = yaml.safe_load(path.read_text())
        for example in entry.get("examples", []):
            found.extend((entry["id"], line) for line in example["log"].splitlines())
    return found


def loaded(files: dict[str, str], text: str) -> list[dict[str, object]]:
    """The signatures the box has for `text`: the head's and those of the shards it fetches."""
    plan_head = json.loads(files[HEAD])
    parts = [plan_head]
    bits = base64.b64decode(plan_head["filter"])
    for word in query_words(text):
        h = word_hash(word)
        bit = h % (len(bits) * 8)
        if bits[bit >> 3] >> (bit & 7) & 1:
            parts.append(json.loads(files[f"{FOLDER}/{h % plan_head['shards']}.json"]))
    by_n = {s["n"]: s for part in parts for s in part["signatures"]}
    return [by_n[n] for n in sorted(by_n)]


def test_word_hash_is_32_bit_fnv_1a() -> None:
    # The published FNV-1a test vectors; search-signatures.js computes the same.
    assert word_hash("") == 0x811C9DC5
    assert word_hash("a") == 0xE40C292C
    assert word_hash("foobar") == 0xBF9CF968


def test_key_words_are_whole_words_inside_a_literal() -> None:
    # "NVRM" and "pid" touch their literal's ends: a matching line may run them on ("xNVRM").
    assert key_words("NVRM: Xid (PCI:{pci}): 31, pid") == {"Xid", "PCI", "31"}
    assert key_words("CUDA error: out of memory") == {"error", "out", "of"}
    assert key_words("cp3x {*}CUDA_ERROR_ILLEGAL_INSTRUCTION") == set()
    assert key_words("NCCL error{*}invalid usage") == set()
    assert key_words("Reason:{*}OOMKilled") == set()
    assert key_words("a {{weird}} line") == {"weird"}


def test_the_key_is_the_word_fewest_signatures_share() -> None:
    assert choose_keys(
        [
            "CUDA error: out of memory; try",  # "error" is shared; then the longest
            "NCCL error: unhandled system error, NCCL version",
            # "PCI" is shared: the Xid signatures go under their codes, not into one shard.
            "NVRM: Xid (PCI:{pci}): 79, pid",
            "NVRM: Xid (PCI:{pci}): 48, pid",
            "RuntimeError: CUDA_ERROR_ILLEGAL_INSTRUCTION",
        ]
    ) == ["memory", "unhandled", "79", "48", None]


def test_every_example_line_fetches_every_signature_it_matches(real: IndexFile) -> None:
    files = shard_files(real)
    matchers = [Matcher(s.pattern) for s in real.signatures]
    lines = example_lines()
    assert len(lines) > 1000
    found_own = 0
    for entry, line in lines:
        matching = [n for n, m in enumerate(matchers) if m.search(line)]
        have = loaded(files, line)
        assert {s["n"] for s in have} >= set(matching), (entry, line)
        found_own += any(real.signatures[n].entry == entry for n in matching)
    # Most example lines are context around the error; the signature lines find their entry.
    assert found_own > 300


def test_a_pasted_log_fetches_what_each_of_its_lines_needs(real: IndexFile) -> None:
    files = shard_files(real)
    matchers = [Matcher(s.pattern) for s in real.signatures]
    for path in sorted((REPO / "entries").glob("*/*.yaml")):
        for example in yaml.safe_load(path.read_text()).get("examples", []):
            text = example["log"]
            matching = {
                n for n, m in enumerate(matchers) for line in text.splitlines() if m.search(line)
            }
            assert {s["n"] for s in loaded(files, text)} >= matching, path.name


def test_a_query_fetches_few_shards(real: IndexFile) -> None:
    plan = layout(real)
    assert plan.shards == 16
    line = (
        "[Sat Jan 30 00:05:20 2021] NVRM: Xid (PCI:0000:db:00): 31, pid=14323, Ch 00000008, "
        "intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_10 faulted @ 0x7efe_ba290000."
    )
    # 26 distinct words; the filter lets through only those a signature is filed under
    # (Xid, PCI, MMU, ...), and the few that share a bit with one.
    assert len(query_words(line)) == 26
    assert 1 <= len(plan.shards_for(line)) <= 6
    assert plan.shards_for("fallen off the bus") <= {word_hash("fallen") % 16}


def test_the_files_hold_the_whole_index_once(real: IndexFile) -> None:
    files = shard_files(real)
    head = json.loads(files.pop(HEAD))
    plan = layout(real)
    assert head["version"] == 1
    assert head["catalog"] == real.catalog
    assert head["max_line_bytes"] == real.max_line_bytes
    assert head["shards"] == plan.shards
    assert base64.b64decode(head["filter"]) == plan.filter
    assert sorted(files) == sorted(f"{FOLDER}/{n}.json" for n in range(plan.shards))
    parts = [head, *(json.loads(files[f"{FOLDER}/{n}.json"]) for n in range(plan.shards))]
    signatures = sorted((s for p in parts for s in p["signatures"]), key=lambda s: s["n"])
    assert signatures == [
        {"n": n, "entry": s.entry, "pattern": s.pattern, "role": s.role}
        for n, s in enumerate(real.signatures)
    ]
    for n, part in enumerate(parts):
        # Each file names exactly the entries its signatures belong to.
        assert sorted(part["entries"]) == sorted({s["entry"] for s in part["signatures"]}), n
        for i, e in part["entries"].items():
            assert e == {"title": real.entries[i].title, "path": real.entries[i].path}
    # Signatures with no key word: the head holds them, and no others.
    unkeyed = [n for n, k in enumerate(plan.keys) if k is None]
    assert [s["n"] for s in head["signatures"]] == unkeyed
    # Error-name tokens such as CUDA_ERROR_LAUNCH_FAILED, which a log prints inside longer words,
    # and the Japanese and Russian `command not found`: 19 of the catalog's signatures.
    assert len(unkeyed) == 19
    # Each shard holds the signatures whose key hashes to it.
    for n, part in enumerate(parts[1:]):
        for s in part["signatures"]:
            key = plan.keys[s["n"]]
            assert key is not None and word_hash(key) % plan.shards == n


def test_an_empty_catalog_has_one_empty_shard() -> None:
    files = shard_files(IndexFile(1, 65536, {}, (), None))
    head = json.loads(files[HEAD])
    assert head["shards"] == 1 and head["signatures"] == [] and head["entries"] == {}
    assert json.loads(files[f"{FOLDER}/0.json"]) == {"entries": {}, "signatures": []}


def test_copies_of_a_signature_share_a_shard() -> None:
    # bench/synth.py's copies: `cp<k>x {*}<pattern>`; "cp3x" touches the literal's start, so
    # every copy is filed under the same word and lands in the same shard.
    entries = {
        f"e{k}": IndexEntry(f"E {k}", "memory", "high", "", f"failures/e{k}/") for k in range(3)
    }
    sigs = tuple(
        IndexSignature(f"e{k}", f"cp{k}x {{*}}CUDA error: out of memory; try", "defining", "")
        for k in range(3)
    )
    plan = layout(IndexFile(1, 65536, entries, sigs, None))
    assert plan.keys == ("memory", "memory", "memory")
