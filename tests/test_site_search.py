"""What Pagefind keeps of an entry page: its text, without the Monitor it queries or the line
only the printed page shows (generator/site_search.py, EXCLUDE_SELECTORS)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from entry_factory import entry_yaml

from generator.cli import main
from generator.fleet import site as fleet_site

REPO = Path(__file__).resolve().parents[1]
ENTRY = "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
PAGE = "/failures/xid-79-gpu-fallen-off-bus/"


def fragments(site: Path) -> dict[str, dict[str, Any]]:
    """Every page's Pagefind fragment (gzipped JSON after a signature), by URL."""
    out = {}
    for path in (site / "pagefind" / "fragment").iterdir():
        raw = gzip.decompress(path.read_bytes())
        data = json.loads(raw[raw.index(b"{") :])
        out[data["url"]] = data
    return out


def test_the_index_has_the_page_text_without_monitor_queries_or_the_print_only_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    (tmp_path / "entries/gpu-hardware").mkdir(parents=True)
    (tmp_path / ENTRY).write_text(entry_yaml())
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 0
    html = (tmp_path / "site" / PAGE.strip("/") / "index.html").read_text()
    # Both are on the page; only the index leaves them out.
    assert 'class="tw-print-only">Runbook from ' in html
    assert ('class="tw-monitor"' in html) == fleet_site.available()
    page = fragments(tmp_path / "site")[PAGE]
    content = page["content"]
    assert content.startswith("Xid 79: GPU has fallen off the bus. Severity: critical")
    for kept in [
        "The driver lost contact with the GPU over PCIe",  # summary
        "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",  # observed
        "Error signatures",
        "GPU has fallen off the bus",  # the signature
    ]:
        assert kept in content, kept
    for left_out in ["Runbook from", "LogQL", "Lucene", "Splunk", "|~ `", "rawCondition"]:
        assert left_out not in content, left_out
    # The section's heading and its sentence on the rule files stay, as a place to land.
    monitor = fleet_site.available()
    assert ("Monitor it" in content) == monitor
    assert ("monitor" in [a["id"] for a in page["anchors"]]) == monitor
