// The browser engine in Node on the benchmark's cases: the engine files the site serves, loaded
// as the browser loads them (plain scripts adding to a global TrainwreckEngine), one Scanner for
// every case as the page's worker keeps one.
//   node realeval/diagnose_node.js ENGINE_DIR INDEX_JSON < [{"id", "name", "b64"}, ...]
//   -> {"<id>": <the report's JSON>, ...}
"use strict";
const fs = require("fs");
const path = require("path");

const [engine, indexPath] = process.argv.slice(2);
for (const name of ["pattern.js", "paste.js", "lineinfo.js", "index.js", "evidence.js",
                    "launcher.js", "culprit.js", "progress.js", "scan.js", "triage.js", "report.js", "engine.js"]) {
  require(path.join(engine, name));
}
const E = globalThis.TrainwreckEngine;
const index = E.compileIndex(JSON.parse(fs.readFileSync(indexPath, "utf8")));
const scanner = new E.Scanner(index);
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
(async () => {
  const reports = {};
  for (const c of cases) {
    const source = new Uint8Array(Buffer.from(c.b64, "base64"));
    const run = await E.diagnose(index, [{ name: c.name, source }], { scanner });
    reports[c.id] = E.toJSON(run.diagnosis);
  }
  process.stdout.write(JSON.stringify(reports));
})().catch((exc) => {
  process.stderr.write(String(exc && exc.stack ? exc.stack : exc) + "\n");
  process.exit(1);
});
