"""Helpers for the /diagnose/ tests: open the page, run the browser engine, run the Python one.

The browser engine is run through its real Web Worker (javascripts/engine/worker.js) with the
site's own /signatures.json, and the Python engine reads the same file, so both sides judge with
one index.
"""

from __future__ import annotations

import base64
import io
from dataclasses import asdict
from pathlib import Path
from typing import Any

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.index import SignatureIndex, load_index
from generator.diagnose.report import stats_notes, text_notes, to_json

REPO = Path(__file__).resolve().parents[2]

Logs = list[tuple[str, bytes]]


def open_diagnose(page: Any, site_url: str) -> None:
    """Go to /diagnose/ and wait until its engine has loaded the index."""
    response = page.goto(f"{site_url}/diagnose/")
    assert response is not None and response.status == 200
    page.wait_for_selector("[data-tw-diagnose][data-ready]", timeout=15_000)


def site_index(site: Path) -> SignatureIndex:
    """The index the built site publishes, as the Python engine reads it."""
    return load_index((site / "signatures.json").read_bytes())


def python_result(index: SignatureIndex, logs: Logs) -> dict[str, Any]:
    run = diagnose_logs(index, [LogBytes(name, raw) for name, raw in logs])
    s = run.stats
    return {
        "json": to_json(run.diagnosis),
        "notes": stats_notes(s, index.max_line_bytes) + text_notes(run.diagnosis),
        "stats": {
            "files": s.files,
            "bytes": s.bytes,
            "lines": s.lines,
            "longLines": s.long_lines,
            "skippedBytes": s.skipped_bytes,
        },
        "problems": [asdict(p) for p in run.problems],
    }


# Runs each set of logs through the engine's Web Worker, as the page does, and returns what the
# page receives (only the parts the Python engine also computes).
RUN_WORKER = """async ({worker, index, sets}) => {
  const w = new Worker(worker);
  const ask = (message) => new Promise((resolve, reject) => {
    w.onmessage = (event) => {
      const m = event.data;
      if (m.type === "progress") return;
      if (m.type === "error") reject(new Error(m.message));
      else resolve(m);
    };
    w.onerror = (event) => reject(new Error(event.message));
    w.postMessage(message);
  });
  const bytes = (b64) => {
    const text = atob(b64);
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  };
  await ask({type: "init", indexUrl: index});
  const results = [];
  for (let i = 0; i < sets.length; i++) {
    const logs = [];
    for (const [name, b64, url] of sets[i]) {
      const raw = url ? new Uint8Array(await (await fetch(url)).arrayBuffer()) : bytes(b64);
      logs.push({name, bytes: raw});
    }
    const m = await ask({type: "diagnose", id: i + 1, logs, baseUrl: ""});
    results.push({
      json: m.result.json, notes: m.result.notes, stats: m.result.stats,
      problems: m.result.problems,
    });
  }
  w.terminate();
  return results;
}"""


def browser_results(
    page: Any, site_url: str, sets: list[Logs], served: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The browser engine's results for each set of logs, run in Chromium's worker.

    Logs are handed over inline, except those named in `served` ({name: URL}), which the page
    fetches: large logs stay out of the test process's memory and Playwright's messages.
    """
    served = served or {}
    if not page.url.startswith(site_url):
        page.goto(f"{site_url}/")
    encoded = [
        [
            [name, None, served[name]] if name in served else [name, base64.b64encode(raw).decode()]
            for name, raw in logs
        ]
        for logs in sets
    ]
    results: list[dict[str, Any]] = page.evaluate(
        RUN_WORKER,
        {
            "worker": f"{site_url}/javascripts/engine/worker.js",
            "index": f"{site_url}/signatures.json",
            "sets": encoded,
        },
    )
    return results


def brief(result: dict[str, Any]) -> dict[str, Any]:
    """What the issue names: ids, roles, first failed rank, file and line of each first hit."""
    return {
        "findings": [
            (f["id"], f["role"], f["first"]["file"], f["first"]["line"])
            for f in result["json"]["findings"]
        ],
        "first_failed_rank": result["json"]["first_failed_rank"],
    }


def python_stream_result(index: SignatureIndex, logs: Logs) -> dict[str, Any]:
    """As python_result, but each log read as `trainwreck diagnose` reads a file: through
    OpenLog, which decompresses it and turns read failures into problems."""
    from generator.diagnose.context import END_BYTES, Tail, read_lines
    from generator.diagnose.ending import with_ending
    from generator.diagnose.engine import LinesOf, with_culprit
    from generator.diagnose.inputs import LogInput, OpenLog
    from generator.diagnose.lineinfo import rank_from_path
    from generator.diagnose.scan import LogReadError, Scanner, ScanProblem, ScanStats
    from generator.diagnose.triage import Tally, triage

    scanner, tally, stats = Scanner(index), Tally(index), ScanStats()
    problems: list[ScanProblem] = []
    endings = []
    for number, (name, raw) in enumerate(logs):
        try:
            opened = OpenLog(LogInput(name, None, True, None), io.BytesIO(raw))
        except LogReadError as exc:
            problems.append(ScanProblem(name, str(exc), "read"))
            continue
        with opened:
            tail = Tail(opened.read, END_BYTES)
            tally.add_all(
                scanner.scan(
                    tail.read, name, number, stats, problems, file_rank=rank_from_path(name)
                )
            )
            endings.append((number, name, tail.last_line()))

    def reopen(number: int) -> LinesOf:
        # As the command line opens a file again: decompressed, whatever can be read.
        def lines_of(wanted: set[int], max_bytes: int) -> dict[int, bytes]:
            try:
                with OpenLog(LogInput("", None, True, None), io.BytesIO(logs[number][1])) as again:
                    return read_lines(again.read, wanted, max_bytes)
            except LogReadError:
                return {}

        return lines_of

    diagnosis = with_culprit(with_ending(triage(tally), endings), reopen)
    return {
        "json": to_json(diagnosis),
        "notes": stats_notes(stats, index.max_line_bytes) + text_notes(diagnosis),
        "stats": {
            "files": stats.files,
            "bytes": stats.bytes,
            "lines": stats.lines,
            "longLines": stats.long_lines,
            "skippedBytes": stats.skipped_bytes,
        },
        "problems": [asdict(p) for p in problems],
    }
