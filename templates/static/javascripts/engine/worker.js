// The diagnosis engine in a Web Worker, so that the page never freezes on a large log.
//
// Messages in:
//   {type: "init", indexUrl}                 fetch and compile /signatures.json (once)
//   {type: "diagnose", id, logs: [{name, text | bytes | file}], baseUrl}
// Messages out:
//   {type: "ready", entries, signatures}     or {type: "error", message}
//   {type: "progress", id, bytes}
//   {type: "result", id, result}             see resultOf() below
//
// The index is the only thing this worker fetches, once, when the page starts it; the logs it
// is given never leave it except as the result posted back to the page.
/* global importScripts, TrainwreckEngine */
importScripts("pattern.js", "paste.js", "lineinfo.js", "index.js", "evidence.js", "launcher.js", "scan.js", "triage.js", "report.js", "engine.js");

(function () {
  "use strict";
  var E = TrainwreckEngine;
  var ready = null; // a promise of the compiled index
  var MAX_CONTEXT_FINDINGS = 12;
  var MAX_TIMELINE_RANKS = 128; // rows of the page's timeline; the rest are counted

  function init(indexUrl) {
    if (ready === null) {
      ready = fetch(indexUrl, { credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("could not load the signature index (HTTP " + response.status + ")");
          return response.text();
        })
        .then(function (text) {
          var index = E.loadIndex(text);
          return { index: index, scanner: new E.Scanner(index) };
        });
    }
    return ready;
  }

  function plainHit(hit) {
    return hit === null
      ? null
      : {
          file: hit.file,
          fileIndex: hit.fileIndex,
          line: hit.line,
          rank: hit.rank,
          host: hit.host,
          time: hit.time ? hit.time.text : null,
          clock: hit.time ? { absolute: hit.time.absolute, yearless: hit.time.yearless, boot: hit.time.boot } : null,
          text: hit.text,
        };
  }

  // The finest clock every hit has a reading of, or null (triage's rule, on the page's hits).
  function commonClock(hits) {
    var clocks = ["absolute", "yearless", "boot"];
    for (var i = 0; i < clocks.length; i++) {
      var c = clocks[i];
      var all = hits.every(function (h) { return h.time !== null && h.time[c] !== null; });
      if (all && c === "boot") {
        var files = new Set(hits.map(function (h) { return h.fileIndex; }));
        if (files.size > 1) return null;
      }
      if (all) return c;
    }
    return null;
  }

  // The page's timeline: each rank's first line of each failure. Only the first
  // MAX_TIMELINE_RANKS ranks' rows are sent ({key, events: [{finding, hit}]}, `finding` an index
  // into the findings), with the clock and its range over every rank and the number of ranks
  // left out: what the page shows of a log of a million ranks is sent, not every rank's line.
  // null when nothing failed (harmless lines alone would read as a failure).
  function timelineOf(d) {
    var failed = d.findings.some(function (f) { return f.role !== "not-the-cause"; });
    if (!failed) return null;
    var byRank = new Map();
    var all = [];
    d.findings.forEach(function (f, i) {
      f.streams.forEach(function (hit) {
        var key = hit.rank === null ? "none" : hit.rank;
        if (!byRank.has(key)) byRank.set(key, []);
        byRank.get(key).push({ finding: i, hit: hit });
        all.push(hit);
      });
    });
    if (!all.length) return null;
    var clock = commonClock(all);
    var low = Infinity;
    var high = -Infinity;
    if (clock) {
      all.forEach(function (h) {
        low = Math.min(low, h.time[clock]);
        high = Math.max(high, h.time[clock]);
      });
    }
    var keys = Array.from(byRank.keys()).sort(function (a, b) {
      if (a === "none") return 1;
      if (b === "none") return -1;
      return a - b;
    });
    return {
      clock: clock,
      low: low,
      high: high,
      ranks: keys.slice(0, MAX_TIMELINE_RANKS).map(function (key) {
        return {
          key: key,
          events: byRank.get(key).map(function (e) { return { finding: e.finding, hit: plainHit(e.hit) }; }),
        };
      }),
      more: Math.max(0, keys.length - MAX_TIMELINE_RANKS),
    };
  }

  async function resultOf(compiled, message) {
    var started = performance.now();
    var logs = message.logs.map(function (log) {
      return { name: log.name, source: log.file || log.bytes || log.text || "" };
    });
    var lastPost = 0;
    var run = await E.diagnose(compiled.index, logs, {
      scanner: compiled.scanner,
      onProgress: function (stats) {
        var now = performance.now();
        if (now - lastPost > 100) {
          lastPost = now;
          self.postMessage({ type: "progress", id: message.id, bytes: stats.bytes });
        }
      },
    });
    var scanned = performance.now();
    var d = run.diagnosis;
    // The lines around each shown finding's first line, read again from its log.
    var shownFindings = d.findings.slice(0, MAX_CONTEXT_FINDINGS);
    var byFile = new Map();
    shownFindings.forEach(function (f) {
      if (!byFile.has(f.first.fileIndex)) byFile.set(f.first.fileIndex, []);
      byFile.get(f.first.fileIndex).push(f.first.line);
    });
    var context = {};
    for (var entry of byFile) {
      try {
        context[entry[0]] = await E.contextOf(logs[entry[0]].source, entry[1]);
      } catch (exc) {
        context[entry[0]] = {};
      }
    }
    var notes = E.statsNotes(run.stats, compiled.index.maxLineBytes).concat(E.textNotes(d));
    return {
      json: E.toJSON(d),
      firstFailedRank: d.firstFailedRank,
      firstFailure: plainHit(d.firstFailure),
      // What the launcher says of the first failed rank, and the line that states an error the
      // catalog has no entry for (the command line prints the same).
      launcher: d.firstWitness ? E.witnessSays(d.firstWitness) : null,
      unrecognized: d.unrecognized.map(function (u) {
        return { kind: u.kind, words: E.KIND_WORDS[u.kind], hit: plainHit(u.hit) };
      }),
      timeline: timelineOf(d),
      findings: d.findings.map(function (f, i) {
        return {
          id: f.id,
          title: f.entry.title,
          severity: f.entry.severity,
          category: f.entry.category,
          quickFix: f.entry.quickFix,
          path: f.entry.path,
          role: f.role,
          count: f.count,
          ranks: f.ranks,
          rankSummary: E.rankSummary(f.rankCounts),
          confidence: E.confidence(f),
          causedBy: f.causedBy.map(function (id) {
            if (id === E.UNRECOGNIZED) return { id: id, title: "an error the catalog lacks", path: null };
            return { id: id, title: compiled.index.entries[id].title, path: compiled.index.entries[id].path };
          }),
          first: plainHit(f.first),
          context: i < MAX_CONTEXT_FINDINGS ? (context[f.first.fileIndex] || {})[f.first.line] || [] : [],
        };
      }),
      stats: run.stats,
      statsLine: E.statsLine(run.stats),
      notes: notes,
      problems: run.problems,
      markdown: E.markdownReport(d, run.stats, message.baseUrl || "", { hosts: run.hosts, notes: notes }),
      ms: { scan: scanned - started, total: performance.now() - started },
    };
  }

  self.onmessage = function (event) {
    var message = event.data || {};
    if (message.type === "init") {
      init(message.indexUrl).then(
        function (compiled) {
          self.postMessage({
            type: "ready",
            entries: Object.keys(compiled.index.entries).length,
            signatures: compiled.index.signatures.length,
          });
        },
        function (exc) {
          self.postMessage({ type: "error", message: String(exc && exc.message ? exc.message : exc) });
        }
      );
      return;
    }
    if (message.type === "diagnose") {
      if (ready === null) {
        self.postMessage({ type: "error", id: message.id, message: "the engine was not started" });
        return;
      }
      ready
        .then(function (compiled) { return resultOf(compiled, message); })
        .then(
          function (result) { self.postMessage({ type: "result", id: message.id, result: result }); },
          function (exc) {
            self.postMessage({ type: "error", id: message.id, message: String(exc && exc.message ? exc.message : exc) });
          }
        );
    }
  };
})();
