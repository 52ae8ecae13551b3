// The browser engine in Node, for the property tests: one JSON request per line on stdin, one
// JSON answer per line on stdout. The engine files are loaded as the browser loads them (plain
// scripts that add to a global TrainwreckEngine), so this runs exactly the code the site serves.
//
//   {"op": "match", "pattern": P, "lines": [..]}         -> {"ok": [bool, ..]} or {"error": msg}
//   {"op": "parse", "pattern": P}                        -> {"anchor": A} or {"error": msg}
//   {"op": "decode", "b64": B}                           -> {"text": T}
//   {"op": "readLine", "texts": [..]}                    -> {"infos": [..]}
//   {"op": "rankFromPath", "paths": [..]}                -> {"ranks": [..]}
//   {"op": "diagnose", "index": I, "logs": [{"name", "b64" | "text"}], "chunk": n, "textSlice": n}
//                                                        -> {"json", "notes", "stats", "problems"}
//   {"op": "scan", "index": I, "logs": [..], "chunk": n}  -> {"matches": [..]} every match the
//                                                        scanner passes on, in Python's LineMatch fields
//                                                        (and with "uncached": true, how many lines the
//                                                        scanner was still to read without its line cache)
//   {"op": "markdown", "index": I, "logs": [..], "baseUrl": U}  -> {"markdown": M}
//   {"op": "mask", "texts": [..], "hosts": [..]}           -> {"texts": [..]}
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");

const ENGINE = path.resolve(__dirname, "../../templates/static/javascripts/engine");
for (const name of ["pattern.js", "paste.js", "lineinfo.js", "index.js", "evidence.js", "launcher.js", "culprit.js", "progress.js", "scan.js", "triage.js", "report.js", "engine.js"]) {
  require(path.join(ENGINE, name));
}
const E = globalThis.TrainwreckEngine;

function info(i) {
  return {
    prefix_rank: i.prefixRank,
    text_rank: i.textRank,
    time: i.time,
    host: i.host,
  };
}

// A scanner match in the fields of scan.py's LineMatch (dataclasses.asdict of it).
function lineMatch(m) {
  const launch = m.launch === null ? null : {
    launcher: m.launch.launcher,
    rank: m.launch.rank,
    local: m.launch.local,
    code: m.launch.code,
    signal: m.launch.signal,
    summary: m.launch.summary,
    root: m.launch.root,
  };
  return {
    file: m.file,
    file_index: m.fileIndex,
    line: m.line,
    offset: m.offset,
    text: m.text,
    signatures: m.signatures,
    rank: m.rank,
    stream: m.stream,
    time: m.time,
    host: m.host,
    evidence: m.evidence,
    launch,
    rank_from_launcher: m.rankFromLauncher,
    repeat: m.repeat,
  };
}

async function handle(req) {
  switch (req.op) {
    case "match": {
      let m;
      try {
        m = new E.Matcher(req.pattern);
      } catch (exc) {
        return { error: exc.message };
      }
      return { ok: req.lines.map((line) => m.search(line)) };
    }
    case "parse": {
      try {
        return { anchor: new E.Matcher(req.pattern).anchor };
      } catch (exc) {
        return { error: exc.message };
      }
    }
    case "decode":
      return { text: E.decode(Buffer.from(req.b64, "base64")) };
    case "readLine":
      return { infos: req.texts.map((t) => info(E.readLine(t))) };
    case "rankFromPath":
      return { ranks: req.paths.map((p) => E.rankFromPath(p)) };
    case "diagnose": {
      const index = E.compileIndex(req.index);
      const saved = E.CHUNK_BYTES;
      if (req.chunk) E.setChunkBytes(req.chunk);
      try {
        const savedSlice = E.TEXT_SLICE;
        if (req.textSlice) E.TEXT_SLICE = req.textSlice;
        const logs = req.logs.map((l) => ({
          name: l.name,
          source: "text" in l ? l.text : new Uint8Array(Buffer.from(l.b64, "base64")),
        }));
        let run;
        try {
          run = await E.diagnose(index, logs);
        } finally {
          E.TEXT_SLICE = savedSlice;
        }
        const notes = E.statsNotes(run.stats, index.maxLineBytes).concat(E.textNotes(run.diagnosis));
        return { json: E.toJSON(run.diagnosis), notes, stats: run.stats, problems: run.problems };
      } finally {
        E.setChunkBytes(saved);
      }
    }
    case "scan": {
      const index = E.compileIndex(req.index);
      const scanner = new E.Scanner(index);
      const saved = E.CHUNK_BYTES;
      if (req.chunk) E.setChunkBytes(req.chunk);
      const matches = [];
      try {
        for (let i = 0; i < req.logs.length; i++) {
          const raw = new Uint8Array(Buffer.from(req.logs[i].b64, "base64"));
          let at = 0;
          const read = (n) => {
            const chunk = raw.subarray(at, Math.min(raw.length, at + n));
            at += chunk.length;
            return Promise.resolve(chunk);
          };
          await scanner.scan(read, req.logs[i].name, i, E.newStats(), [], {
            fileRank: E.rankFromPath(req.logs[i].name),
            onMatch: (m) => matches.push(lineMatch(m)),
          });
        }
      } finally {
        E.setChunkBytes(saved);
      }
      return req.uncached ? { matches, uncached: scanner.uncached } : { matches };
    }
    case "markdown": {
      const index = E.compileIndex(req.index);
      const logs = req.logs.map((l) => ({ name: l.name, source: new Uint8Array(Buffer.from(l.b64, "base64")) }));
      const run = await E.diagnose(index, logs);
      const notes = E.statsNotes(run.stats, index.maxLineBytes).concat(E.textNotes(run.diagnosis));
      return { markdown: E.markdownReport(run.diagnosis, run.stats, req.baseUrl, { hosts: run.hosts, notes }) };
    }
    case "mask": {
      const masker = new E.Masker(req.hosts || []);
      return { texts: req.texts.map((t) => masker.mask(t)) };
    }
    default:
      return { error: "unknown op " + req.op };
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
let queue = Promise.resolve();
rl.on("line", (line) => {
  queue = queue.then(async () => {
    let answer;
    try {
      answer = await handle(JSON.parse(line));
    } catch (exc) {
      answer = { crash: String(exc && exc.stack ? exc.stack : exc) };
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  });
});
