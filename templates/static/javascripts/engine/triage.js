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

  var CLOCKS = ["absolute", "yearless", "boot"];
  // The orders earliestFirst may compare hits by: by a clock, or by position (null).
  var ORDERS = CLOCKS.concat([null]);
  // Rows of the page's timeline (worker.js): the lowest ranks, no rank last; the rest counted.
  var TIMELINE_RANKS = 128;

  // What earliestFirst(hits)[0] would be for a set of hits, kept as they are added instead of
  // the hits (a storm has a million; triage.py's Earliest): for each order, the earliest hit, the
  // first added of equal keys as the stable sort puts it first; and what chooses the order, the
  // clocks every hit has and whether they all come from one file. Each clock's lowest and
  // highest reading are the range of the page's timeline.
  function Earliest() {
    this.hits = 0;
    this.fileIndex = null; // the first hit's file
    this.oneFile = true;
    this.every = [true, true, true];
    this.keys = [null, null, null, null];
    this.best = [null, null, null, null];
    this.low = [Infinity, Infinity, Infinity];
    this.high = [-Infinity, -Infinity, -Infinity];
  }

  // Counts `match` in; `hit` is its hit if one was made. Returns the line's hit, made only when
  // the line is the earliest so far in some order (a storm's lines mostly are not).
  Earliest.prototype.add = function (match, hit) {
    this.hits++;
    if (this.fileIndex === null) this.fileIndex = match.fileIndex;
    else if (match.fileIndex !== this.fileIndex) this.oneFile = false;
    var time = match.time;
    for (var i = 0; i < ORDERS.length; i++) {
      var clock = ORDERS[i];
      var reading = 0.0;
      if (clock !== null) {
        if (!this.every[i]) continue; // a hit lacks this clock: it is never the one compared by
        if (time === null || time[clock] === null) {
          this.every[i] = false;
          this.keys[i] = this.best[i] = null;
          continue;
        }
        reading = time[clock];
        this.low[i] = Math.min(this.low[i], reading);
        this.high[i] = Math.max(this.high[i], reading);
      }
      // As sortKey reads it.
      var key = [typeof reading === "number" ? reading : 0.0, match.fileIndex, match.offset];
      if (this.keys[i] === null || compareKeys(key, this.keys[i]) < 0) {
        hit = hit || hitOf(match);
        this.keys[i] = key;
        this.best[i] = hit;
      }
    }
    return hit;
  };

  // The place in ORDERS of the order clockOf chooses for the union of the sets' hits.
  function orderOf(sets) {
    for (var i = 0; i < CLOCKS.length; i++) {
      var all = sets.every(function (s) { return s.every[i]; });
      if (!all) continue;
      if (CLOCKS[i] === "boot") {
        var files = new Set(sets.map(function (s) { return s.fileIndex; }));
        var oneFile = sets.every(function (s) { return s.oneFile; }) && files.size <= 1;
        if (!oneFile) break; // each machine boots at its own time
      }
      return i;
    }
    return ORDERS.length - 1;
  }

  // The clock every hit of the sets has (clockOf of their union), or null for position.
  function clockOfSets(sets) {
    return ORDERS[orderOf(sets.filter(function (s) { return s.hits; }))];
  }

  // earliestFirst(hits)[0] of the hits of all the sets in turn: among equal keys the first
  // set's, as the stable sort of their hits one set after another puts it first.
  function earliestOf(sets) {
    sets = sets.filter(function (s) { return s.hits; });
    var i = orderOf(sets);
    var bestKey = null;
    var best = null;
    sets.forEach(function (s) {
      var key = s.keys[i];
      if (key !== null && (bestKey === null || compareKeys(key, bestKey) < 0)) {
        bestKey = key;
        best = s.best[i];
      }
    });
    return best;
  }

  // No rank sorts after every rank, as on the page's timeline.
  function compareRanks(a, b) {
    if (a === null) return b === null ? 0 : 1;
    return b === null ? -1 : a - b;
  }

  // One entry's matched lines: counts per rank, and of each (file, rank) stream's first line
  // (the one triage compares) what earliestOf needs, of all of them and of those that name a
  // rank by the line itself, which choose the first failed rank; and the streams of the
  // TIMELINE_RANKS lowest ranks, all the page's timeline can show of this entry.
  function EntryTally(timelineRanks) {
    this.count = 0;
    this.rankCounts = new Map();
    this.firsts = new Earliest();
    this.ranked = new Earliest();
    // The streams seen: while every line is from one file, rankCounts has its ranks; lines from
    // a second file make it a Set of ranks per file.
    this.fileIndex = null;
    this.ranksByFile = null;
    this.shown = new Map(); // rank -> its streams' first hits, in the order they came
    this.highestShown = undefined; // the highest rank of `shown`, once it is full
    this.timelineRanks = timelineRanks;
  }

  // Whether the entry has no line of this stream yet; before the line is counted.
  EntryTally.prototype.newStream = function (fileIndex, rank) {
    if (this.ranksByFile === null) {
      if (this.fileIndex === null || this.fileIndex === fileIndex) {
        this.fileIndex = fileIndex;
        return !this.rankCounts.has(rank);
      }
      this.ranksByFile = new Map([[this.fileIndex, new Set(this.rankCounts.keys())]]);
    }
    var ranks = this.ranksByFile.get(fileIndex);
    if (ranks === undefined) this.ranksByFile.set(fileIndex, (ranks = new Set()));
    if (ranks.has(rank)) return false;
    ranks.add(rank);
    return true;
  };

  // Keeps a stream's first hit for the timeline when its rank is among the lowest seen. A rank
  // left out never comes back: the ranks that push one out are lower, and stay.
  EntryTally.prototype.show = function (match, hit) {
    var rank = match.rank;
    var kept = this.shown.get(rank);
    if (kept === undefined) {
      if (this.shown.size >= this.timelineRanks) {
        if (this.highestShown === undefined) {
          var highest = null;
          var first = true;
          this.shown.forEach(function (_, r) {
            if (first || compareRanks(r, highest) > 0) highest = r;
            first = false;
          });
          this.highestShown = highest;
        }
        if (compareRanks(rank, this.highestShown) > 0) return hit;
        this.shown.delete(this.highestShown);
        this.highestShown = undefined;
      }
      this.shown.set(rank, (kept = []));
    }
    hit = hit || hitOf(match);
    kept.push(hit);
    return hit;
  };

  // Matched lines folded into per-entry counts, as the scanner produces them.
  function Tally(index, timelineRanks) {
    this.index = index;
    this.timelineRanks = timelineRanks || TIMELINE_RANKS; // tests make it small
    this.defining = new Map(); // entry id -> EntryTally
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
    // The shell names no rank, nor does DeepSpeed's launcher (the command it quotes is the last
    // it built): the report is about the rank whose line it is, if any.
    var shell = launch !== null && (launch.launcher === "shell" || launch.launcher === "deepspeed");
    var rank = shell ? match.rank : launch !== null ? launch.rank : null;
    if (launch !== null && launch.failed && (rank !== null || shell)) {
      var wkey = match.fileIndex + ":" + rank + ":" + launch.local;
      var seen = this.witnesses.get(wkey);
      if (seen === undefined) {
        this.witnesses.set(wkey, {
          launcher: launch.launcher,
          rank: rank,
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
        tally = new EntryTally(this.timelineRanks);
        tallies.set(entry, tally);
      }
      var isNew = tally.newStream(match.fileIndex, match.rank);
      tally.count += repeat;
      tally.rankCounts.set(match.rank, (tally.rankCounts.get(match.rank) || 0) + repeat);
      if (isNew) {
        hit = tally.firsts.add(match, hit);
        if (match.rank !== null && match.rankFromLauncher !== true) hit = tally.ranked.add(match, hit);
        hit = tally.show(match, hit);
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

  function shownStreams(t) {
    var hits = [];
    t.shown.forEach(function (kept) { hits.push.apply(hits, kept); });
    var key = sortKey(ORDERS[orderOf([t.firsts])]);
    return hits.sort(function (a, b) { return compareKeys(key(a), key(b)); });
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
      firsts.set(entryId, earliestOf([t.firsts]));
    });
    var harmless = new Map();
    var harmlessFirsts = new Map();
    tally.harmless.forEach(function (t, entryId) {
      if (tally.defining.has(entryId)) return;
      harmless.set(entryId, t);
      harmlessFirsts.set(entryId, earliestOf([t.firsts]));
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
        // The streams of the lowest ranks, as earliestFirst orders all of them (a stable
        // sort of a subset keeps its order in the whole); and what places them on a clock.
        streams: shownStreams(t),
        firstLines: t.firsts,
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
    var witnesses = orderWitnesses(Array.from(tally.witnesses.values()));
    var verdict = witnesses.length ? witnesses[0] : null;
    var bySignal = null;
    if (!roots.length && verdict !== null) {
      // No signature names the failure, but the launcher (or the shell) says which signal
      // ended the rank: the entry that declares that signal is the root cause, on its line.
      var named = signalEntry(index, E.exitSignal(verdict.code, verdict.signal));
      if (named !== null) bySignal = witnessFinding(named, index.entries[named], verdict);
    }
    var findings = roots.map(function (e) { return finding(e, "root-cause"); })
      .concat(bySignal !== null ? [bySignal] : [])
      .concat(collateral.map(function (e) { return finding(e, "collateral"); }))
      .concat(inOrder(Array.from(harmless.keys()), harmlessFirsts).map(function (e) {
        return finding(e, "not-the-cause");
      }));
    var unrecognized = [];
    var firstFailure = null;
    if (roots.length) {
      var ranked = roots.map(function (e) { return tally.defining.get(e).ranked; });
      if (ranked.some(function (s) { return s.hits; })) firstFailure = earliestOf(ranked);
      else if (verdict !== null) firstFailure = verdict.hit;
    } else if (bySignal !== null) {
      firstFailure = bySignal.first;
    } else if (strong.length || verdict !== null) {
      var rank = verdict !== null ? verdict.rank : strong[0].rank;
      var mine = evidence.filter(function (u) { return u.hit.rank === rank; });
      if (!mine.length && rank !== null) {
        // The rank's own lines carry no rank prefix: the lines that name no rank are its.
        mine = evidence.filter(function (u) { return u.hit.rank === null; });
      }
      if (mine.length) {
        var best = Math.min.apply(null, mine.map(function (u) { return E.KINDS.indexOf(u.kind); }));
        var picked = mine.filter(function (u) { return E.KINDS.indexOf(u.kind) === best; });
        var first = earliestFirst(picked.map(function (u) { return u.hit; }))[0];
        unrecognized = picked.filter(function (u) { return u.hit === first; });
      }
      if (verdict !== null) firstFailure = verdict.hit;
      else if (unrecognized.length && rank !== null) firstFailure = unrecognized[0].hit;
    }
    // A line that names no rank names no first failed rank (triage.py).
    if (firstFailure !== null && firstFailure.rank === null) firstFailure = null;
    var firstWitness = null;
    for (var w = 0; w < witnesses.length; w++) {
      if (firstFailure !== null && witnesses[w].rank === firstFailure.rank) {
        firstWitness = witnesses[w];
        break;
      }
    }
    // One process, no rank: the shell's or launcher's report on it, if that is all there is.
    if (firstFailure === null && verdict !== null && verdict.rank === null) firstWitness = verdict;
    return {
      findings: findings,
      firstFailedRank: firstFailure !== null ? firstFailure.rank : null,
      firstFailure: firstFailure,
      unrecognized: unrecognized,
      witnesses: witnesses,
      firstWitness: firstWitness,
    };
  }

  // The page's timeline (worker.js sends it): each rank's first line of each failure. Only the
  // first `rows` ranks' rows ({key, events: [{finding, hit}]}, `finding` an index into the
  // findings), with the clock and its range over every rank and the number of ranks left out:
  // what the page shows of a log of a million ranks, not every rank's line. A finding's
  // `streams` are its lowest ranks' lines (the Tally keeps no more), so the clock and the range
  // come from its `firstLines`, and the ranks left out from its rank counts.
  // null when nothing failed (harmless lines alone would read as a failure).
  function timelineOf(d, rows) {
    rows = rows || TIMELINE_RANKS;
    var failed = d.findings.some(function (f) { return f.role !== "not-the-cause"; });
    if (!failed) return null;
    var byRank = new Map();
    var everyRank = new Set();
    var sets = [];
    d.findings.forEach(function (f, i) {
      sets.push(f.firstLines);
      f.rankCounts.forEach(function (rc) { everyRank.add(rc[0] === null ? "none" : rc[0]); });
      f.streams.forEach(function (hit) {
        var key = hit.rank === null ? "none" : hit.rank;
        if (!byRank.has(key)) byRank.set(key, []);
        byRank.get(key).push({ finding: i, hit: hit });
      });
    });
    if (!sets.length) return null;
    var clock = clockOfSets(sets);
    var low = Infinity;
    var high = -Infinity;
    if (clock) {
      var c = CLOCKS.indexOf(clock);
      sets.forEach(function (s) {
        low = Math.min(low, s.low[c]);
        high = Math.max(high, s.high[c]);
      });
    }
    var keys = Array.from(everyRank).sort(function (a, b) {
      if (a === "none") return 1;
      if (b === "none") return -1;
      return a - b;
    });
    return {
      clock: clock,
      low: low,
      high: high,
      ranks: keys.slice(0, rows).map(function (key) {
        return {
          key: key,
          events: byRank.get(key),
        };
      }),
      more: Math.max(0, keys.length - rows),
    };
  }

  // The entry whose `codes.signal` declares this signal (the first by id), or null
  // (triage.py's signal_entry).
  function signalEntry(index, signal) {
    if (signal === null) return null;
    var ids = Object.keys(index.entries).sort(compareStrings);
    for (var i = 0; i < ids.length; i++) {
      if (index.entries[ids[i]].signals.indexOf(signal) >= 0) return ids[i];
    }
    return null;
  }

  function witnessFinding(entryId, entry, w) {
    var lines = new Earliest();
    lines.add(w.hit, w.hit);
    return {
      id: entryId,
      entry: entry,
      role: "root-cause",
      count: 1,
      ranks: w.rank !== null ? [w.rank] : [],
      rankCounts: [[w.rank, 1]],
      first: w.hit,
      streams: [w.hit],
      firstLines: lines,
      contextLines: 0,
      causedBy: [],
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
        (a.rank === null) - (b.rank === null) ||
        (a.rank || 0) - (b.rank || 0);
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

  // report.py's culprit_data: the culprit of the line the report puts first, or null.
  function culpritData(diagnosis) {
    var c = diagnosis.culprit;
    var hit = diagnosis.explained;
    if (!c || !hit) return null;
    function frame(f) {
      return f === null ? null : { path: f.path, line: f.line, function: f.function };
    }
    return {
      file: hit.file,
      line: hit.line,
      package: c.package,
      raised_in: frame(c.raisedIn),
      called_from: frame(c.calledFrom),
      names: c.names.map(function (n) { return { kind: n[0], value: n[1] }; }),
      versions: c.versions.map(function (v) { return { package: v[0], version: v[1] }; }),
    };
  }

  // The JSON report of `trainwreck diagnose --json`, exactly (generator/diagnose/report.py).
  function toJSON(diagnosis) {
    var out = {
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
      culprit: culpritData(diagnosis),
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
    if (diagnosis.trends && diagnosis.trends.length) out.trends = diagnosis.trends.map(E.trendData);
    return out;
  }

  E.TEXT_CHARS = TEXT_CHARS;
  E.hitOf = hitOf;
  E.Earliest = Earliest;
  E.Tally = Tally;
  E.triage = triage;
  E.earliestFirst = earliestFirst;
  E.timelineOf = timelineOf;
  E.toJSON = toJSON;
  E.UNRECOGNIZED = UNRECOGNIZED;
})(typeof self !== "undefined" ? self : globalThis);
