// Training progress lines and what their numbers show: a port of generator/diagnose/progress.py
// (the reader), trends.py (the findings), trend_words.py (their words) and trend_findings.py
// (joined to a diagnosis). The same formats, windows, thresholds and order, so both engines
// report the same trends; ASCII-only patterns, with Python's ASCII \s spelled out.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var FULL_BYTES = 128 << 10;
  var STRIDE_BYTES = 4 << 20;
  var WINDOW_BYTES = 2 << 10;
  var MAX_POINTS = 512;
  var MAX_SERIES = 128;
  var LINE_BYTES = 2048;
  var AFTER_LINES = 16;

  var S = "[ \\t\\n\\r\\f\\v]";
  var NUM = "([-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[-+]?(?:nan|NaN|NAN|inf|Inf|INF)(?:\\.0)?)";
  var SEP = "['\"]?(?:" + S + "*[:=]" + S + "*|" + S + "+)['\"]?";
  var END = "(?![A-Za-z0-9_.])";
  var LOSS = new RegExp(
    "(?<![A-Za-z_])(?<!val )(?<!eval )(?<!test )(?<!valid )(?<!dev )" +
      "(?:lm |train_|train |training )?[Ll]oss" + SEP + NUM + END
  );
  var EVAL_LOSS = new RegExp(
    "(?<![A-Za-z])(?:val|eval|valid|validation|test|dev)[ _][Ll]oss" + SEP + NUM + END
  );
  var GRAD_NORM = new RegExp("(?<![A-Za-z_])(?:grad[ _]norm|gnorm)" + SEP + NUM + END, "i");
  var LOSS_SCALE = new RegExp("(?<![A-Za-z_])loss[ _]scale" + SEP + NUM + END);
  var OVERFLOW = new RegExp(
    "OVERFLOW! Rank \\d+ Skipping step\\. Attempted loss scale: " + NUM + ", reducing to " + NUM +
      "|Gradient overflow\\." + S + "+Skipping step, loss scaler \\d+ reducing loss scale to " + NUM
  );
  var ITER_MS = new RegExp(
    "elapsed time per iteration \\((ms|s)\\): " + NUM + "|(?<![A-Za-z_])time " + NUM + " ?ms\\b" +
      "|(?<![A-Za-z0-9_.])" + NUM + " ?(ms|s|us)/step\\b" +
      "|(?<![A-Za-z0-9_.])" + NUM + " ?(s/it|it/s)\\b"
  );
  var SKIPPED = /number of skipped iterations: *(\d+)|(?<![A-Za-z_])skipped=(\d+)/;
  var STEP_OF = /iteration +(\d+)\/ *(\d+) \||(?<![A-Za-z0-9_\/])(\d+)\/(\d+) \[[\d:]+<[\d:?]+|^ *(\d+)\/(\d+) |\]\[ *(\d+)\/(\d+)\]/;
  var STEP = new RegExp(
    "(?<![A-Za-z_])(?:global[_ ]step|step|iter|iteration|num_updates)['\"]?" + S + "*[:=#]?" + S +
      "*['\"]?(\\d+)(?![A-Za-z0-9_.])",
    "i"
  );
  var TIMERS = new TextEncoder().encode("times across ranks (ms):");
  var TIMER_NAME = /^([A-Za-z0-9_-]+):$/;
  var TIMER_RANK = new RegExp("^rank +(\\d+): " + NUM + "$");
  var COMPUTE_TIMERS = new Set(["forward-backward", "forward-compute", "backward-compute"]);
  var WATCHDOG = ["Watchdog caught collective operation timeout", "detected by watchdog at work"].map(function (w) {
    return new TextEncoder().encode(w);
  });
  var TORCHRUN_PREFIX = /^ *\[(?:rank|default)(\d{1,6})\]:/;
  var TIMED_OUT = /OpType=([A-Za-z0-9_]+)/;
  var RANK_OPEN = new TextEncoder().encode("[rank");
  var DEFAULT_OPEN = new TextEncoder().encode("[default");
  var HINTS = ["oss", "it/s", "s/it", "/step", "OVERFLOW!", "overflow", "elapsed time", "skipped="];
  var RAW_HINTS = HINTS.map(function (h) { return new TextEncoder().encode(h); });

  function toFloat(text) {
    var low = text.toLowerCase().replace(/^\+/, "").replace(/\.0$/, "");
    if (low === "nan" || low === "-nan") return NaN;
    if (low === "inf") return Infinity;
    if (low === "-inf") return -Infinity;
    return Number(text);
  }

  function firstGroup(m) {
    if (m === null) return null;
    for (var i = 1; i < m.length; i++) if (m[i] !== undefined) return m[i];
    return null;
  }

  function iterMs(m) {
    if (m === null) return null;
    var per = { ms: 1.0, s: 1000.0, us: 0.001 };
    if (m[2] !== undefined) return toFloat(m[2]) * per[m[1]];
    if (m[3] !== undefined) return toFloat(m[3]);
    if (m[4] !== undefined) return toFloat(m[4]) * per[m[5]];
    var value = toFloat(m[6]);
    if (m[7] === "s/it") return value * 1000.0;
    return value > 0 ? 1000.0 / value : null;
  }

  // progress.py's read_progress: the numbers of a progress line, or null.
  function readProgress(body) {
    if (!HINTS.some(function (h) { return body.indexOf(h) >= 0; })) return null;
    if (body.indexOf("train_runtime") >= 0) return null;
    // Each pattern only where its literal is (progress.py's read_progress).
    var has = function (s) { return body.indexOf(s) >= 0; };
    var lossy = has("oss");
    var overflow = has("OVERFLOW") || has("overflow") ? OVERFLOW.exec(body) : null;
    var lossM = lossy ? LOSS.exec(body) : null;
    var evalM = lossy ? EVAL_LOSS.exec(body) : null;
    var gradM = has("orm") || has("ORM") ? GRAD_NORM.exec(body) : null;
    var scaleM = has("scale") ? LOSS_SCALE.exec(body) : null;
    var stepM = STEP_OF.exec(body) || STEP.exec(body);
    var timed = has("ms") || has("/step") || has("/it") || has("it/s") || has("elapsed");
    var timeM = timed ? ITER_MS.exec(body) : null;
    var skippedM = has("skipped") ? SKIPPED.exec(body) : null;
    var losses = lossM || evalM || gradM;
    if (!(overflow || (losses && body.startsWith("{'")) || (stepM && (losses || scaleM || timeM || skippedM)) ||
          (timeM && lossM))) return null;
    var step = null;
    var total = null;
    if (stepM !== null) {
      for (var k = 1; k < stepM.length; k += 2) {
        if (stepM[k] !== undefined) {
          step = parseInt(stepM[k], 10);
          total = k + 1 < stepM.length ? parseInt(stepM[k + 1], 10) : null;
          break;
        }
      }
    }
    var lossScale = scaleM ? toFloat(scaleM[1]) : null;
    if (overflow !== null) lossScale = toFloat(overflow[2] !== undefined ? overflow[2] : overflow[3]);
    return {
      step: step,
      total: total,
      loss: lossM ? toFloat(lossM[1]) : null,
      eval_loss: evalM ? toFloat(evalM[1]) : null,
      grad_norm: gradM ? toFloat(gradM[1]) : null,
      loss_scale: lossScale,
      overflow: overflow !== null,
      iter_ms: iterMs(timeM),
      skipped: skippedM ? parseInt(firstGroup(skippedM) || "0", 10) : null,
    };
  }

  var METRICS = ["loss", "eval_loss", "grad_norm", "loss_scale", "iter_ms"];

  function Series(rank, metric, points) {
    this.rank = rank;
    this.metric = metric;
    this.points = points || [];
    this.stride = 1;
    this.seen = 0;
    this.firstNonfinite = null;
    this.overflows = 0;
  }

  Series.prototype.add = function (point) {
    if (this.firstNonfinite === null && !isFinite(point.value)) this.firstNonfinite = point;
    this.seen += 1;
    if ((this.seen - 1) % this.stride) return;
    this.points.push(point);
    if (this.points.length > MAX_POINTS) {
      this.points = this.points.filter(function (_, i) { return i % 2 === 0; });
      this.stride *= 2;
    }
  };

  function windows(start, end) {
    var parts = [];
    if (start < FULL_BYTES) parts.push([start, Math.min(end, FULL_BYTES)]);
    var k = Math.max(1, Math.floor(start / STRIDE_BYTES));
    while (k * STRIDE_BYTES < end) {
      var lo = k * STRIDE_BYTES;
      var hi = lo + WINDOW_BYTES;
      if (hi > start) parts.push([Math.max(lo, start), Math.min(hi, end)]);
      k += 1;
    }
    return parts;
  }

  function contains(bytes, needle) {
    var first = needle[0];
    for (var at = bytes.indexOf(first); at >= 0 && at + needle.length <= bytes.length; at = bytes.indexOf(first, at + 1)) {
      var j = 1;
      while (j < needle.length && bytes[at + j] === needle[j]) j++;
      if (j === needle.length) return true;
    }
    return false;
  }

  // E.countBreaks and E.decodedLine are engine.js's, loaded after this file: they are called
  // only once a log is read.

  // progress.py's ProgressReader: wraps a log's Tail and reads the progress lines that pass.
  // Wraps a log's Tail (engine.js), whose count of each block's lines it takes.
  function ProgressReader(tail, file, fileIndex, fileRank) {
    this._tail = tail;
    this.log = {
      file: file, fileIndex: fileIndex, fileRank: fileRank, series: new Map(), lines: 0, after: [],
      stacks: new Stacks(), timeouts: new Map(), prefixed: new Set(), timeoutOp: null, lastBefore: new Map(),
    };
    this._offset = 0;
    this._line = 1;
    this._carry = null;
    this._carryAt = [0, 0];
    this._midLine = false;
    this._timer = null;
    this._lastStep = null;
  }

  ProgressReader.prototype.read = async function (n) {
    var data = await this._tail.read(n);
    if (data.length) {
      this._feed(data);
    } else if (this._carry !== null) {
      this._take(this._carry, this._carryAt[0], this._carryAt[1]);
      this._carry = null;
    }
    return data;
  };

  ProgressReader.prototype._feed = function (data) {
    var start = this._offset;
    if (this._carry !== null) {
      var lf0 = data.indexOf(10);
      var room = LINE_BYTES - this._carry.length;
      var more = data.subarray(0, Math.min(room, lf0 < 0 ? data.length : lf0));
      var joined = new Uint8Array(this._carry.length + more.length);
      joined.set(this._carry);
      joined.set(more, this._carry.length);
      this._carry = joined;
      if (lf0 >= 0) {
        this._take(this._carry, this._carryAt[0], this._carryAt[1]);
        this._carry = null;
      }
    }
    var parts = windows(start, start + data.length);
    for (var w = 0; w < parts.length; w++) {
      var at = parts[w][0] - start;
      var hiAt = parts[w][1] - start;
      var insideALine = at ? data[at - 1] !== 10 : this._midLine;
      if (insideALine) {
        var next = data.indexOf(10, at);
        if (next < 0 || next + 1 >= hiAt) continue;
        at = next + 1;
      }
      var number = this._line + E.countBreaks(data, 0, at);
      while (at < hiAt) {
        var lf = data.indexOf(10, at);
        if (lf < 0) {
          this._carry = data.slice(at, at + LINE_BYTES);
          this._carryAt = [number, start + at];
          break;
        }
        this._take(data.subarray(at, Math.min(lf, at + LINE_BYTES)), number, start + at);
        at = lf + 1;
        number += 1;
      }
    }
    this._line = this._tail.firstLine + E.countBreaks(this._tail.kept, 0, this._tail.kept.length);
    this._offset += data.length;
    this._midLine = data[data.length - 1] !== 10;
    this.log.lines = this._line;
  };

  ProgressReader.prototype._take = function (raw, number, offset) {
    var after = this.log.after;
    if (after.length < AFTER_LINES) after.push([number, raw.slice(0, E.HEAD_CHARS)]);
    var named = prefixRank(raw);
    var own = named !== null ? named : this.log.fileRank;
    if (named !== null && this.log.prefixed.size < MAX_RANKS) this.log.prefixed.add(named);
    if (own !== null && !this.log.timeouts.size && this.log.lastBefore.size < MAX_RANKS) {
      this.log.lastBefore.set(own, [number, offset, raw.slice(0, E.HEAD_CHARS)]);
    }
    if (WATCHDOG.some(function (w) { return contains(raw, w); })) {
      this._takeTimeout(raw, number, offset);
      return;
    }
    if (this._timer !== null && this._readTimer(raw, number, offset)) return;
    if (contains(raw, TIMERS)) {
      this._timer = "";
      return;
    }
    var stacks = this.log.stacks;
    var inADump = stacks.active() || STACK_HINTS.some(function (h) { return contains(raw, h); });
    if (!inADump && !RAW_HINTS.some(function (h) { return contains(raw, h); })) return;
    var text = E.decodedLine(raw);
    var head = E.headOf(text, E.HEAD_CHARS);
    var read = E.readLineBody(head);
    var info = read[0];
    var rank = info.prefixRank;
    if (rank === null) rank = this.log.fileRank;
    if (inADump && stacks.read(rank, read[1], number, offset, E.headOf(E.pyStrip(E.unwrap(text).text), 240))) return;
    var reading = readProgress(E.pyStrip(read[1]) + text.slice(head.length));
    if (reading === null) return;
    after.length = 0;
    if (reading.step !== null) this._lastStep = reading.step;
    // The line as read: a trend unwraps the one it reports (shownText), not every line.
    var shown = text;
    for (var i = 0; i < METRICS.length; i++) {
      var metric = METRICS[i];
      var value = reading[metric];
      if (value === null) continue;
      var name = metric === "iter_ms" && reading.total ? "iter_ms/" + reading.total : metric;
      var key = rank + "\u0000" + name;
      var series = this.log.series.get(key);
      if (series === undefined) {
        if (this.log.series.size >= MAX_SERIES) continue;
        series = new Series(rank, metric);
        this.log.series.set(key, series);
      }
      series.add({
        value: value, step: reading.step, total: reading.total, line: number, offset: offset,
        time: info.time, text: shown,
      });
      if (metric === "loss_scale" && reading.overflow) series.overflows += 1;
    }
  };

  // The torchrun prefix at the start of raw bytes (ASCII only, as the Python bytes pattern).
  function rawPrefix(raw) {
    var head = raw.subarray(0, 32);
    var text = "";
    for (var i = 0; i < head.length; i++) {
      if (head[i] > 0x7e) break;
      text += String.fromCharCode(head[i]);
    }
    var m = TORCHRUN_PREFIX.exec(text);
    return m === null ? null : parseInt(m[1], 10);
  }

  // progress.py's _prefix_rank: from the bytes, decoded only behind a paste's wrapper.
  function prefixRank(raw) {
    var rank = rawPrefix(raw);
    if (rank !== null) return rank;
    if (contains(raw, RANK_OPEN) || contains(raw, DEFAULT_OPEN)) {
      return E.readLineBody(E.headOf(E.decodedLine(raw), E.HEAD_CHARS))[0].prefixRank;
    }
    return null;
  }

  ProgressReader.prototype._takeTimeout = function (raw, number, offset) {
    var text = E.decodedLine(raw);
    var info = E.readLineBody(E.headOf(text, E.HEAD_CHARS))[0];
    var rank = info.prefixRank !== null ? info.prefixRank : this.log.fileRank;
    if (rank === null) rank = info.textRank;
    if (rank === null || this.log.timeouts.has(rank) || this.log.timeouts.size >= MAX_RANKS) return;
    this.log.timeouts.set(rank, {
      value: 0.0, step: null, total: null, line: number, offset: offset, time: info.time,
      text: E.headOf(E.pyStrip(E.unwrap(text).text), 240),
    });
    var op = TIMED_OUT.exec(text);
    if (op !== null && this.log.timeoutOp === null) this.log.timeoutOp = op[1];
  };

  ProgressReader.prototype._readTimer = function (raw, number, offset) {
    var text = E.decodedLine(raw);
    var body = E.pyStrip(E.readLineBody(E.headOf(text, E.HEAD_CHARS))[1]);
    var name = TIMER_NAME.exec(body);
    if (name !== null) {
      this._timer = name[1];
      return true;
    }
    var m = TIMER_RANK.exec(body);
    if (m === null) {
      this._timer = null;
      return false;
    }
    if (COMPUTE_TIMERS.has(this._timer)) {
      var rank = parseInt(m[1], 10);
      var key = rank + "\u0000rank_ms/" + this._timer;
      var series = this.log.series.get(key);
      if (series === undefined && this.log.series.size < MAX_SERIES) {
        series = new Series(rank, "rank_ms");
        this.log.series.set(key, series);
      }
      if (series !== undefined) {
        series.add({
          value: toFloat(m[2]), step: this._lastStep, total: null, line: number, offset: offset, time: null,
          text: E.headOf(E.pyStrip(E.unwrap(text).text), 240),
        });
      }
    }
    return true;
  };

  // --- hangs.py ---------------------------------------------------------------------------

  var STACK_HINTS = ["most recent call first", "Thread "].map(function (h) { return new TextEncoder().encode(h); });
  var MAX_FRAMES = 64;
  var MAX_THREADS = 16;
  var MAX_RANKS = 1024;
  var FAULTHANDLER_THREAD = /^(?:(?:Current thread|Thread) 0x[0-9a-fA-F]+ (?:\[[^\]]*\] )?\(most recent call first\):|Stack \(most recent call first\):)$/;
  var FAULTHANDLER_FRAME = /^File "([^"]+)", line (\d+) in (\S+)$/;
  var PYSPY_THREAD = /^Thread (?:0x[0-9A-Fa-f]+|\d+)(?: \([a-z+]+\))?(?:: "([^"]*)")?$/;
  var PYSPY_FRAME = /^(\S.*?) \(([^()]+?)(?::(\d+))?\)$/;
  var STDLIB_DIR = /\/lib\/python\d\.\d+\//;
  var STDLIB = new Set("threading selectors multiprocessing queue socket subprocess concurrent asyncio contextlib functools ssl signal time runpy".split(" "));
  var COLLECTIVES = new Set(("all_reduce barrier broadcast all_gather all_gather_into_tensor all_gather_object " +
    "reduce_scatter reduce_scatter_tensor all_to_all all_to_all_single reduce gather scatter " +
    "send recv monitored_barrier broadcast_object_list wait").split(" "));

  function Stacks() {
    this.threads = new Map();
    this.open = new Map();
  }

  Stacks.prototype.active = function () { return this.open.size > 0; };

  Stacks.prototype.read = function (rank, body, number, offset, text) {
    if (rank === null) return false;
    body = E.pyStrip(body);
    var thread = this.open.get(rank);
    if (thread !== undefined) {
      var frame = frameOf(body, number, offset, text);
      if (frame !== null) {
        if (thread.frames.length < MAX_FRAMES) thread.frames.push(frame);
        return true;
      }
      this.open.delete(rank);
    }
    var name;
    var fh = FAULTHANDLER_THREAD.exec(body);
    var ps = fh === null ? PYSPY_THREAD.exec(body) : null;
    if (fh === null && ps === null) return false;
    name = ps !== null && ps[1] !== undefined ? ps[1] : null;
    var threads = this.threads.get(rank);
    if (threads === undefined) {
      if (this.threads.size >= MAX_RANKS) return true;
      threads = [];
      this.threads.set(rank, threads);
    }
    if (threads.length < MAX_THREADS) {
      var opened = { name: name, frames: [] };
      this.open.set(rank, opened);
      threads.push(opened);
    }
    return true;
  };

  function frameOf(body, number, offset, text) {
    var m = FAULTHANDLER_FRAME.exec(body);
    if (m !== null) return { fn: m[3], path: m[1], line: number, offset: offset, text: text };
    m = PYSPY_FRAME.exec(body);
    if (m !== null && m[3] !== undefined) return { fn: m[1], path: m[2], line: number, offset: offset, text: text };
    return null;
  }

  function modulePath(path) {
    var folders = ["site-packages/", "dist-packages/"];
    for (var i = 0; i < folders.length; i++) {
      var at = path.lastIndexOf(folders[i]);
      if (at >= 0) return path.slice(at + folders[i].length);
    }
    if (STDLIB_DIR.test(path)) return null;
    var head = path.split("/")[0].replace(/\.py$/, "");
    return STDLIB.has(head) ? null : path;
  }

  function mainThread(threads) {
    for (var i = 0; i < threads.length; i++) if (threads[i].name === "MainThread") return threads[i];
    for (var j = 0; j < threads.length; j++) {
      var t = threads[j];
      if (t.name === null && t.frames.length && t.frames[t.frames.length - 1].fn === "<module>") return t;
    }
    return null;
  }

  function whereOf(thread) {
    for (var i = 0; i < thread.frames.length; i++) {
      var path = modulePath(thread.frames[i].path);
      if (path !== null) {
        var fn = thread.frames[i].fn;
        var short = fn.slice(fn.lastIndexOf(".") + 1);
        return {
          fn: fn, path: path, frame: thread.frames[i], key: fn + " (" + path + ")",
          collective: path.startsWith("torch/distributed/") && COLLECTIVES.has(short),
        };
      }
    }
    return null;
  }

  function oddOnesOut(stacks) {
    var ranks = Array.from(stacks.keys()).sort(numeric);
    var groups = new Map();
    ranks.forEach(function (r) {
      var key = stacks.get(r).key;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(r);
    });
    var waiting = ranks.filter(function (r) { return stacks.get(r).collective; });
    var elsewhere = ranks.filter(function (r) { return !stacks.get(r).collective; });
    if (waiting.length && elsewhere.length) return [elsewhere, groups];
    if (groups.size >= 2 && !elsewhere.length) {
      var sizes = Array.from(groups.values()).map(function (g) { return g.length; }).sort(numeric);
      if (sizes[0] < sizes[1]) {
        var smallest = Array.from(groups.values()).find(function (g) { return g.length === sizes[0]; });
        return [smallest, groups];
      }
    }
    return [[], groups];
  }

  function noTimeoutOfTheirOwn(logs) {
    var timeouts = new Map();
    var seen = new Set();
    logs.forEach(function (log) {
      log.prefixed.forEach(function (r) { seen.add(r); });
      if (log.fileRank !== null && log.lines > 1) seen.add(log.fileRank);
      log.timeouts.forEach(function (point, rank) { if (!timeouts.has(rank)) timeouts.set(rank, [point, log]); });
    });
    var before = new Set();
    logs.forEach(function (log) { log.lastBefore.forEach(function (_, r) { before.add(r); }); });
    var quiet = Array.from(seen).filter(function (r) { return !timeouts.has(r) && before.has(r); }).sort(numeric);
    if (timeouts.size < 2 || !quiet.length || quiet.length >= timeouts.size) return null;
    var best = null;
    timeouts.forEach(function (pl) {
      if (best === null || pl[1].fileIndex < best[1].fileIndex ||
          (pl[1].fileIndex === best[1].fileIndex && pl[0].line < best[0].line)) best = pl;
    });
    var point = best[0];
    var log = best[1];
    for (var i = 0; i < logs.length; i++) {
      if (logs[i].lastBefore.has(quiet[0])) {
        var kept = logs[i].lastBefore.get(quiet[0]);
        var text = E.decodedLine(kept[2]);
        point = {
          value: 0.0, step: null, total: null, line: kept[0], offset: kept[1], time: E.readLine(text).time,
          text: E.headOf(E.pyStrip(E.unwrap(text).text), 240),
        };
        log = logs[i];
        break;
      }
    }
    var op = null;
    for (var j = 0; j < logs.length && op === null; j++) op = logs[j].timeoutOp;
    var waited = op ? "timed out waiting in " + op : "timed out waiting";
    var timed = Array.from(timeouts.keys()).sort(numeric);
    return {
      kind: "stall", metric: "watchdog", file: log.file, fileIndex: log.fileIndex, rank: quiet[0], point: point,
      before: null, after: null, recoveredAfter: null, ranks: quiet.slice(), series: [], entry: null,
      groups: [["no watchdog timeout of its own", quiet.slice()], [waited, timed]],
    };
  }

  function oddOnesOutTrend(logs) {
    var wheres = new Map();
    logs.forEach(function (log) {
      log.stacks.threads.forEach(function (threads, rank) {
        var thread = mainThread(threads);
        var where = thread !== null && !wheres.has(rank) ? whereOf(thread) : null;
        if (where !== null) wheres.set(rank, [where, log]);
      });
    });
    var only = new Map();
    wheres.forEach(function (wl, r) { only.set(r, wl[0]); });
    var result = oddOnesOut(only);
    var odd = result[0];
    if (!odd.length) return null;
    var found = wheres.get(odd[0]);
    var f = found[0].frame;
    var log = found[1];
    var point = { value: 0.0, step: null, total: null, line: f.line, offset: f.offset, time: null, text: f.text };
    var first = [];
    var rest = [];
    result[1].forEach(function (rs, k) { (rs.indexOf(odd[0]) >= 0 ? first : rest).push([k, rs.slice()]); });
    return {
      kind: "stall", metric: "stacks", file: log.file, fileIndex: log.fileIndex, rank: odd[0], point: point,
      before: null, after: null, recoveredAfter: null, ranks: odd.slice(), series: [], entry: null,
      groups: first.concat(rest),
    };
  }

  // --- trends.py ---------------------------------------------------------------------------

  var TREND_KINDS = ["non-finite", "loss-scale-collapse", "stall", "divergence", "spike", "slowdown"];
  var WINDOW = 10;
  var MIN_BEFORE = 4;
  var WARMUP = 3;
  var PERSIST = 3;
  var SPIKE_RATIO = 1.5;
  var SPIKE_MADS = 6.0;
  var BACK_RATIO = 1.1;
  var DIVERGE_RATIO = 2.0;
  var RISE_RATIO = 1.5;
  var SHORT_SERIES = 5;
  var SLOW_RATIO = 1.05;
  var SCALE_FLOOR = 1.0;
  var SCALE_LOW = 128.0;
  var STALL_LEAD = 2;
  var STALL_GAP = 10.0;
  var STALL_SECONDS = 120.0;
  var SERIES_POINTS = 48;

  function numeric(a, b) { return a - b; }

  function median(values) {
    var s = values.slice().sort(numeric);
    var n = s.length;
    return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  function mad(values, middle) {
    return median(values.map(function (v) { return Math.abs(v - middle); }));
  }

  function around(points, i) {
    var lo = Math.max(0, Math.min(i - Math.floor(SERIES_POINTS / 2), points.length - SERIES_POINTS));
    return points.slice(lo, lo + SERIES_POINTS).map(function (p) { return [p.step, p.value]; });
  }

  function shownText(text) {
    return E.headOf(E.pyStrip(E.unwrap(text).text), 240);
  }

  function trend(kind, log, s, points, i, more) {
    var t = {
      kind: kind, metric: s.metric, file: log.file, fileIndex: log.fileIndex, rank: s.rank,
      point: Object.assign({}, points[i], { text: shownText(points[i].text) }), before: null, after: null, recoveredAfter: null, ranks: [],
      series: around(points, i), entry: null, groups: [],
    };
    Object.keys(more || {}).forEach(function (k) { t[k] = more[k]; });
    return t;
  }

  function values(points) { return points.map(function (p) { return p.value; }); }

  function nonfinite(log, s) {
    if ((s.metric === "loss" || s.metric === "eval_loss") && s.firstNonfinite !== null) {
      var bad = s.firstNonfinite;
      var finite = s.points.filter(function (p) { return p.line < bad.line && isFinite(p.value); });
      var points = s.points.indexOf(bad) >= 0 ? s.points
        : s.points.concat([bad]).sort(function (a, b) { return a.line - b.line; });
      return trend("non-finite", log, s, points, points.indexOf(bad), {
        before: finite.length ? finite[finite.length - 1].value : null, after: bad.value,
      });
    }
    if (s.metric !== "grad_norm" || s.points.length < PERSIST) return null;
    var run = s.points.length;
    while (run > 0 && !isFinite(s.points[run - 1].value)) run -= 1;
    if (s.points.length - run < PERSIST) return null;
    return trend("non-finite", log, s, s.points, run, {
      before: run ? s.points[run - 1].value : null, after: s.points[run].value,
    });
  }

  function collapse(log, s) {
    if (s.metric !== "loss_scale" || !s.points.length) return null;
    var v = values(s.points);
    for (var i = 0; i < v.length; i++) {
      if (v[i] <= SCALE_FLOOR && (s.overflows || Math.max.apply(null, v.slice(0, i + 1)) > SCALE_FLOOR)) {
        return trend("loss-scale-collapse", log, s, s.points, i, {
          before: Math.max.apply(null, v.slice(0, i + 1)), after: v[i],
        });
      }
    }
    var run = v.length - 1;
    while (run > 0 && v[run] < v[run - 1]) run -= 1;
    if (v.length - 1 - run >= PERSIST * 2 && v[v.length - 1] < SCALE_LOW) {
      return trend("loss-scale-collapse", log, s, s.points, run + 1, { before: v[run], after: v[v.length - 1] });
    }
    return null;
  }

  function stepsBetween(a, b, ia, ib) {
    if (a.step !== null && b.step !== null) return b.step - a.step;
    return ib - ia;
  }

  function lossTrends(log, s) {
    if (s.metric !== "loss") return [];
    var points = s.points.filter(function (p) { return isFinite(p.value); });
    var found = [];
    for (var i = MIN_BEFORE; i < points.length; i++) {
      var window = values(points.slice(Math.max(0, i - WINDOW), i));
      var base = median(window);
      if (base <= 0) continue;
      var m = mad(window, base);
      var x = points[i].value;
      if (x < SPIKE_RATIO * base || x - base < SPIKE_MADS * m) continue;
      var back = base + Math.max((BACK_RATIO - 1) * base, 3 * m);
      var later = points.slice(i + 1);
      var j = -1;
      for (var k = 0; k < later.length; k++) {
        if (later[k].value <= back) { j = k; break; }
      }
      if (j >= 0) {
        found.push(trend("spike", log, s, points, i, {
          before: base, after: x, recoveredAfter: stepsBetween(points[i], later[j], i, i + 1 + j),
        }));
        break;
      }
      var tail = later.length ? median(values(later.slice(-WINDOW))) : 0.0;
      if (later.length >= WINDOW && (tail >= base + (x - base) / 2 || tail >= DIVERGE_RATIO * base)) {
        found.push(trend("divergence", log, s, points, i, { before: base, after: tail }));
      } else {
        found.push(trend("spike", log, s, points, i, { before: base, after: x }));
      }
      return found;
    }
    var run = points.length - 1;
    while (run > 0 && points[run].value > points[run - 1].value) run -= 1;
    var low = points.length ? points[run].value : 0.0;
    if (points.length - run >= PERSIST + 2 && low > 0 && points[points.length - 1].value >= RISE_RATIO * low) {
      found.push(trend("divergence", log, s, points, run + 1, { before: low, after: points[points.length - 1].value }));
      return found;
    }
    if (points.length < 2 * WINDOW) return found;
    var v = values(points);
    var last = median(v.slice(-WINDOW));
    var best = Infinity;
    var at = -1;
    for (var q = 0; q <= v.length - 2 * WINDOW; q++) {
      var low = median(v.slice(q, q + WINDOW));
      if (low < best) { best = low; at = q; }
    }
    if (best <= 0 || last < DIVERGE_RATIO * best) return found;
    var middle = best + (last - best) / 2;
    var start = at + WINDOW;
    while (v[start] < middle) start++;
    found.push(trend("divergence", log, s, points, start, { before: best, after: last }));
    return found;
  }

  function slowdown(log, s) {
    if (s.metric !== "iter_ms" && s.metric !== "rank_ms") return null;
    var points = s.points.filter(function (p) { return isFinite(p.value) && p.value > 0; });
    var v = values(points);
    if (points.length < WARMUP + 3 * WINDOW) return levelShift(log, s, points, v);
    var first = v.slice(WARMUP, WARMUP + WINDOW);
    var last = v.slice(-WINDOW);
    var b = median(first);
    var a = median(last);
    if (a < SLOW_RATIO * b || last.slice().sort(numeric)[1] <= first.slice().sort(numeric)[WINDOW - 2]) return null;
    var middle = (a + b) / 2;
    var start = WARMUP + WINDOW;
    while (median(v.slice(start, start + WINDOW)) < middle) start++;
    return trend("slowdown", log, s, points, start, { before: b, after: a });
  }

  function levelShift(log, s, points, v) {
    if (v.length < SHORT_SERIES) return null;
    for (var k = 2; k < v.length - 1; k++) {
      var before = v.slice(Math.max(0, k - WINDOW), k);
      var after = v.slice(k);
      var b = median(before);
      var a = median(after);
      if (Math.min.apply(null, after) > Math.max.apply(null, before) && a >= SLOW_RATIO * b) {
        return trend("slowdown", log, s, points, k, { before: b, after: a });
      }
    }
    return null;
  }

  // trends.py's _lines_by_rank: each rank's progress lines, one point a line, in order.
  function linesByRank(log) {
    var byRank = new Map();
    log.series.forEach(function (s) {
      if (!byRank.has(s.rank)) byRank.set(s.rank, new Map());
      s.points.forEach(function (p) { byRank.get(s.rank).set(p.line, p); });
    });
    var out = new Map();
    byRank.forEach(function (lines, r) {
      out.set(r, Array.from(lines.keys()).sort(numeric).map(function (n) { return lines.get(n); }));
    });
    return out;
  }

  function withSteps(log) {
    var out = new Map();
    linesByRank(log).forEach(function (ps, r) {
      if (r !== null) out.set(r, ps.filter(function (p) { return p.step !== null; }));
    });
    return out;
  }

  function stalls(log, lastLine) {
    var ranks = new Map();
    withSteps(log).forEach(function (ps, r) { if (ps.length >= PERSIST) ranks.set(r, ps); });
    var found = [];
    if (ranks.size >= 3) {
      var lastStep = new Map();
      ranks.forEach(function (ps, r) {
        lastStep.set(r, Math.max.apply(null, ps.map(function (p) { return p.step || 0; })));
      });
      var top = Math.max.apply(null, Array.from(lastStep.values()));
      var behind = [];
      lastStep.forEach(function (step, r) { if (step + STALL_LEAD <= top) behind.push(r); });
      if (behind.length && 2 * behind.length < ranks.size) {
        var r = behind.slice().sort(function (a, b) { return lastStep.get(a) - lastStep.get(b) || a - b; })[0];
        var ps = ranks.get(r);
        var ahead = [];
        ranks.forEach(function (_, o) { if (behind.indexOf(o) < 0) ahead.push(lastStep.get(o)); });
        ahead.sort(numeric);
        found.push(trend("stall", log, new Series(r, "steps", ps), ps, ps.length - 1, {
          before: lastStep.get(r), after: ahead[0], ranks: behind.slice().sort(numeric),
        }));
        return found;
      }
    }
    var last = null;
    var rank = null;
    log.series.forEach(function (ser) {
      ser.points.forEach(function (p) {
        if (last === null || p.line > last.line) { last = p; rank = ser.rank; }
      });
    });
    if (last === null || lastLine === null || lastLine[1] === null || lastLine[0] <= last.line) return found;
    if (last.total !== null && last.step !== null && last.step >= last.total) return found;
    var wentOn = wentOnAfter(log, last, lastLine[1]);
    var usual = usualInterval(log);
    if (wentOn === null || usual === null) return found;
    if (wentOn >= Math.max(STALL_GAP * usual, STALL_SECONDS)) {
      found.push(trend("stall", log, new Series(rank, "progress", [last]), [last], 0, {
        before: Math.floor(usual * 1000 + 0.5) / 1000, after: Math.floor(wentOn * 1000 + 0.5) / 1000,
      }));
    }
    return found;
  }

  function wentOnAfter(log, last, end) {
    var start = last.time;
    if (start === null) {
      for (var i = 0; i < log.after.length && start === null; i++) {
        start = E.readLine(E.decodedLine(log.after[i][1])).time;
      }
    }
    if (start === null) return null;
    var clocks = ["absolute", "yearless"];
    for (var c = 0; c < clocks.length; c++) {
      var a = start[clocks[c]];
      var b = end[clocks[c]];
      if (a !== null && b !== null) return b >= a ? b - a : null;
    }
    return null;
  }

  function usualInterval(log) {
    var ranks = Array.from(linesByRank(log).values());
    var clocks = ["absolute", "yearless"];
    for (var c = 0; c < clocks.length; c++) {
      var gaps = [];
      ranks.forEach(function (ps) {
        var stamps = ps.filter(function (p) { return p.time !== null; })
          .map(function (p) { return p.time[clocks[c]]; })
          .filter(function (x) { return x !== null; });
        for (var g = 1; g < stamps.length; g++) if (stamps[g] > stamps[g - 1]) gaps.push(stamps[g] - stamps[g - 1]);
      });
      if (gaps.length >= PERSIST - 1) return median(gaps);
    }
    var times = [];
    log.series.forEach(function (ser) {
      if (ser.metric !== "iter_ms") return;
      ser.points.forEach(function (p) { if (isFinite(p.value) && p.value > 0) times.push(p.value); });
    });
    if (!times.length) return null;
    var stepGaps = [];
    ranks.forEach(function (ps) {
      var steps = ps.filter(function (p) { return p.step !== null; }).map(function (p) { return p.step; });
      for (var k = 1; k < steps.length; k++) if (steps[k] > steps[k - 1]) stepGaps.push(steps[k] - steps[k - 1]);
    });
    var perLine = stepGaps.length ? median(stepGaps) : 1;
    return median(times) / 1000 * perLine;
  }

  function when(t) {
    var time = t.point.time;
    var stamp = time === null ? null : time.absolute !== null ? time.absolute : time.yearless;
    return [stamp !== null ? stamp : Infinity, t.point.step !== null ? t.point.step : -1, t.fileIndex, t.point.line];
  }

  function compareTuples(a, b) {
    for (var i = 0; i < a.length; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }

  function merged(trends) {
    var kept = new Map();
    var ranks = new Map();
    var rise = new Map();
    trends.forEach(function (t, i) {
      var key = t.kind + "\u0000" + (t.kind === "slowdown" ? "" : t.metric.split("/")[0]);
      if (!kept.has(key)) kept.set(key, t);
      if (!ranks.has(key)) ranks.set(key, new Set());
      if (t.rank !== null) {
        ranks.get(key).add(t.rank);
        if (t.kind === "slowdown" && t.before && t.after) {
          if (!rise.has(key)) rise.set(key, []);
          rise.get(key).push([t.after / t.before, t.rank, -i]);
        }
      }
      t.ranks.forEach(function (r) { ranks.get(key).add(r); });
    });
    var out = [];
    kept.forEach(function (t, key) {
      var rank = t.rank;
      if (rise.has(key) && rise.get(key).length >= 2) {
        var ordered = rise.get(key).slice().sort(function (a, b) { return b[0] - a[0] || b[1] - a[1] || b[2] - a[2]; });
        if (ordered[0][0] >= SLOW_RATIO * ordered[1][0]) {
          t = trends[-ordered[0][2]];
          rank = ordered[0][1];
        } else {
          rank = null;
        }
      }
      var copy = Object.assign({}, t);
      copy.rank = rank;
      copy.ranks = Array.from(ranks.get(key)).sort(numeric);
      out.push(copy);
    });
    return out;
  }

  // trends.py's trends_of: lastLines are each log's [number, time] or null, in order.
  function trendsOf(logs, lastLines) {
    var found = [];
    logs.forEach(function (log, i) {
      log.series.forEach(function (s) {
        [nonfinite, collapse, slowdown].forEach(function (check) {
          var t = check(log, s);
          if (t !== null) found.push(t);
        });
        found = found.concat(lossTrends(log, s));
      });
      found = found.concat(stalls(log, lastLines[i]));
    });
    [oddOnesOutTrend(logs), noTimeoutOfTheirOwn(logs)].forEach(function (hang) {
      if (hang !== null) found.push(hang);
    });
    var named = { stacks: 0, watchdog: 1 };
    var keyed = found.map(function (t, i) {
      return [TREND_KINDS.indexOf(t.kind), t.metric in named ? named[t.metric] : 2, when(t), i, t];
    });
    keyed.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1] || compareTuples(a[2], b[2]) || a[3] - b[3]; });
    return merged(keyed.map(function (k) { return k[4]; }));
  }

  // --- trend_findings.py ---------------------------------------------------------------------

  function hitOfTrend(t) {
    var p = t.point;
    return E.hitOf({
      file: t.file, fileIndex: t.fileIndex, line: p.line, offset: p.offset, rank: t.rank,
      time: p.time, host: null, text: p.text, rankFromLauncher: false,
    });
  }

  function firstRankOf(t) {
    if (t.kind === "stall" && (t.metric === "steps" || t.metric === "stacks" || t.metric === "watchdog")) return t.ranks[0];
    if (t.ranks.length >= 2 && (t.kind === "non-finite" || t.kind === "slowdown")) return t.rank;
    if (t.kind === "slowdown" && t.metric.indexOf("rank_ms") === 0) return t.rank;
    return null;
  }

  function entryFor(index, t) {
    var ids = Object.keys(index.entries).sort();
    for (var i = 0; i < ids.length; i++) {
      if ((index.entries[ids[i]].progress || []).indexOf(t.kind) >= 0) return ids[i];
    }
    return null;
  }

  function yields(roots, t, index) {
    if (!roots.size) return true;
    if (t.entry === null || firstRankOf(t) === null) return false;
    var declared = index.entries[t.entry].collateral;
    return Array.from(roots).every(function (r) { return declared.indexOf(r) >= 0; });
  }

  function withTrends(diagnosis, trends, index) {
    diagnosis.trends = [];
    if (!trends.length) return diagnosis;
    var roots = new Set(diagnosis.findings.filter(function (f) { return f.role === "root-cause"; }).map(function (f) { return f.id; }));
    var strong = diagnosis.unrecognized.some(function (u) { return E.STRONG.has(u.kind); });
    trends.forEach(function (t) { t.entry = entryFor(index, t); });
    trends = trends.filter(function (t) { return t.metric !== "watchdog" || (!strong && yields(roots, t, index)); });
    if (!trends.length) return diagnosis;
    diagnosis.trends = trends;
    if (strong) return diagnosis;
    for (var i = 0; i < trends.length; i++) {
      var t = trends[i];
      if (t.entry === null || !yields(roots, t, index)) continue;
      var rank = firstRankOf(t);
      var hit = hitOfTrend(t);
      // The timeline by rank reads a finding's first lines as triage keeps them.
      var firstLines = new E.Earliest();
      firstLines.add(hit, hit);
      var ranks = t.ranks.length ? t.ranks.slice() : t.rank !== null ? [t.rank] : [];
      var root = {
        id: t.entry, entry: index.entries[t.entry], role: "root-cause", count: 1, ranks: ranks,
        rankCounts: [[hit.rank, 1]],
        first: hit, streams: [hit], firstLines: firstLines, contextLines: 0, causedBy: [], fromTrend: true,
      };
      var entryId = t.entry;
      diagnosis.findings = [root].concat(diagnosis.findings.filter(function (f) { return f.id !== entryId; }).map(function (f) {
        return roots.has(f.id) ? Object.assign({}, f, { role: "collateral", causedBy: [entryId] }) : f;
      }));
      diagnosis.unrecognized = [];
      if (rank !== null) {
        diagnosis.firstFailedRank = rank;
        diagnosis.firstFailure = Object.assign({}, hit, { rank: rank });
      }
      return diagnosis;
    }
    return diagnosis;
  }

  function trendsIn(readers, endings) {
    var lastLines = endings.map(function (e) {
      return e[2] === null ? null : [e[2][0], E.readLine(e[2][2]).time];
    });
    return trendsOf(readers.map(function (r) { return r.log; }), lastLines);
  }

  // --- trend_words.py -----------------------------------------------------------------------

  var BARS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
  var METRIC_WORDS = {
    loss: "the loss", eval_loss: "the evaluation loss", grad_norm: "the grad norm",
    loss_scale: "the fp16 loss scale", iter_ms: "the time per iteration", progress: "progress",
    steps: "progress", stacks: "the stack dumps", watchdog: "the NCCL watchdog", rank_ms: "a rank's own compute time (Megatron's timers)",
  };
  var KIND_TITLES = {
    "non-finite": "non-finite values", "loss-scale-collapse": "fp16 loss-scale collapse",
    stall: "progress stopped", divergence: "divergence", spike: "loss spike", slowdown: "slowdown",
  };

  function number(value) {
    if (value === null || value === undefined) return "?";
    if (Number.isNaN(value)) return "nan";
    if (!isFinite(value)) return value > 0 ? "inf" : "-inf";
    if (value === 0 || Math.abs(value) >= 1000) return String(Math.floor(value + 0.5));
    var digits = Math.max(0, 3 - Math.floor(Math.log10(Math.abs(value))));
    var scale = Math.pow(10, digits);
    var text = (Math.floor(value * scale + 0.5) / scale).toFixed(digits);
    return text.indexOf(".") >= 0 ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  }

  function atStep(t) { return t.point.step !== null ? " at step " + t.point.step : ""; }

  function trendSays(t) {
    var what = METRIC_WORDS[t.metric.split("/")[0]] || t.metric;
    if (t.kind === "non-finite") {
      var was = t.before !== null ? " (it was " + number(t.before) + " before)" : "";
      return what + " became " + number(t.after) + atStep(t) + was;
    }
    if (t.kind === "loss-scale-collapse") {
      return what + " fell from " + number(t.before) + " to " + number(t.after) + atStep(t);
    }
    if (t.kind === "spike") {
      var unit = t.point.step !== null ? "steps" : "progress lines";
      var back = t.recoveredAfter !== null ? "; back " + t.recoveredAfter + " " + unit + " later" : "; not back by the end of the log";
      return what + " jumped from about " + number(t.before) + " to " + number(t.after) + atStep(t) + back;
    }
    if (t.kind === "divergence") {
      return what + " climbed from about " + number(t.before) + " to " + number(t.after) + atStep(t) + " and stayed up";
    }
    if (t.kind === "slowdown") {
      var rise = Math.floor(100 * ((t.after || 0) / (t.before || 1) - 1) + 0.5);
      var who = t.rank !== null && t.ranks.length >= 2 ? " on rank " + t.rank : "";
      return what + " rose from " + number(t.before) + " ms to " + number(t.after) + " ms (+" + rise + "%)" + atStep(t) + who + ", and stayed up";
    }
    if (t.metric === "stacks") return stacksSay(t);
    if (t.metric === "watchdog") {
      var quiet = t.groups[0][1];
      var one = quiet.length === 1;
      return rankList(quiet) + " printed no watchdog timeout of " + (one ? "its" : "their") + " own while " +
        rankList(t.groups[1][1]) + " " + t.groups[1][0] + ": the collective waited for " + (one ? "it" : "them");
    }
    if (t.metric === "steps") {
      return "rank " + t.rank + " stopped at step " + number(t.before) + " while the other ranks went on to step " + number(t.after);
    }
    return "progress stopped" + atStep(t) + ": the log goes on " + number(t.after) + " s after the last progress line (they came every " + number(t.before) + " s)";
  }

  function rankList(ranks) {
    return (ranks.length === 1 ? "rank " : "ranks ") + ranks.join(", ");
  }

  function stacksSay(t) {
    var first = t.groups[0];
    var said = rankList(first[1]) + (first[1].length === 1 ? " waits" : " wait") + " in " + first[0];
    var rest = t.groups.slice(1);
    if (rest.length) {
      said += "; the others wait for it: " + rest.map(function (g) { return rankList(g[1]) + " in " + g[0]; }).join("; ");
    }
    return said;
  }

  function sparkline(t) {
    var finite = t.series.map(function (sv) { return sv[1]; }).filter(isFinite);
    if (!finite.length) return "";
    var lo = Math.min.apply(null, finite);
    var hi = Math.max.apply(null, finite);
    var span = hi - lo;
    return t.series.map(function (sv) {
      var v = sv[1];
      if (!isFinite(v)) return "\u00d7";
      var k = span === 0 ? 0 : Math.min(7, Math.floor((v - lo) / span * 8));
      return BARS[k];
    }).join("");
  }

  function jsonNumber(value) {
    if (value === null || isFinite(value)) return value;
    return number(value);
  }

  function trendData(t) {
    var p = t.point;
    var out = {
      kind: t.kind, entry: t.entry, metric: t.metric.split("/")[0], says: trendSays(t), file: t.file,
      line: p.line, rank: t.rank, ranks: t.ranks.slice(), step: p.step, time: p.time ? p.time.text : null,
      text: p.text, before: jsonNumber(t.before), after: jsonNumber(t.after),
      recovered_after: t.recoveredAfter,
      series: t.series.map(function (sv) { return [sv[0], jsonNumber(sv[1])]; }),
    };
    if (t.groups.length) out.stacks = t.groups.map(function (g) { return { where: g[0], ranks: g[1].slice() }; });
    return out;
  }

  E.readProgress = readProgress;
  E.ProgressReader = ProgressReader;
  E.trendsOf = trendsOf;
  E.trendsIn = trendsIn;
  E.withTrends = withTrends;
  E.trendSays = trendSays;
  E.trendData = trendData;
  E.sparkline = sparkline;
  E.KIND_TITLES = KIND_TITLES;
  E.trendNumber = number;
})(typeof self !== "undefined" ? self : globalThis);
