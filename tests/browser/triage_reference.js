// The browser Tally keeps, per entry, only what earliestFirst would pick from each stream's
// first line and the streams of the lowest ranks; this checks that triage and the page's
// timeline come out as they did when it kept every stream's first line (the reference below,
// the former selection), on random matches: clocks present or not, several files, ties of
// time and place, lines with and without a rank, ranks a launcher named.
//
//   node triage_reference.js ROWS SEED RUNS  -> {"runs": n, "different": k, "example": ...}
//
// ROWS is the timeline's rows, small so that ranks are left out of it.
"use strict";
const path = require("path");

const ENGINE = path.resolve(__dirname, "../../templates/static/javascripts/engine");
for (const name of ["pattern.js", "paste.js", "lineinfo.js", "index.js", "evidence.js", "launcher.js", "culprit.js", "scan.js", "triage.js"]) {
  require(path.join(ENGINE, name));
}
const E = globalThis.TrainwreckEngine;
const [rows, seed, runs] = process.argv.slice(2).map(Number);

// Collateral both ways (a cycle), a chain, a harmless entry; no `refines`, so a line counts for
// every entry whose signature it matches.
const INDEX = {
  entries: {
    a: { title: "A", collateral: ["b", "c"], refines: null },
    b: { title: "B", collateral: ["a"], refines: null },
    c: { title: "C", collateral: [], refines: null },
    d: { title: "D", collateral: ["c"], refines: null },
    h: { title: "H", collateral: [], refines: null },
  },
  signatures: [
    { entry: "a", role: "defining" },
    { entry: "a", role: "context" },
    { entry: "b", role: "defining" },
    { entry: "c", role: "defining" },
    { entry: "d", role: "defining" },
    { entry: "h", role: "harmless" },
    { entry: "c", role: "context" },
  ],
};

