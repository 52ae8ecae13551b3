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
importScripts("pattern.js", "paste.js", "lineinfo.js", "index.js", "evidence.js", "launcher.js", "culprit.js", "progress.js", "scan.js", "triage.js", "report.js", "engine.js");

(function () {
  "use strict";
  var E = TrainwreckEngine;
  var ready = null; // a promise of the compiled index
  var MAX_CONTEXT_FINDINGS = 12;

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

  // The curves a trend's chart draws: its metric's series, one per rank, from the log the
  // trend was read in, each cut to CHART_POINTS evenly spaced values (a string stands for a
  // non-finite value, as in the JSON), with the point where the numbers turned marked.
  var CHART_POINTS = 120;
  var CHARTED = new Set(["loss", "eval_loss", "grad_norm", "loss_scale", "iter_ms", "rank_ms"]);

  function chartOf(t, progress) {
    var metric = t.metric.split("/")[0];
    var log = progress[t.fileIndex];
    if (!CHARTED.has(metric) || !log) return null;
    var curves = [];
    log.series.forEach(function (s, key) {
      var name = key.slice(key.indexOf("\u0000") + 1);
      if (s.metric !== metric || (t.metric.indexOf("/") >= 0 && name !== t.metric)) return;
      var points = s.points;
      var step = Math.max(1, Math.ceil(points.length / CHART_POINTS));
      var kept = points.filter(function (_, i) { return i % step === 0 || points[i].line === t.point.line; });
      curves.push({
        rank: s.rank,
        points: kept.map(function (p) {
          return { x: p.step !== null ? p.step : p.line, y: isFinite(p.value) ? p.value : String(p.value), mark: p.line === t.point.line };
        }),
      });
    });
    curves.sort(function (a, b) { return (a.rank === null ? -1 : a.rank) - (b.rank === null ? -1 : b.rank); });
    return curves.length ? { metric: metric, curves: curves.slice(0, 16) } : null;
  }

  function trendsOf(d, progress, entries) {
    return (d.trends || []).map(function (t) {
      var entry = t.entry ? entries[t.entry] : null;
      return {
        kind: t.kind,
        title: E.KIND_TITLES[t.kind],
        says: E.trendSays(t),
        entry: t.entry,
        entryTitle: entry ? entry.title : null,
        path: entry ? entry.path : null,
        file: t.file,
        line: t.point.line,
        rank: t.rank,
        time: t.point.time ? t.point.time.text : null,
        text: t.point.text,
        sparkline: E.sparkline(t),
        stacks: t.groups.map(function (g) { return { where: g[0], ranks: g[1] }; }),
        chart: chartOf(t, progress),
      };
    });
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

  // The page's timeline (triage.js's timelineOf), its hits as the page reads them.
  function timelineOf(d) {
    var t = E.timelineOf(d);
    if (t === null) return null;
    t.ranks = t.ranks.map(function (row) {
      return {
        key: row.key,
        events: row.events.map(function (e) { return { finding: e.finding, hit: plainHit(e.hit) }; }),
      };
    });
    return t;
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
      // Which package raised the line the report puts first, and from which line of the user's
      // code (culprit.js), in the words the command line uses.
      culprit: d.culprit ? E.culpritSays(d.culprit) : null,
      timeline: timelineOf(d),
      trends: trendsOf(d, run.progress, compiled.index.entries),
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
