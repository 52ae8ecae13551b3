"""The two engines on the benchmark's cases: the Python engine in this process, and the browser
engine's files in Node. Each returns, per case id, the report JSON of docs/diagnose.md.

A case's log is named by its path under corpus/real/ (never holding a rank, which
tests/realeval/ checks), so a report reads as `trainwreck diagnose corpus/real/logs/...` would.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.index import IndexFile, SignatureIndex, build_index, index_data
from generator.diagnose.report import to_json
from generator.diagnose.scan import Scanner
from generator.loading.discovery import find_entry_files, read_sources
from generator.validation import loadable_entries
from realeval.cases import REAL, REPO, Case, read_log

ENGINE_JS = REPO / "templates" / "static" / "javascripts" / "engine"
NODE_SCRIPT = Path(__file__).with_name("diagnose_node.js")
ENGINES = ("python", "node")


def catalog_index(entries: Path = REPO / "entries") -> IndexFile:
    """The index `trainwreck diagnose` compiles from a checkout's entries/."""
    sources, _ = read_sources(find_entry_files(entries), REPO)
    return build_index(loadable_entries(sources)[0])


def python_reports(index: IndexFile, cases: Sequence[Case], root: Path = REAL) -> dict[str, Any]:
    compiled = SignatureIndex(index)
    scanner = Scanner(compiled)
    return {
        case.id: to_json(
            diagnose_logs(compiled, [LogBytes(case.file, read_log(case, root))], scanner).diagnosis
        )
        for case in cases
    }


class NodeMissing(RuntimeError):
    pass


def node_reports(index: IndexFile, cases: Sequence[Case], root: Path = REAL) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        raise NodeMissing("the browser engine is scored in Node, and `node` is not on PATH")
    request = [
        {"id": c.id, "name": c.file, "b64": base64.b64encode(read_log(c, root)).decode()}
        for c in cases
    ]
    with tempfile.TemporaryDirectory() as tmp:
        index_path = Path(tmp) / "signatures.json"
        index_path.write_text(json.dumps(index_data(index)), encoding="utf-8")
        done = subprocess.run(
            [node, str(NODE_SCRIPT), str(ENGINE_JS), str(index_path)],
            input=json.dumps(request).encode(),
            capture_output=True,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"the browser engine failed: {done.stderr.decode(errors='replace')}")
    reports: dict[str, Any] = json.loads(done.stdout)
    return reports


def reports(engine: str, index: IndexFile, cases: Sequence[Case]) -> dict[str, Any]:
    return (python_reports if engine == "python" else node_reports)(index, cases)
