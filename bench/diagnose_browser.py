"""Benchmark the browser diagnoser (/diagnose/) in headless Chromium against the Python engine.

    python bench/diagnose_browser.py                 # 10 MB log, the catalog in entries/
    python bench/diagnose_browser.py --size-mb 50 --repeat 5

Builds the site (the full catalog's /signatures.json, the engine's scripts and the /diagnose/
page) into a temporary folder and serves it on loopback; writes a synthetic multi-rank log with
bench/diagnose.py's generator (torchrun prefixes, 64 ranks, one injected root cause, a watchdog
storm); then, in Debian's Chromium driven by Playwright:

- paste: the log is put into the text area, and the time from pressing Diagnose to the rendered
  result is measured in the page;
- file: the same log chosen with the file picker, pressed, measured the same way.

Next to them, the Python engine on the same bytes (in process, and `trainwreck diagnose --json`
end to end). Both verdicts must be identical. Each figure is the best of --repeat runs.

Then the linear-time claim, in both engines: the time to match a 1 MB adversarial line (the
pattern's first literal repeated with class runs between, the rest of the pattern never
following, the shape that makes a backtracking regex quadratic) against a 1 MB benign line (log
text with the pattern's first literal at its start, so the automaton also reads all of it), for
the catalog patterns with the most placeholders; and, for contrast, Python's backtracking `re` on
a short adversarial line. This prints figures; it is not a timed test.

With --storms (or --storms-only, which skips the rest), issue 15's storms from
bench/diagnose.py's `storm_logs` (a million identical OOM lines, 20,000 lines of 1,000
interleaved rank prefixes, 200,000 watchdog lines that are all different), each against a
few-match log of the same size (the synthetic log above, repeated) in the same page: the worker's
scan time on each file chosen with a file picker, best of --repeat, as a ratio (target <= 2x);
and each storm's JSON report against the Python engine's.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import importlib.util
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.diagnose.engine import LogBytes, diagnose_logs  # noqa: E402
from generator.diagnose.index import SignatureIndex, load_index  # noqa: E402
from generator.diagnose.pattern import Gap, Lit, Matcher, Run, to_regex  # noqa: E402
from generator.diagnose.report import to_json  # noqa: E402
from generator.diagnose.scan import Scanner  # noqa: E402
from tests.chromium import CHROMIUM, launch  # noqa: E402

LINE_BYTES = 1 << 20


def load_bench_generator() -> Any:
    spec = importlib.util.spec_from_file_location("bench_diagnose", REPO / "bench" / "diagnose.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_log(
    gen: Any, path: Path, size: int, index: SignatureIndex, examples: Any, seed: int
) -> dict[str, object]:
    """bench/diagnose.py's log (its lines, ranks and injected failures) in batches small enough
    to come out close to `size`: one root cause early, other failures later, a watchdog storm
    on every other rank at the end. Returns the injected root cause and rank."""
    rng = random.Random(seed)
    pool = gen.noise_pool(rng)
    batch = 2000
    batches = max(3, size // (batch * 150))
    root, injected, storm = gen.plan_failures(rng, index, examples, batches)
    root_rank = gen.ROOT_RANK
    end: list[bytes] = []
    if storm:
        end = [
            f"[rank{r}]:[{gen.TS}] ERROR {storm[0]}".encode() for r in range(64) if r != root_rank
        ]
    written = 0
    number = 0
    with path.open("wb") as out:
        while written < size - 20_000:
            lines = rng.choices(pool, k=batch)
            for rank, text in injected.get(number, []):
                lines.insert(rng.randrange(len(lines)), f"[rank{rank}]:[{gen.TS}] ERROR {text}")
            data = ("\n".join(lines) + "\n").replace(gen.TS, gen.stamp(number * 2.0)).encode()
            data = data[: max(0, size - 20_000 - written)]
            data = data[: data.rfind(b"\n") + 1]
            out.write(data)
            written += len(data)
            number += 1
            if not data:
                break
        tail = b"\n".join(end).replace(gen.TS.encode(), gen.stamp(number * 2.0).encode())
        out.write(tail + b"\n")
    return {"root": root, "rank": root_rank}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def build_site(out: Path) -> None:
    from generator.mkdocs_glue import build_site as build

    build(REPO / "mkdocs.yml", out)


# Presses Diagnose and resolves with the milliseconds until the result is on the page.
TIME_TO_RESULT = """() => new Promise((resolve) => {
  const root = document.querySelector('[data-tw-diagnose]');
  const results = root.querySelector('[data-dx-results]');
  const status = root.querySelector('[data-dx-status]');
  results.hidden = true;
  root.removeAttribute('data-ms');
  const started = performance.now();
  root.querySelector('[data-dx-run]').click();
  const check = () => {
    if (!results.hidden && root.hasAttribute('data-ms') && status.textContent.startsWith('Done')) {
      resolve({ms: performance.now() - started, inner: JSON.parse(root.getAttribute('data-ms'))});
    } else {
      requestAnimationFrame(check);
    }
  };
  requestAnimationFrame(check);
})"""

# The whole JSON report of the browser engine on the file in the picker, from a fresh worker.
WORKER_JSON = """async (root) => {
  const w = new Worker(root + 'javascripts/engine/worker.js');
  const ask = (m) => new Promise((ok) => {
    w.onmessage = (e) => { if (e.data.type !== 'progress') ok(e.data); };
    w.postMessage(m);
  });
  await ask({type: 'init', indexUrl: root + 'signatures.json'});
  const chosen = document.querySelector('#bench-file').files[0];
  const r = await ask({type: 'diagnose', id: 1, logs: [{name: chosen.name, file: chosen}]});
  w.terminate();
  return r.result.json;
}"""

# The worker's scan time on one-line logs (each line as pasted text), best of `repeat`.
WORKER_SCAN_LINES = """async ({root, lines, repeat}) => {
  const w = new Worker(root + 'javascripts/engine/worker.js');
  const ask = (m) => new Promise((ok) => {
    w.onmessage = (e) => { if (e.data.type !== 'progress') ok(e.data); };
    w.postMessage(m);
  });
  await ask({type: 'init', indexUrl: root + 'signatures.json'});
  const out = [];
  for (const line of lines) {
    let best = Infinity;
    for (let r = 0; r < repeat; r++) {
      const m = await ask({type: 'diagnose', id: 1, logs: [{name: 'line.log', text: line}]});
      best = Math.min(best, m.result.ms.scan);
    }
    out.push(best);
  }
  w.terminate();
  return out;
}"""

READ_VERDICT = """() => [...document.querySelectorAll('.tw-dx-card')].map(c => c.dataset.entryId)
  .concat([document.querySelector('[data-dx-first-rank]')
    ? Number(document.querySelector('[data-dx-first-rank]').dataset.dxFirstRank) : null])"""


def measure_page(page: Any, repeat: int) -> tuple[float, dict[str, float]]:
    best = float("inf")
    inner: dict[str, float] = {}
    for _ in range(repeat):
        got = page.evaluate(TIME_TO_RESULT)
        if got["ms"] < best:
            best, inner = got["ms"], got["inner"]
    return best / 1000, inner


# --- adversarial lines -------------------------------------------------------------------------

FILLER = {
    "int": "7",
    "num": "1.5",
    "hex": "0x7f",
    "pci": "0000:3b:00",
    "word": "ALLREDUCE",
    "token": "x=1",
}


def lines_for(matcher: Matcher, size: int) -> tuple[str, str]:
    """(adversarial, benign) lines of `size` characters for one pattern; neither matches.

    Both start with every literal of the pattern (in reverse order), so the quick literal
    checks pass and the automaton reads the whole line. The adversarial line then repeats a
    partial match (the pattern up to its last part, with its runs and gaps filled) that never
    completes; the benign one is ordinary log text.
    """
    partial = ""
    for token in matcher.tokens[:-1]:
        if isinstance(token, Run):
            partial += FILLER[token.cls.name]
        elif isinstance(token, Gap):
            partial += " "
        elif isinstance(token, Lit):
            partial += token.text
    partial += "\t"  # no class holds a tab: a final run cannot complete on the next repeat
    prefix = " ".join(reversed(matcher.literals)) + " | "
    adversarial = prefix + (partial * (size // len(partial) + 1))[: size - len(prefix)]
    text = "step 1200 | loss 2.113 | lr 3.0e-4 | grad_norm 0.731 | tokens/s 18250 | "
    benign = prefix + (text * (size // len(text) + 1))[: size - len(prefix)]
    return adversarial, benign


def worst_patterns(index: SignatureIndex, count: int) -> list[Matcher]:
    def weight(m: Matcher) -> tuple[int, int]:
        variable = sum(1 for t in m.tokens if not isinstance(t, Lit))
        return (variable, len(m.pattern))

    matchers = sorted((s.matcher for s in index.signatures), key=weight, reverse=True)
    chosen = []
    for m in matchers:
        if m._plain or any(m.search(line) for line in lines_for(m, 4096)):
            continue
        chosen.append(m)
        if len(chosen) == count:
            break
    return chosen


def gap_pattern(index: SignatureIndex) -> Matcher:
    """The catalog pattern with a gap ({*}) and the most tokens: the shape that makes a
    backtracking regex quadratic."""
    with_gap = [
        s.matcher for s in index.signatures if any(isinstance(t, Gap) for t in s.matcher.tokens)
    ]
    return max(with_gap, key=lambda m: (len(m.tokens), len(m.pattern)))


def best_of(fn: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


JS_LINE_TIMES = """async ({patterns, lines, repeat}) => {
  const E = window.TrainwreckEngine;
  const out = [];
  for (let i = 0; i < patterns.length; i++) {
    const m = new E.Matcher(patterns[i]);
    const times = [];
    for (const line of lines[i]) {
      let best = Infinity;
      let result = null;
      for (let r = 0; r < repeat; r++) {
        const t0 = performance.now();
        result = m.search(line);
        best = Math.min(best, performance.now() - t0);
      }
      times.push([best, result]);
    }
    out.push(times);
  }
  return out;
}"""


# The worker's scan time (ms, best of `repeat`) on each file of the picker `#bench-storm`, runs
# alternating between the files; and each file's JSON report.
WORKER_SCAN_FILES = """async ({root, repeat}) => {
  const w = new Worker(root + 'javascripts/engine/worker.js');
  const ask = (m) => new Promise((ok) => {
    w.onmessage = (e) => { if (e.data.type !== 'progress') ok(e.data); };
    w.postMessage(m);
  });
  await ask({type: 'init', indexUrl: root + 'signatures.json'});
  const files = [...document.querySelector('#bench-storm').files];
  const best = files.map(() => Infinity);
  const json = files.map(() => null);
  for (let r = 0; r < repeat; r++) {
    for (let i = 0; i < files.length; i++) {
      const m = await ask({type: 'diagnose', id: 1, logs: [{name: files[i].name, file: files[i]}]});
      best[i] = Math.min(best[i], m.result.ms.scan);
      json[i] = m.result.json;
    }
  }
  w.terminate();
  return {best, json};
}"""


def run_storms(page: Any, url: str, gen: Any, index: SignatureIndex, log: Path, work: Path,
               repeat: int, seed: int) -> bool:  # fmt: skip
    """Each storm against a few-match log of its size, in the worker; the same JSON as Python."""
    if page.locator("#bench-storm").count() == 0:
        page.evaluate(
            "() => document.body.appendChild(Object.assign("
            "document.createElement('input'), {type: 'file', id: 'bench-storm', multiple: true}))"
        )
    ok = True
    scanner = Scanner(index)
    print(f"\nstorms, browser worker scan time against a few-match log of the same size, best of "
          f"{repeat} (target <= 2x):")  # fmt: skip
    for name, path in gen.storm_logs(work, random.Random(seed)):
        size = path.stat().st_size
        base = gen.baseline_of(log, size, work / "storm-baseline.log")
        page.set_input_files("#bench-storm", [str(base), str(path)])
        got = page.evaluate(WORKER_SCAN_FILES, {"root": f"{url}/", "repeat": repeat})
        (base_ms, storm_ms), (_, storm_json) = got["best"], got["json"]
        py_json = to_json(
            diagnose_logs(index, [LogBytes(path.name, path.read_bytes())], scanner).diagnosis
        )
        same = storm_json == py_json
        ratio = storm_ms / base_ms
        ok = ok and ratio <= 2 and same
        print(
            f"  {name:<52} {size / 1e6:6.1f} MB  {storm_ms / 1000:6.2f} s vs "
            f"{base_ms / 1000:5.2f} s  {ratio:5.2f}x  ({'met' if ratio <= 2 else 'MISSED'}); "
            + ("the same JSON report as Python" if same else "a DIFFERENT report from Python")
        )
        path.unlink()
        base.unlink()
    return ok


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """The built site on a loopback port, in a thread; the server and its URL."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=10, help="log size (default 10)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the best counts")
    parser.add_argument("--patterns", type=int, default=3, help="patterns for the line test")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--storms", action="store_true", help="also the storms (issue 15)")
    parser.add_argument("--storms-only", action="store_true", help="only the storms")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"bench: {CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="trainwreck-bench-browser-"))
    try:
        site = work / "site"
        print("building the site ...", flush=True)
        build_site(site)
        index = load_index((site / "signatures.json").read_bytes())
        gen = load_bench_generator()
        examples = gen.load_catalog(
            argparse.Namespace(entries=str(REPO / "entries"), index=str(site / "signatures.json"))
        )[1]
        log = work / f"bench-{args.size_mb}MB.log"
        expect = write_log(gen, log, args.size_mb * 1_000_000, index, examples, args.seed)
        raw = log.read_bytes()
        print(
            f"log            {len(raw):,} bytes, 64 ranks; {len(index.signatures)} signatures, "
            f"{len(index.entries)} entries (injected: {expect['root']} on rank {expect['rank']})"
        )
        if args.storms_only:
            server, url = serve(site)
            with sync_playwright() as p:
                browser = launch(p)
                page = browser.new_page()
                page.goto(f"{url}/diagnose/")
                ok = run_storms(page, url, gen, index, log, work, args.repeat, args.seed)
                browser.close()
            server.shutdown()
            return 0 if ok else 1

        # Python, in process and end to end.
        run: Any = None

        scanner = Scanner(index)  # compiled once, as the worker compiles its index once

        def python_engine() -> None:
            nonlocal run
            run = diagnose_logs(index, [LogBytes(log.name, raw)], scanner)

        py_time = best_of(python_engine, args.repeat)
        py_json = to_json(run.diagnosis)
        cli = [sys.executable, "-m", "generator.cli", "diagnose", "--json", "--no-progress"]
        cli += ["--index", str(site / "signatures.json"), str(log)]

        def python_cli() -> None:
            subprocess.run(cli, check=True, capture_output=True, cwd=REPO)

        cli_time = best_of(python_cli, args.repeat)

        server, url = serve(site)
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page()
            page.goto(f"{url}/diagnose/")
            page.wait_for_selector("[data-tw-diagnose][data-ready]", timeout=30_000)
            # Paste: the text area holds the log, as after Ctrl+V.
            page.evaluate(
                """text => new Promise((done) => {
                  const area = document.querySelector('#tw-dx-log');
                  area.value = text;
                  area.offsetHeight;  // the browser lays the pasted text out, as after a paste
                  requestAnimationFrame(() => requestAnimationFrame(done));
                })""",
                raw.decode("utf-8", "replace"),
            )
            paste_time, paste_inner = measure_page(page, args.repeat)
            paste_verdict = page.evaluate(READ_VERDICT)
            page.evaluate("() => { document.querySelector('#tw-dx-log').value = ''; }")
            # File: the same bytes through the file picker.
            page.set_input_files("#tw-dx-files", str(log))
            file_time, file_inner = measure_page(page, args.repeat)
            file_verdict = page.evaluate(READ_VERDICT)
            page.evaluate(
                "() => document.body.appendChild(Object.assign("
                "document.createElement('input'), {type: 'file', id: 'bench-file'}))"
            )
            page.set_input_files("#bench-file", str(log))
            js_json = page.evaluate(WORKER_JSON, f"{url}/")
            roots = [f["id"] for f in py_json["findings"] if f["role"] == "root-cause"]
            py_verdict = [*roots, py_json["first_failed_rank"]]

            # Lines: the automaton in Chromium (main thread) and in Python.
            page.add_script_tag(url=f"{url}/javascripts/engine/pattern.js")
            gap = gap_pattern(index)
            matchers = [*worst_patterns(index, args.patterns), gap]
            pairs = [lines_for(m, LINE_BYTES) for m in matchers]
            js_times = page.evaluate(
                JS_LINE_TIMES,
                {
                    "patterns": [m.pattern for m in matchers],
                    "lines": [list(pair) for pair in pairs],
                    "repeat": max(3, args.repeat),
                },
            )
            # The whole scanner on one-line logs of the gap pattern's two lines.
            js_scan = page.evaluate(
                WORKER_SCAN_LINES,
                {"root": f"{url}/", "lines": list(pairs[-1]), "repeat": max(3, args.repeat)},
            )
            storms_ok = not args.storms or run_storms(
                page, url, gen, index, log, work, args.repeat, args.seed
            )
            browser.close()
        server.shutdown()

        mb = len(raw) / 1e6
        print(
            f"browser paste  {paste_time:6.2f} s  {mb / paste_time:7.1f} MB/s  "
            f"(worker: scan {paste_inner['scan'] / 1000:.2f} s, with context lines "
            f"{paste_inner['worker'] / 1000:.2f} s)"
        )
        print(
            f"browser file   {file_time:6.2f} s  {mb / file_time:7.1f} MB/s  "
            f"(worker: scan {file_inner['scan'] / 1000:.2f} s, with context lines "
            f"{file_inner['worker'] / 1000:.2f} s)"
        )
        print(f"python engine  {py_time:6.2f} s  {mb / py_time:7.1f} MB/s  (in process)")
        print(
            f"python CLI     {cli_time:6.2f} s  {mb / cli_time:7.1f} MB/s  "
            "(trainwreck diagnose --json)"
        )
        target = "met" if paste_time < 1 and file_time < 1 else "MISSED"
        print(f"target         time to result under 1 s for {args.size_mb} MB: {target}")
        same = paste_verdict == file_verdict == py_verdict and js_json == py_json
        top = py_json["findings"][0]["id"] if py_json["findings"] else None
        print(
            f"verdict        {top} first, on rank {py_json['first_failed_rank']} (injected: "
            f"{expect['root']} on rank {expect['rank']}); {len(roots)} root causes, "
            f"{len(py_json['findings']) - len(roots)} collateral; browser and python: "
            + ("the same JSON report" if same else "DIFFERENT")
        )
        print(f"\n1 MB lines (adversarial / benign), best of {max(3, args.repeat)}:")
        ratios = []
        for m, (adversarial, benign), js in zip(matchers, pairs, js_times, strict=True):
            py_adv = best_of(lambda m=m, a=adversarial: m.search(a), max(1, args.repeat))
            py_ben = best_of(lambda m=m, b=benign: m.search(b), max(1, args.repeat))
            (js_adv, js_adv_hit), (js_ben, js_ben_hit) = js
            assert not m.search(adversarial) and not m.search(benign)
            assert not js_adv_hit and not js_ben_hit
            ratios.append((py_adv / py_ben, js_adv / js_ben))
            print(f"  {m.pattern}")
            print(
                f"    python  {py_adv * 1000:8.1f} ms / {py_ben * 1000:8.1f} ms = "
                f"{py_adv / py_ben:5.2f}x"
            )
            print(f"    browser {js_adv:8.1f} ms / {js_ben:8.1f} ms = {js_adv / js_ben:5.2f}x")
        print(
            f"  worst ratio: python {max(r[0] for r in ratios):.2f}x, "
            f"browser {max(r[1] for r in ratios):.2f}x (1.0 = the same cost per character)"
        )
        # The whole scanner (prefilter, line rules, matching) on a log of one 1 MB line. Only
        # the first max_line_bytes of a line are matched, which bounds the work per line too.
        adversarial, benign = (line.encode() for line in pairs[-1])
        py_scan_adv = best_of(
            lambda: diagnose_logs(index, [LogBytes("a.log", adversarial)], scanner), args.repeat
        )
        py_scan_ben = best_of(
            lambda: diagnose_logs(index, [LogBytes("b.log", benign)], scanner), args.repeat
        )
        print(
            f"  scanner, one-line 1 MB log of the last pattern's lines (matched on its first "
            f"{index.max_line_bytes // 1024} KiB):"
        )
        print(
            f"    python  {py_scan_adv * 1000:8.1f} ms / {py_scan_ben * 1000:8.1f} ms = "
            f"{py_scan_adv / py_scan_ben:5.2f}x"
        )
        print(
            f"    browser {js_scan[0]:8.1f} ms / {js_scan[1]:8.1f} ms = "
            f"{js_scan[0] / js_scan[1]:5.2f}x"
        )
        # For contrast: a backtracking regex of the same language, on much shorter lines.
        regex = re.compile(to_regex(gap.tokens))
        print(f"  contrast, {gap.pattern!r} on adversarial lines:")
        for size in (10_000, 40_000, 160_000):
            line = lines_for(gap, size)[0]
            backtracking = best_of(lambda r=regex, x=line: r.search(x), 1)
            automaton = best_of(lambda m=gap, x=line: m.search(x), 1)
            print(
                f"    {size // 1000:3d} KB: Python re (backtracking) "
                f"{backtracking * 1000:8.1f} ms, the automaton {automaton * 1000:6.1f} ms"
            )
        return 0 if same and storms_ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