let state = seed;
function random() { // mulberry32: exact in 32-bit integers, so a seed is the same run anywhere
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function pick(xs) {
  return xs[Math.floor(random() * xs.length)];
}

function randomMatches() {
  const out = [];
  const count = 1 + Math.floor(random() * 40);
  for (let i = 0; i < count; i++) {
    const fileIndex = Math.floor(random() * 3);
    const rank = pick([null, 0, 1, 2, 3, 4, 5, 6, 7]);
    const time = random() < 0.7
      ? { text: "t", absolute: pick([null, 1, 2, 3]), yearless: pick([null, 1, 2]), boot: pick([null, 5, 6]) }
      : null;
    const signatures = [];
    for (let j = 1 + Math.floor(random() * 2); j > 0; j--) {
      const s = Math.floor(random() * INDEX.signatures.length);
      if (!signatures.includes(s)) signatures.push(s);
    }
    signatures.sort((x, y) => x - y);
    out.push({
      file: "log" + fileIndex,
      fileIndex: fileIndex,
      line: i + 1, // lines that tie on every key still differ as hits
      offset: Math.floor(random() * 5), // few places, so that places tie too
      text: "line " + i,
      signatures: signatures,
      rank: rank,
      stream: rank,
      time: time,
      host: null,
      evidence: pick([null, null, null, null, "python-exception", "nccl-warn", "error-line"]),
      launch: null,
      rankFromLauncher: random() < 0.3,
      repeat: 1 + Math.floor(random() * 2),
    });
  }
  return out;
}

// Each entry's first hit of each stream, as the former Tally kept them.
function referenceStreams(matches) {
  const defining = new Map();
  const harmless = new Map();
  for (const m of matches) {
    const roles = new Map();
    for (const n of m.signatures) {
      const sig = INDEX.signatures[n];
      if (!roles.has(sig.entry)) roles.set(sig.entry, new Set());
      roles.get(sig.entry).add(sig.role);
    }
    roles.forEach((found, entry) => {
      const tallies = found.has("defining") ? defining : found.has("harmless") ? harmless : null;
      if (tallies === null) return;
      if (!tallies.has(entry)) tallies.set(entry, new Map());
      const key = m.fileIndex + ":" + m.rank;
      if (!tallies.get(entry).has(key)) {
        tallies.get(entry).set(key, {
          file: m.file,
          fileIndex: m.fileIndex,
          line: m.line,
          offset: m.offset,
          rank: m.rank,
          time: m.time,
          host: m.host,
          text: m.text,
          rankFromLauncher: m.rankFromLauncher,
          cut: 0,
        });
      }
    });
  }
  return { defining, harmless };
}

function commonClock(hits) {
  for (const c of ["absolute", "yearless", "boot"]) {
    if (!hits.every((h) => h.time !== null && h.time[c] !== null)) continue;
    if (c === "boot" && new Set(hits.map((h) => h.fileIndex)).size > 1) return null;
    return c;
  }
  return null;
}

// The former timeline (worker.js), from every stream's first hit of every finding.
function referenceTimeline(findingStreams, failed) {
  if (!failed) return null;
  const byRank = new Map();
  const all = [];
  findingStreams.forEach((streams, i) => {
    E.earliestFirst(streams).forEach((hit) => {
      const key = hit.rank === null ? "none" : hit.rank;
      if (!byRank.has(key)) byRank.set(key, []);
      byRank.get(key).push({ finding: i, hit: hit });
      all.push(hit);
    });
  });
  if (!all.length) return null;
  const clock = commonClock(all);
  let low = Infinity;
  let high = -Infinity;
  if (clock) {
    all.forEach((h) => {
      low = Math.min(low, h.time[clock]);
      high = Math.max(high, h.time[clock]);
    });
  }
  const keys = Array.from(byRank.keys()).sort((a, b) => (a === "none" ? 1 : b === "none" ? -1 : a - b));
  return {
    clock: clock,
    low: low,
    high: high,
    ranks: keys.slice(0, rows).map((key) => ({ key: key, events: byRank.get(key) })),
    more: Math.max(0, keys.length - rows),
  };
}

function picks(d, timeline) {
  return JSON.stringify({
    firsts: d.findings.map((f) => [f.id, f.role, f.first]),
    firstFailure: d.firstFailure,
    timeline: timeline,
  });
}

let different = 0;
let example = null;
for (let run = 0; run < runs; run++) {
  const matches = randomMatches();
  const tally = new E.Tally(INDEX, rows);
  matches.forEach((m) => tally.add(m));
  const d = E.triage(tally);
  const { defining, harmless } = referenceStreams(matches);
  const streamsOf = (f) => Array.from((f.role === "not-the-cause" ? harmless : defining).get(f.id).values());
  const roots = d.findings.filter((f) => f.role === "root-cause");
  const ranked = [];
  roots.forEach((f) => streamsOf(f).forEach((h) => {
    if (h.rank !== null && !h.rankFromLauncher) ranked.push(h);
  }));
  const expected = {
    findings: d.findings.map((f) => ({ id: f.id, role: f.role, first: E.earliestFirst(streamsOf(f))[0] })),
    // Without a root cause the first failure is the unrecognised error's, which the Tally
    // keeps as before; these matches name no launcher.
    firstFailure: !roots.length ? d.firstFailure : ranked.length ? E.earliestFirst(ranked)[0] : null,
  };
  const failed = d.findings.some((f) => f.role !== "not-the-cause");
  const want = picks(expected, referenceTimeline(d.findings.map(streamsOf), failed));
  const got = picks(d, E.timelineOf(d, rows));
  const found = new Set(d.findings.map((f) => f.id));
  const every = new Set([...defining.keys(), ...harmless.keys()]);
  if (got !== want || found.size !== every.size) {
    different++;
    if (example === null) example = { matches: matches, want: JSON.parse(want), got: JSON.parse(got) };
  }
}
process.stdout.write(JSON.stringify({ runs: runs, different: different, example: example }) + "\n");
