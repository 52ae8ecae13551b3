"""What the project's Python engine says about a lab log: used by run.py, drift.py and tests/lab/.

Needs only the project (no PyTorch): the catalog is compiled from entries/ as `trainwreck
diagnose` compiles it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from generator.diagnose.engine import LogBytes, diagnose_logs, scan_log
from generator.diagnose.index import SignatureIndex, build_index
from generator.diagnose.report import to_json
from generator.diagnose.scan import Scanner
from generator.loading.discovery import find_entry_files, read_sources
from generator.validation import loadable_entries

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "lab" / "scenarios.toml"
CORPUS = REPO / "corpus" / "lab"


def scenarios() -> list[dict[str, Any]]:
    return tomllib.loads(MANIFEST.read_text())["scenario"]


def expectation(scenario: dict[str, Any], build: str) -> dict[str, Any]:
    """expect, first_rank and gap for a release's build ("cpu" or "cuda")."""
    out = {k: scenario.get(k) for k in ("expect", "first_rank", "gap", "missing", "harmless")}
    out.update(scenario.get("expect_by", {}).get(build, {}))
    return out


def build_of(log: Path) -> str:
    """The build a lab log was made with, from its header's software line."""
    for line in log.read_text(errors="replace").splitlines()[:12]:
        if line.startswith("# software: torch "):
            return "cpu" if "+cpu" in line.split(",")[0] else "cuda"
    return "cpu"


@cache
def catalog_index(entries: Path = REPO / "entries") -> SignatureIndex:
    sources, _ = read_sources(find_entry_files(entries), REPO)
    return SignatureIndex(build_index(loadable_entries(sources)[0]))


def entry_ids(entries: Path = REPO / "entries") -> set[str]:
    return {p.stem for p in entries.glob("*/*.yaml")}


@dataclass(frozen=True)
class Verdict:
    top: str | None  # the top root cause, None when nothing (but harmless noise) fired
    first_failed_rank: int | None
    report: dict[str, Any]

    @property
    def silent(self) -> bool:
        """No defining or context signature fired (harmless ones may)."""
        return all(f["role"] == "not-the-cause" for f in self.report["findings"])

    def brief(self) -> str:
        roles = ", ".join(f"{f['id']} ({f['role']})" for f in self.report["findings"])
        return f"{self.top or 'nothing'} / rank {self.first_failed_rank} [{roles}]"


def diagnose(log: Path, index: SignatureIndex | None = None) -> Verdict:
    index = index or catalog_index()
    run = diagnose_logs(index, [LogBytes(log.name, log.read_bytes())])
    report = to_json(run.diagnosis)
    roots = [f["id"] for f in report["findings"] if f["role"] == "root-cause"]
    return Verdict(roots[0] if roots else None, report["first_failed_rank"], report)


def signatures_matched(log: Path, index: SignatureIndex | None = None) -> dict[str, str]:
    """Every signature that matches a line of the log: 'entry: pattern' -> its first line."""
    index = index or catalog_index()
    out: dict[str, str] = {}
    for match in scan_log(Scanner(index), LogBytes(log.name, log.read_bytes())):
        for sig in match.signatures:
            s = index.signatures[sig]
            out.setdefault(f"{s.entry} [{s.role}]: {s.pattern}", match.text)
    return out


def check(scenario: dict[str, Any], verdict: Verdict, build: str) -> list[str]:
    """What is wrong with a verdict for this scenario (empty: as expected)."""
    want = expectation(scenario, build)
    if want["expect"] == "healthy":
        wrong = [] if verdict.silent else [f"a healthy log fired: {verdict.brief()}"]
        harmless = want.get("harmless")
        named = [f["id"] for f in verdict.report["findings"] if f["role"] == "not-the-cause"]
        if harmless is not None and harmless not in named:
            wrong.append(f"expected {harmless} as not the cause, got {verdict.brief()}")
        return wrong
    wrong = []
    if want["expect"] == "unrecognized":
        if verdict.top is not None or not verdict.report.get("unrecognized"):
            wrong.append(f"expected an unrecognized error and no entry, got {verdict.brief()}")
    elif verdict.top != want["expect"]:
        wrong.append(f"expected {want['expect']}, got {verdict.brief()}")
    rank = want.get("first_rank")
    if rank == "none":
        rank = None
    if rank != "any" and verdict.first_failed_rank != rank:
        wrong.append(f"expected first failed rank {rank}, got {verdict.first_failed_rank}")
    return wrong


def excerpt_problem(excerpt: str, log_text: str) -> str | None:
    """Why `excerpt` is not a verbatim excerpt of a lab log (None: it is).

    Each non-blank line of the excerpt must be a whole line of the log, in the log's order, so
    that an entry's lab example is the lab's own output, trimmed and never edited.
    """
    lines = log_text.splitlines()
    at = 0
    for wanted in (line for line in excerpt.splitlines() if line.strip()):
        try:
            at = lines.index(wanted, at) + 1
        except ValueError:
            return f"not a line of the log (after line {at}): {wanted!r}"
    return None
