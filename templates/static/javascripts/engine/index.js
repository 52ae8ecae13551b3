// The signature index (/signatures.json) read and compiled: a port of the loader in
// generator/diagnose/index.py. The file is versioned; this engine reads version 1:
//
//   {"version": 1, "max_line_bytes": 65536,
//    "entries": {"<id>": {"title", "category", "severity", "quick_fix", "path",
//                         "related": [], "collateral": [], "refines": id | null,
//                         "kind": "class" (when not one failure), "signals": [9] (when any)}},
//    "signatures": [{"entry", "pattern", "role": "defining" | "context" | "harmless", "seen_in"}]}
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var INDEX_VERSION = 1;

  function IndexFormatError(message) {
    var error = new Error(message);
    error.name = "IndexFormatError";
    return error;
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function check(condition, message) {
    if (!condition) throw IndexFormatError(message);
  }

  // Compile an index from its parsed JSON, or throw an IndexFormatError saying what is wrong.
  function compileIndex(data) {
    check(isObject(data) && "version" in data, "not a signature index (no version)");
    check(
      data.version === INDEX_VERSION,
      "index version " + JSON.stringify(data.version) + " is not supported; this engine reads version " + INDEX_VERSION
    );
    var cap = data.max_line_bytes;
    check(Number.isInteger(cap) && cap >= 256 && cap <= 1 << 24, "max_line_bytes: not an integer from 256 to 16777216");
    check(isObject(data.entries), "entries: not an object");
    check(Array.isArray(data.signatures), "signatures: not a list");
    var entries = Object.create(null);
    Object.keys(data.entries).forEach(function (id) {
      var e = data.entries[id];
      check(isObject(e), "entries." + id + ": not an object");
      ["title", "category", "severity", "quick_fix", "path"].forEach(function (field) {
        check(typeof e[field] === "string", "entries." + id + "." + field + ": not a string");
      });
      entries[id] = {
        id: id,
        title: e.title,
        category: e.category,
        severity: e.severity,
        quickFix: e.quick_fix,
        path: e.path,
        related: Array.isArray(e.related) ? e.related.slice() : [],
        collateral: Array.isArray(e.collateral) ? e.collateral.slice() : [],
        refines: typeof e.refines === "string" ? e.refines : null,
        kind: e.kind === "class" ? "class" : "failure",
        signals: Array.isArray(e.signals) ? e.signals.filter(Number.isInteger) : [],
        progress: Array.isArray(e.progress) ? e.progress.filter(function (k) { return typeof k === "string"; }) : [],
      };
    });
    var signatures = [];
    var byAnchorMap = new Map();
    data.signatures.forEach(function (sig, i) {
      check(isObject(sig) && typeof sig.pattern === "string", "signatures[" + i + "]: not a signature");
      check(sig.entry in entries, "signatures[" + i + "]: unknown entry " + JSON.stringify(sig.entry));
      check(
        sig.role === "defining" || sig.role === "context" || sig.role === "harmless",
        "signatures[" + i + "].role: not defining, context or harmless"
      );
      var matcher;
      try {
        matcher = new E.Matcher(sig.pattern);
      } catch (exc) {
        throw IndexFormatError("signatures[" + i + "].pattern: " + exc.message);
      }
      signatures.push({ number: i, entry: sig.entry, role: sig.role, pattern: sig.pattern, matcher: matcher });
      var numbers = byAnchorMap.get(matcher.anchor);
      if (numbers === undefined) byAnchorMap.set(matcher.anchor, (numbers = []));
      numbers.push(i);
    });
    return {
      version: data.version,
      maxLineBytes: cap,
      entries: entries,
      signatures: signatures,
      anchors: Array.from(byAnchorMap.keys()),
      byAnchor: Array.from(byAnchorMap.values()),
    };
  }

  function loadIndex(text) {
    var data;
    try {
      data = JSON.parse(text);
    } catch (exc) {
      throw IndexFormatError("not JSON (" + exc.message + ")");
    }
    return compileIndex(data);
  }

  // Which entries a piece of text names, line by line: for the search box. Returns
  // [{id, entry, roles: Set, lines: [line numbers]}] with defining hits first, in index order.
  function matchText(index, text) {
    var found = new Map();
    var lines = String(text).split(/\r\n|\r|\n/);
    lines.forEach(function (line, n) {
      index.signatures.forEach(function (sig) {
        if (!sig.matcher.search(line)) return;
        var hit = found.get(sig.entry);
        if (hit === undefined) {
          hit = { id: sig.entry, entry: index.entries[sig.entry], roles: new Set(), lines: [], first: sig.number };
          found.set(sig.entry, hit);
        }
        hit.roles.add(sig.role);
        if (hit.lines.indexOf(n + 1) < 0) hit.lines.push(n + 1);
      });
    });
    return Array.from(found.values()).sort(function (a, b) {
      var da = a.roles.has("defining") ? 0 : 1;
      var db = b.roles.has("defining") ? 0 : 1;
      return da - db || a.first - b.first;
    });
  }

  E.INDEX_VERSION = INDEX_VERSION;
  E.compileIndex = compileIndex;
  E.loadIndex = loadIndex;
  E.matchText = matchText;
})(typeof self !== "undefined" ? self : globalThis);
