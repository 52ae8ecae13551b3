"""CPU time of the browser engine in Node on issue 15's storms, each against a few-match log of
its size (the storm's first --max-mb, if it is longer), cut from a 10 MB synthetic log as
bench/diagnose_browser.py cuts it.

    python bench/diagnose_node.py                 # best of 3
    python bench/diagnose_node.py --repeat 5 --max-mb 8
    python bench/diagnose_node.py --profile DIR   # also a --cpu-prof profile of each storm

The engine's files are loaded as tests/browser/diagnose_node.js loads them (plain scripts that
add to a global TrainwreckEngine, the code the site serves), and `process.cpuUsage` is read
around `diagnose` on each file with one Scanner (as the worker keeps one), runs alternating
between the few-match log and the storm: on a shared machine CPU time moves less than the wall
clock. The logs are bench/diagnose.py's
`storm_logs` and bench/diagnose_browser.py's synthetic log, with the catalog's index.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from diagnose_browser import load_bench_generator, write_log  # noqa: E402

from generator.diagnose.index import SignatureIndex, build_index, index_data  # noqa: E402

MEASURE = r"""
"use strict";
const fs = require("fs");
const path = require("path");
const [engine, indexPath, repeat, ...files] = process.argv.slice(2);
for (const name of ["pattern.js", "paste.js", "lineinfo.js", "index.js", "evidence.js",
                    "launcher.js", "culprit.js", "scan.js", "triage.js", "report.js",
                    "engine.js"]) {
  require(path.join(engine, name));
}
const E = globalThis.TrainwreckEngine;
const index = E.compileIndex(JSON.parse(fs.readFileSync(indexPath, "utf8")));
const scanner = new E.Scanner(index); // built once, as the worker builds it
const raws = files.map((f) => new Uint8Array(fs.readFileSync(f)));
(async () => {
  const best = files.map(() => Infinity);
  for (let r = 0; r < +repeat; r++) {
    for (let i = 0; i < files.length; i++) {
      const start = process.cpuUsage();
      await E.diagnose(index, [{ name: path.basename(files[i]), source: raws[i] }], { scanner });
      const used = process.cpuUsage(start);
      best[i] = Math.min(best[i], (used.user + used.system) / 1000);
    }
  }
  process.stdout.write(JSON.stringify(best) + "\n");
})();
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the best counts")
    parser.add_argument("--max-mb", type=float, default=8.0, help="cut longer storms to this")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--profile", help="write a --cpu-prof profile of each storm here")
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        sys.exit("bench: node is not installed")
    gen = load_bench_generator()
    work = Path(tempfile.mkdtemp(prefix="trainwreck-bench-node-"))
    try:
        from generator.loading.discovery import find_entry_files, read_sources
        from generator.validation import validate_sources

        sources, _ = read_sources(find_entry_files(REPO / "entries"), REPO)
        data = build_index(validate_sources(sources).entries)
        index_path = work / "signatures.json"
        index_path.write_text(json.dumps(index_data(data)))
        index = SignatureIndex(data)
        examples = gen.load_catalog(
            argparse.Namespace(entries=str(REPO / "entries"), index=str(index_path))
        )[1]
        measure = work / "measure.js"
        measure.write_text(MEASURE)
        engine = REPO / "templates" / "static" / "javascripts" / "engine"
        limit = int(args.max_mb * 1_000_000)
        few = work / "few-10MB.log"  # as bench/diagnose_browser.py's default log
        write_log(gen, few, 10_000_000, index, examples, args.seed)
        print(
            f"browser engine in Node, CPU time of diagnose, best of {args.repeat} (target <= 2x):"
        )
        for name, path in gen.storm_logs(work, random.Random(args.seed)):
            raw = path.read_bytes()
            if len(raw) > limit:
                raw = raw[: raw.rfind(b"\n", 0, limit) + 1]
                path.write_bytes(raw)
                name += f", first {len(raw) / 1e6:.1f} MB"
            log = gen.baseline_of(few, len(raw), work / "few.log")
            cmd = [node, str(measure), str(engine), str(index_path), str(args.repeat)]
            done = subprocess.run(
                [*cmd, str(log), str(path)], check=True, capture_output=True, text=True
            )
            base_ms, storm_ms = json.loads(done.stdout)
            print(
                f"  {name:<64} {len(raw) / 1e6:6.1f} MB  {storm_ms:8.0f} ms vs {base_ms:6.0f} ms  "
                f"{storm_ms / base_ms:5.2f}x"
            )
            if args.profile:
                out = Path(args.profile)
                out.mkdir(parents=True, exist_ok=True)
                prof = [node, "--cpu-prof", "--cpu-prof-dir", str(out), "--cpu-prof-name",
                        f"{path.stem}.cpuprofile", str(measure), str(engine), str(index_path),
                        str(args.repeat), str(path)]  # fmt: skip
                subprocess.run(prof, check=True, capture_output=True)
            path.unlink()
            log.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
