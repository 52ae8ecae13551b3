"""The compiled index: its exact JSON, its loader's errors, and the copy the site publishes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from catalog import ECC, SPECS, WATCHDOG, entries, render

from generator.catalog import Catalog
from generator.cli import main
from generator.diagnose.index import (
    IndexFormatError,
    build_index,
    index_json,
    load_index,
)
from generator.render.pages import Renderer

REPO = Path(__file__).resolve().parents[2]


def test_index_holds_entries_and_signatures_in_a_fixed_order() -> None:
    data = json.loads(index_json(build_index(entries((WATCHDOG, ECC)))))
    assert data == {
        "version": 1,
        # The newest last_reviewed, and a digest of the entries and signatures below.
        "catalog": "2026-11-29.c5038b786a",
        "max_line_bytes": 65536,
        "entries": {
            "cuda-ecc-uncorrectable": {
                "title": "CUDA error: uncorrectable ECC error encountered",
                "category": "gpu-hardware",
                "severity": "critical",
                "quick_fix": "Drain the node and have the GPU's memory checked; restart "
                "elsewhere from a checkpoint.",
                "path": "failures/cuda-ecc-uncorrectable/",
                "related": ["nccl-watchdog-timeout", "elastic-child-failed"],
                "collateral": ["nccl-watchdog-timeout", "elastic-child-failed"],
                "refines": None,
            },
            "nccl-watchdog-timeout": {
                "title": "NCCL watchdog timeout: Watchdog caught collective operation timeout",
                "category": "nccl-distributed",
                "severity": "high",
                "quick_fix": "Find the earliest non-timeout error on any rank and fix that rank.",
                "path": "failures/nccl-watchdog-timeout/",
                "related": [
                    "cuda-out-of-memory",
                    "elastic-child-failed",
                    "nccl-ib-completion-error",
                    "nccl-remote-process-exited",
                    "cuda-ecc-uncorrectable",
                ],
                "collateral": ["elastic-child-failed"],
                "refines": None,
            },
        },
        "signatures": [
            {
                "entry": "cuda-ecc-uncorrectable",
                "pattern": "CUDA error: uncorrectable ECC error encountered",
                "role": "defining",
                "seen_in": "https://github.com/pytorch/pytorch",
            },
            {
                "entry": "cuda-ecc-uncorrectable",
                "pattern": "CUDA kernel errors might be asynchronously reported at some other "
                "API call",
                "role": "context",
                "seen_in": "https://github.com/pytorch/pytorch",
            },
            {
                "entry": "nccl-watchdog-timeout",
                "pattern": "Watchdog caught collective operation timeout: "
                "WorkNCCL(SeqNum={int}, OpType={word}",
                "role": "defining",
                "seen_in": "https://github.com/pytorch/pytorch",
            },
            {
                "entry": "nccl-watchdog-timeout",
                "pattern": "To avoid data inconsistency, we are taking the entire process down.",
                "role": "context",
                "seen_in": "https://github.com/pytorch/pytorch",
            },
        ],
    }


def test_the_index_loads_back_and_groups_signatures_by_anchor() -> None:
    index = load_index(index_json(build_index(entries((WATCHDOG, ECC)))).encode())
    assert index.anchors == (
        b"CUDA error: uncorrectable ECC error encountered",
        b"CUDA kernel errors might be asynchronously reported at some other API call",
        b"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=",
        b"To avoid data inconsistency, we are taking the entire process down.",
    )
    assert index.by_anchor == ((0,), (1,), (2,), (3,))


GOOD = index_json(build_index(entries((ECC,))))


def test_the_catalog_version_follows_the_content() -> None:
    both = build_index(entries((WATCHDOG, ECC)))
    assert build_index(entries((ECC, WATCHDOG))).catalog == both.catalog
    one = build_index(entries((ECC,)))
    assert one.catalog is not None
    assert both.catalog is not None
    assert one.catalog.split(".")[1] != both.catalog.split(".")[1]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            b"\x89PNG",
            "not JSON ('utf-8' codec can't decode byte 0x89 in position 0: invalid start byte)",
        ),
        (b"[]", "not a signature index (no version)"),
        (b'{"version": 2}', "index version 2 is not supported; this trainwreck reads version 1"),
        (
            b'{"version": "' + b"9" * 100 + b'"}',
            "index version '999999999999999999999999999999999999999… (102 characters) is not "
            "supported; this trainwreck reads version 1",
        ),
        (b"[" * 33 + b"]" * 33, "nests deeper than 32 levels (an index nests 4)"),
        (b'["' + b"[" * 40 + b'"]', "not a signature index (no version)"),
        (
            b"\xef\xbb\xbf{}",
            "not JSON (Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0))",
        ),
        (
            GOOD.replace('"max_line_bytes": 65536', '"max_line_bytes": 10').encode(),
            "max_line_bytes: Input should be greater than or equal to 256",
        ),
        (
            GOOD.replace('"role": "context"', '"role": "maybe"').encode(),
            "signatures.1.role: Input should be 'defining', 'context' or 'harmless'",
        ),
        (
            GOOD.replace('"entry": "cuda-ecc-uncorrectable"', '"entry": "nope"', 1).encode(),
            "signatures[0]: unknown entry 'nope'",
        ),
        (
            GOOD.replace('"pattern": "CUDA error', '"pattern": "CUDA {error}').encode(),
            "signatures[0].pattern: unknown placeholder {error}; use one of {int}, {num}, "
            "{hex}, {pci}, {word}, {token}, {*}, or {{ for a literal brace",
        ),
    ],
)
def test_a_bad_index_is_refused_with_the_reason(raw: bytes, message: str) -> None:
    with pytest.raises(IndexFormatError) as caught:
        load_index(raw)
    assert str(caught.value) == message


def test_index_paths_are_where_the_renderer_puts_entry_pages() -> None:
    catalog = Catalog.of(entries())
    index = build_index(catalog.entries)
    renderer = Renderer(REPO / "templates")
    for entry in catalog.entries:
        assert renderer.entry(entry, catalog).src_uri == index.entries[entry.id].path + "index.md"


def test_the_site_publishes_the_same_index_at_signatures_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    for spec in SPECS:
        (tmp_path / spec.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / spec.path).write_text(render(spec))
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 0
    published = (tmp_path / "site/signatures.json").read_text()
    from generator.validation import SourceFile, validate_sources

    sources = [
        SourceFile(str(p.relative_to(tmp_path)), p.read_bytes())
        for p in sorted((tmp_path / "entries").rglob("*.yaml"))
    ]
    assert published == index_json(build_index(validate_sources(sources).entries))
    assert sorted(json.loads(published)["entries"]) == sorted(spec.id for spec in SPECS)
