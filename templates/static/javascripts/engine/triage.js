// Triage: group matched lines by entry, tell root causes from collateral, find the first rank.
// A port of generator/diagnose/triage.py (the rules are in docs/diagnose.md, "How it decides"):
//
// - a line matching only harmless signatures makes a "not-the-cause" finding, listed last: never
//   a root cause, never collateral, never the first failed rank (a defining hit wins);
// - an entry is found when a line matches one of its defining signatures; context signatures
//   only raise confidence;
// - when A is found and lists B in `collateral`, B is collateral; in a cycle among the found
//   entries the edge counts only from the one that failed first;
// - "earliest" compares times when every compared line has one on a common clock (full date,
//   else without the year, else seconds since boot within one file), else position;
// - the first failed rank is the rank of the earliest root-cause line that names a rank by its
//   prefix, path or message; else the launcher's first failure; else the unrecognised error's;
// - launchers' reports are kept per (file, rank, local) with their exit (launcher.js), and lines
//   that state an error no defining or harmless signature matches per stream and kind
//   (evidence.js); a strong one before a root cause that some entry declares as collateral
//   makes it collateral of the unrecognised error, and when no root cause is left the failed
//   rank's most telling line is reported as unrecognised.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  // The characters of a line's text that a kept hit holds (triage.py's TEXT_CHARS): every
  // report prints at most this much, so thousands of ranks of 64 KiB lines stay small.
  var TEXT_CHARS = 2048;

  // The number of code points in a string (Python's len()).
  function codePoints(text) {
    var pairs = 0;
    for (var i = 0; i + 1 < text.length; i++) {
      var u = text.charCodeAt(i);
      if (u >= 0xd800 && u < 0xdc00) {
        var v = text.charCodeAt(i + 1);
        if (v >= 0xdc00 && v < 0xe000) {
          pairs++;
          i++;
        }
      }
    }
    return text.length - pairs;
  }

  function hitOf(m) {
    var text = m.text;
    var cut = 0;
    if (text.length > TEXT_CHARS) {
      cut = Math.max(codePoints(text) - TEXT_CHARS, 0);
      if (cut) text = E.headOf(text, TEXT_CHARS);
    }
    return {
      file: m.file,
      fileIndex: m.fileIndex,
      line: m.line,
      offset: m.offset,
      rank: m.rank,
      time: m.time,
      host: m.host,
      text: text, // the first TEXT_CHARS characters of the line
      rankFromLauncher: m.rankFromLauncher === true,
      cut: cut, // characters of the line left off `text`
    };
  }

  var UNRECOGNIZED = "unrecognized";

  function streamKey(fileIndex, rank) {
    return fileIndex + ":" + (rank === null ? "-" : rank);
  }

  // Matched lines folded into per-entry counts, as the scanner produces them.
  function Tally(index) {
    this.index = index;
    this.defining = new Map(); // entry id -> {count, rankCounts: Map, firsts: Map}
    this.harmless = new Map(); // the same, for lines that match only harmless signatures
    this.context = new Map(); // entry id -> lines
    this.hosts = new Set(); // every host read from a matched line, for masking reports
    this.evidence = new Map(); // "file:rank" -> Map(kind -> hit), the first of each kind
    this.witnesses = new Map(); // "file:rank:local" -> witness, merged over its lines
    // The roles of each signature set seen (entry -> Set of roles, folded), read only: a storm's
    // lines match a few sets (triage.py's Tally keeps them too).
    this.roleSets = new Map();
  }

  var ROLE_SETS = 4096; // signature sets whose roles a Tally keeps, at most

  Tally.prototype.rolesOf = function (signatures) {
    var key = signatures.length === 1 ? signatures[0] : signatures.join(",");
    var roles = this.roleSets.get(key);
    if (roles !== undefined) return roles;
    roles = new Map();
    var index = this.index;
    signatures.forEach(function (number) {
      var sig = index.signatures[number];
      if (!roles.has(sig.entry)) roles.set(sig.entry, new Set());
      roles.get(sig.entry).add(sig.role);
    });
    if (roles.size > 1) fold(index, roles);
    if (this.roleSets.size >= ROLE_SETS) this.roleSets.clear();
    this.roleSets.set(key, roles);
    return roles;
  };

  Tally.prototype.witness = function (match, roles) {
    var hit = hitOf(match);
    var known = false;
    roles.forEach(function (found) {
      if (found.has("defining") || found.has("harmless")) known = true;
    });
    var launch = match.launch;
    var own = launch !== null && match.evidence === "error-line";
    if (match.evidence !== null && !known && !own) {
      var key = streamKey(match.fileIndex, match.rank);
      if (!this.evidence.has(key)) this.evidence.set(key, new Map());
      var kinds = this.evidence.get(key);
      if (!kinds.has(match.evidence)) kinds.set(match.evidence, hit);
    }
    if (launch !== null && launch.rank !== null && launch.failed) {
      var wkey = match.fileIndex + ":" + launch.rank + ":" + launch.local;
      var seen = this.witnesses.get(wkey);
      if (seen === undefined) {
        this.witnesses.set(wkey, {
          launcher: launch.launcher,
          rank: launch.rank,
          local: launch.local,
          code: launch.code,
          signal: launch.signal,
          root: launch.root,
          hit: hit,
        });
      } else {
        this.witnesses.set(wkey, {
          launcher: seen.launcher,
          rank: seen.rank,
          local: seen.local,
          code: seen.code !== null ? seen.code : launch.code,
          signal: seen.signal !== null ? seen.signal : launch.signal,
          root: seen.root || launch.root,
          hit: seen.hit,
        });
      }
    }
    return hit;
  };

  Tally.prototype.add = function (match) {
    var roles = this.rolesOf(match.signatures);
    if (match.host) this.hosts.add(match.host);
    var hit = null;
    if ((match.evidence !== undefined && match.evidence !== null) || (match.launch !== undefined && match.launch !== null)) {
      hit = this.witness(match, roles);
    }
    var repeat = match.repeat || 1; // the line stands this many times in a row (scan.js)
    roles.forEach(function (found, entry) {
      if (found.has("context")) this.context.set(entry, (this.context.get(entry) || 0) + repeat);
      var tallies;
      if (found.has("defining")) tallies = this.defining;
      else if (found.has("harmless")) tallies = this.harmless;
      else return;
      var tally = tallies.get(entry);
      if (tally === undefined) {
        tally = { count: 0, rankCounts: new Map(), firsts: new Map() };
        tallies.set(entry, tally);
      }
      tally.count += repeat;
      tally.rankCounts.set(match.rank, (tally.rankCounts.get(match.rank) || 0) + repeat);
      var key = streamKey(match.fileIndex, match.rank);
      if (!tally.firsts.has(key)) {
        hit = hit || hitOf(match);
        tally.firsts.set(key, hit);
      }
    }, this);
  };

  // One line, one root cause: the defining role of an entry that another defining entry on the
  // line refines (directly or through a chain) is dropped (triage.py's _fold).
  function fold(index, roles) {
    var specific = [];
    roles.forEach(function (found, entry) {
      if (found.has("defining")) specific.push(entry);
    });
    specific.forEach(function (entryId) {
      var general = index.entries[entryId].refines;
      var seen = new Set([entryId]);
      while (general !== null && general !== undefined && !seen.has(general)) {
        seen.add(general);
        var found = roles.get(general);
        if (found !== undefined && found.has("defining")) found.delete("defining");
        general = index.entries[general] ? index.entries[general].refines : null;
      }
    });
  }

  var CLOCKS = ["absolute", "yearless", "boot"];

  // The finest clock every hit has a reading of, or null to compare by position.
  function clockOf(hits) {
    for (var c = 0; c < CLOCKS.length; c++) {
      var clock = CLOCKS[c];
      var all = hits.every(function (h) { return h.time !== null && h.time[clock] !== null; });
      if (all) {
        if (clock === "boot") {
          var files = new Set(hits.map(function (h) { return h.fileIndex; }));
          if (files.size > 1) return null; // each machine boots at its own time
        }
        return clock;
      }
    }
    return null;
  }

  function sortKey(clock) {
    return function (hit) {
      var reading = clock !== null && hit.time ? hit.time[clock] : null;
      return [typeof reading === "number" ? reading : 0.0, hit.fileIndex, hit.offset];
    };
  }

  function compareKeys(a, b) {
    for (var i = 0; i < a.length; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }

  function compareStrings(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // Hits ordered by time when they share a clock, else by position; ties by position.
  function earliestFirst(hits) {
    var key = sortKey(clockOf(hits));
    return hits.slice().sort(function (a, b) { return compareKeys(key(a), key(b)); });
  }

  function reachable(edges, start) {
    var seen = new Set();
    var todo = [start];
    while (todo.length) {
      (edges.get(todo.pop()) || []).forEach(function (next) {
        if (!seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      });
    }
    return seen;
  }

  function triage(tally) {
    var index = tally.index;
    var firsts = new Map();
    tally.defining.forEach(function (t, entryId) {
      firsts.set(entryId, earliestFirst(Array.from(t.firsts.values()))[0]);
    });
    var harmless = new Map();
    var harmlessFirsts = new Map();
    tally.harmless.forEach(function (t, entryId) {
      if (tally.defining.has(entryId)) return;
      harmless.set(entryId, t);
      harmlessFirsts.set(entryId, earliestFirst(Array.from(t.firsts.values()))[0]);
    });
    var ids = Array.from(firsts.keys());
    var key = sortKey(clockOf(Array.from(firsts.values())));
    var order = ids.slice().sort(function (a, b) {
      return compareKeys(key(firsts.get(a)), key(firsts.get(b))) || compareStrings(a, b);
    });
    var place = new Map();
    order.forEach(function (id, i) { place.set(id, i); });
    var edges = new Map();
    ids.forEach(function (a) {
      var targets = [];
      index.entries[a].collateral.forEach(function (b) {
        if (firsts.has(b) && b !== a && targets.indexOf(b) < 0) targets.push(b);
      });
      edges.set(a, targets);
    });
    var reach = new Map();
    ids.forEach(function (id) { reach.set(id, reachable(edges, id)); });
    var causedBy = new Map();
    order.forEach(function (a) {
      var targets = edges.get(a).slice().sort(function (x, y) { return place.get(x) - place.get(y); });
      targets.forEach(function (b) {
        if (!reach.get(b).has(a) || place.get(a) < place.get(b)) {
          if (!causedBy.has(b)) causedBy.set(b, []);
          causedBy.get(b).push(a);
        }
      });
    });

    function finding(entryId, role) {
      var notCause = role === "not-the-cause";
      var t = notCause ? harmless.get(entryId) : tally.defining.get(entryId);
      var numbered = [];
      t.rankCounts.forEach(function (count, rank) {
        if (rank !== null) numbered.push([rank, count]);
      });
      numbered.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
      var rankCounts = numbered.slice();
      if (t.rankCounts.has(null)) rankCounts.push([null, t.rankCounts.get(null)]);
      return {
        id: entryId,
        entry: index.entries[entryId],
        role: role,
        count: t.count,
        ranks: numbered.map(function (rc) { return rc[0]; }),
        rankCounts: rankCounts,
        first: (notCause ? harmlessFirsts : firsts).get(entryId),
        streams: earliestFirst(Array.from(t.firsts.values())),
        contextLines: tally.context.get(entryId) || 0,
        causedBy: causedBy.get(entryId) || [],
      };
    }

    function inOrder(list, of) {
      of = of || firsts;
      var k = sortKey(clockOf(list.map(function (e) { return of.get(e); })));
      return list.slice().sort(function (a, b) {
        return compareKeys(k(of.get(a)), k(of.get(b))) || compareStrings(a, b);
      });
    }

    var roots = inOrder(ids.filter(function (e) { return !causedBy.has(e); }));
    var evidence = [];
    tally.evidence.forEach(function (kinds) {
      kinds.forEach(function (hit, kind) { evidence.push({ kind: kind, hit: hit }); });
    });
    var strong = earliestFirst(evidence.filter(function (u) { return E.STRONG.has(u.kind); }).map(function (u) { return u.hit; }));
    var causes = earliestFirst(evidence.filter(function (u) { return E.CAUSES.has(u.kind); }).map(function (u) { return u.hit; }));
    if (causes.length) {
      // An error the catalog lacks, before a failure known to be collateral.
      var knownCollateral = new Set();
      Object.keys(index.entries).forEach(function (id) {
        index.entries[id].collateral.forEach(function (b) { knownCollateral.add(b); });
      });
      roots.slice().forEach(function (e) {
        if (knownCollateral.has(e) && earliestFirst([firsts.get(e), causes[0]])[0] === causes[0]) {
          roots.splice(roots.indexOf(e), 1);
          causedBy.set(e, [UNRECOGNIZED]);
        }
      });
    }
    var collateral = inOrder(ids.filter(function (e) { return causedBy.has(e); }));
    var findings = roots.map(function (e) { return finding(e, "root-cause"); })
      .concat(collateral.map(function (e) { return finding(e, "collateral"); }))
      .concat(inOrder(Array.from(harmless.keys()), harmlessFirsts).map(function (e) {
        return finding(e, "not-the-cause");
      }));
    var witnesses = orderWitnesses(Array.from(tally.witnesses.values()));
    var verdict = witnesses.length ? witnesses[0] : null;
    var unrecognized = [];
    var firstFailure = null;
    if (roots.length) {
      var ranked = [];
      roots.forEach(function (e) {
        tally.defining.get(e).firsts.forEach(function (h) {
          if (h.rank !== null && !h.rankFromLauncher) ranked.push(h);
        });
      });
      if (ranked.length) firstFailure = earliestFirst(ranked)[0];
      else if (verdict !== null) firstFailure = verdict.hit;
    } else if (strong.length || verdict !== null) {
      var rank = verdict !== null ? verdict.rank : strong[0].rank;
      var mine = evidence.filter(function (u) { return u.hit.rank === rank; });
      if (mine.length) {
        var best = Math.min.apply(null, mine.map(function (u) { return E.KINDS.indexOf(u.kind); }));
        var picked = mine.filter(function (u) { return E.KINDS.indexOf(u.kind) === best; });
        var first = earliestFirst(picked.map(function (u) { return u.hit; }))[0];
        unrecognized = picked.filter(function (u) { return u.hit === first; });
      }
      if (verdict !== null) firstFailure = verdict.hit;
      else if (unrecognized.length && rank !== null) firstFailure = unrecognized[0].hit;
    }
    var firstWitness = null;
    for (var w = 0; w < witnesses.length; w++) {
      if (firstFailure !== null && witnesses[w].rank === firstFailure.rank) {
        firstWitness = witnesses[w];
        break;
      }
    }
    return {
      findings: findings,
      firstFailedRank: firstFailure !== null ? firstFailure.rank : null,
      firstFailure: firstFailure,
      unrecognized: unrecognized,
      witnesses: witnesses,
      firstWitness: firstWitness,
    };
  }

  // The launcher's verdict first: its Root Cause block, then global ranks before local ones,
  // each earliest first (triage.py's _order_witnesses).
  function orderWitnesses(witnesses) {
    var order = new Map();
    earliestFirst(witnesses.map(function (w) { return w.hit; })).forEach(function (h, i) { order.set(h, i); });
    return witnesses.slice().sort(function (a, b) {
      return (a.root === b.root ? 0 : a.root ? -1 : 1) ||
        (a.local === b.local ? 0 : a.local ? 1 : -1) ||
        order.get(a.hit) - order.get(b.hit) ||
        a.rank - b.rank;
    });
  }

  // A kept line's text; one cut to its first TEXT_CHARS characters ends in `…`.
  function textOf(hit) {
    return hit.cut ? hit.text + "\u2026" : hit.text;
  }

  function place(hit) {
    return {
      file: hit.file,
      line: hit.line,
      rank: hit.rank,
      time: hit.time ? hit.time.text : null,
      text: textOf(hit),
    };
  }

  function signalName(w) {
    var number = w.signal !== null ? w.signal : w.code !== null && w.code < 0 ? -w.code : null;
    if (number === null && w.code !== null && Object.prototype.hasOwnProperty.call(E.SIGNALS, w.code - 128)) number = w.code - 128;
    if (number === null) return null;
    return Object.prototype.hasOwnProperty.call(E.SIGNALS, number) ? E.SIGNALS[number][0] : "signal " + number;
  }

  // The JSON report of `trainwreck diagnose --json`, exactly (generator/diagnose/report.py).
  function toJSON(diagnosis) {
    return {
      findings: diagnosis.findings.map(function (f) {
        return {
          id: f.id,
          title: f.entry.title,
          role: f.role,
          count: f.count,
          ranks: f.ranks.slice(),
          first: {
            file: f.first.file,
            line: f.first.line,
            rank: f.first.rank,
            time: f.first.time ? f.first.time.text : null,
            text: textOf(f.first),
          },
        };
      }),
      first_failed_rank: diagnosis.firstFailedRank,
      unrecognized: diagnosis.unrecognized.map(function (u) {
        var out = place(u.hit);
        out.kind = u.kind;
        return out;
      }),
      launcher: diagnosis.witnesses.map(function (w) {
        var out = {
          launcher: w.launcher,
          rank: w.rank,
          local: w.local,
          exitcode: w.code,
          signal: signalName(w),
          meaning: E.exitMeaning(w.code, w.signal),
          root: w.root,
        };
        var where = place(w.hit);
        ["file", "line", "time", "text"].forEach(function (k) { out[k] = where[k]; });
        return out;
      }),
    };
  }

  E.TEXT_CHARS = TEXT_CHARS;
  E.Tally = Tally;
  E.triage = triage;
  E.earliestFirst = earliestFirst;
  E.toJSON = toJSON;
  E.UNRECOGNIZED = UNRECOGNIZED;
})(typeof self !== "undefined" ? self : globalThis);
