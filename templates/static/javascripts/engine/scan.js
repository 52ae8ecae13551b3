// The scanner: stream a log in blocks, find the lines that match signatures, and say where.
// A port of generator/diagnose/scan.py that works on the same bytes with the same rules:
//
// - a log is read in blocks of CHUNK_BYTES that end on a line break; it is never held whole;
// - a line ends at LF or at a lone CR (CRLF is one break); line numbers count LF;
// - only the first max_line_bytes bytes of a line are matched (the rest is counted), and ANSI
//   escape sequences (ESC [ ... final byte) among them are removed;
// - bytes are decoded as UTF-8 with U+FFFD for anything invalid (TextDecoder, BOM kept);
// - a line with no time or host of its own takes the latest one printed before it by the same
//   stream (same file, same rank prefix), at most LOOKBACK_LINES lines and LOOKBACK_BYTES back.
//
// Every signature's anchor (its longest literal) is found in a block with one Aho-Corasick
// pass over the bytes; only lines that hold an anchor are decoded and matched. The same pass
// looks for the launcher and evidence literals (launcher.js, evidence.js); such lines are passed
// on even when no signature matches, a traceback's final line is found by walking forward from
// `Traceback (most recent call last):` through the stream's frames (across blocks), and a
// launcher summary's field lines take the rank of the `rank :` line just before them.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var CHUNK_BYTES = 4 << 20;
  var LOOKBACK_BYTES = 64 << 10;
  var LOOKBACK_LINES = 64;
  var TRACEBACK_LINES = 400;
  var SUMMARY_BYTES = 2048;
  var EXTRA_ANCHORS = [];
  E.LAUNCHER_ANCHORS.concat(E.EVIDENCE_ANCHORS).forEach(function (a) {
    if (EXTRA_ANCHORS.indexOf(a) < 0) EXTRA_ANCHORS.push(a);
  });
  var BINARY_SAMPLE = 8192;
  var BINARY_RATIO = 0.3;
  var LF = 10;
  var CR = 13;
  var ESC = 27;

  var decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  function decode(bytes) {
    return decoder.decode(bytes);
  }

  function LogReadError(message) {
    var error = new Error(message);
    error.name = "LogReadError";
    return error;
  }

  function concat(a, b) {
    if (!a.length) return b;
    if (!b.length) return a;
    var out = new Uint8Array(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return out;
  }

  // Index of `byte` in buf[lo:hi], or -1 (Python's bytes.find with bounds).
  function find(buf, byte, lo, hi) {
    if (hi > buf.length) hi = buf.length;
    if (lo >= hi) return -1;
    var at = buf.subarray(lo, hi).indexOf(byte);
    return at >= 0 ? lo + at : -1;
  }

  // Last index of `byte` in buf[lo:hi], or -1 (Python's bytes.rfind with bounds).
  function rfind(buf, byte, lo, hi) {
    if (hi > buf.length) hi = buf.length;
    if (lo < 0) lo = 0;
    if (lo >= hi) return -1;
    var at = buf.lastIndexOf(byte, hi - 1);
    return at >= lo ? at : -1;
  }

  function lineEnd(buf, start, hasCr) {
    var end = buf.indexOf(LF, start);
    if (end < 0) end = buf.length;
    if (hasCr) {
      var cr = find(buf, CR, start, end);
      if (cr >= 0) end = cr;
    }
    return end;
  }

  function lineStart(buf, before, floor, hasCr) {
    var start = rfind(buf, LF, floor, before) + 1;
    if (hasCr) start = Math.max(start, rfind(buf, CR, floor, before) + 1);
    return Math.max(start, floor);
  }

  function firstBreak(data) {
    var lf = data.indexOf(LF);
    var cr = data.indexOf(CR);
    if (lf < 0 || (cr >= 0 && cr < lf)) return cr;
    return lf;
  }

  // ANSI CSI sequences removed in one left-to-right pass, as re.sub(rb"\x1b\[[0-?]*[ -/]*[@-~]").
  function stripCsi(block) {
    var first = block.indexOf(ESC);
    if (first < 0) return block;
    var out = new Uint8Array(block.length);
    out.set(block.subarray(0, first), 0);
    var n = first;
    var i = first;
    var size = block.length;
    while (i < size) {
      var b = block[i];
      if (b === ESC && i + 1 < size && block[i + 1] === 0x5b) {
        var j = i + 2;
        while (j < size && block[j] >= 0x30 && block[j] <= 0x3f) j++;
        while (j < size && block[j] >= 0x20 && block[j] <= 0x2f) j++;
        if (j < size && block[j] >= 0x40 && block[j] <= 0x7e) {
          i = j + 1;
          continue;
        }
      }
      out[n++] = b;
      i++;
    }
    return out.subarray(0, n);
  }

  // The block with every line cut to its first `cap` bytes; how many lines were longer, and
  // their bytes past the cap.
  function cutLongLines(block, cap, hasCr) {
    var count = 0;
    var skipped = 0;
    var pos = 0;
    var size = block.length;
    var kept = [];
    var keptTo = 0;
    while (pos + cap < size) {
      var brk = rfind(block, LF, pos, pos + cap + 1);
      if (hasCr) brk = Math.max(brk, rfind(block, CR, pos, pos + cap + 1));
      if (brk >= 0) {
        pos = brk + 1;
        continue;
      }
      var end = lineEnd(block, pos, hasCr);
      count += 1;
      skipped += end - pos - cap;
      kept.push(block.subarray(keptTo, pos + cap));
      keptTo = end;
      pos = end + 1;
    }
    if (!count) return [block, 0, 0];
    kept.push(block.subarray(keptTo));
    var total = 0;
    kept.forEach(function (part) { total += part.length; });
    var out = new Uint8Array(total);
    var at = 0;
    kept.forEach(function (part) {
      out.set(part, at);
      at += part.length;
    });
    return [out, count, skipped];
  }

  var ODD_CONTROLS = new Uint8Array(256);
  for (var c = 0; c < 32; c++) {
    if ([9, 10, 11, 12, 13, 8, 27].indexOf(c) < 0) ODD_CONTROLS[c] = 1;
  }
  ODD_CONTROLS[0x7f] = 1;

  // Why the first bytes of a log show that it is not text, or null when it looks like text.
  // "LE" or "BE" for text saved as UTF-16 without a BOM: a NUL in every other byte of the
  // first characters (the high byte of ASCII) and none in the bytes between; else null.
  function utf16Order(sample) {
    var n = Math.min(sample.length, 64) & ~1;
    if (n < 4) return null;
    var le = true;
    var be = true;
    for (var i = 0; i < n; i += 2) {
      if (sample[i] === 0 || sample[i + 1] !== 0) le = false;
      if (sample[i] !== 0 || sample[i + 1] === 0) be = false;
    }
    return le ? "LE" : be ? "BE" : null;
  }

  function binaryReason(sample) {
    if (sample.length >= 2 && ((sample[0] === 0xff && sample[1] === 0xfe) || (sample[0] === 0xfe && sample[1] === 0xff))) {
      return "is UTF-16 text; convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)";
    }
    var order = utf16Order(sample);
    if (order !== null) {
      return "is UTF-16 text without a BOM; convert it to UTF-8 first (iconv -f UTF-16" + order + " -t UTF-8)";
    }
    if (!sample.length) return null;
    var controls = 0;
    var encoded = 0;
    for (var i = 0; i < sample.length; i++) {
      if (ODD_CONTROLS[sample[i]]) controls++;
      if (sample[i] === 0xef && sample[i + 1] === 0xbf && sample[i + 2] === 0xbd) {
        encoded++;
        i += 2;
      }
    }
    var text = decode(sample);
    var replaced = 0;
    var length = 0;
    for (var k = 0; k < text.length; k++) {
      var u = text.charCodeAt(k);
      if (u === 0xfffd) replaced++;
      if (u >= 0xd800 && u < 0xdc00) k++; // a pair is one character
      length++;
    }
    if ((controls + replaced - encoded) / length > BINARY_RATIO) {
      return "does not look like a text log (binary data)";
    }
    return null;
  }

  // Aho-Corasick over bytes: every (anchor, end) occurrence in a block, in one pass.
  function Prefilter(anchors) {
    var encoder = new TextEncoder();
    var patterns = anchors.map(function (a) { return encoder.encode(a); });
    this.lengths = patterns.map(function (p) { return p.length; });
    var classOf = new Uint8Array(256);
    var classes = 1;
    patterns.forEach(function (p) {
      for (var i = 0; i < p.length; i++) if (!classOf[p[i]]) classOf[p[i]] = classes++;
    });
    var trie = [new Map()];
    var outputs = [[]];
    patterns.forEach(function (p, number) {
      var s = 0;
      for (var i = 0; i < p.length; i++) {
        var k = classOf[p[i]];
        var next = trie[s].get(k);
        if (next === undefined) {
          next = trie.length;
          trie.push(new Map());
          outputs.push([]);
          trie[s].set(k, next);
        }
        s = next;
      }
      outputs[s].push(number);
    });
    var states = trie.length;
    var width = classes;
    var delta = new Int32Array(states * width);
    var fail = new Int32Array(states);
    var queue = [];
    trie[0].forEach(function (next, k) {
      delta[k] = next * width;
      queue.push(next);
    });
    for (var q = 0; q < queue.length; q++) {
      var s = queue[q];
      outputs[s] = outputs[s].concat(outputs[fail[s]]);
      for (var k = 0; k < width; k++) {
        var next = trie[s].get(k);
        if (next !== undefined) {
          fail[next] = delta[fail[s] * width + k] / width;
          delta[s * width + k] = next * width;
          queue.push(next);
        } else {
          delta[s * width + k] = delta[fail[s] * width + k];
        }
      }
    }
    // A transition into a state where anchors end is stored negated (-offset - 1), so the scan
    // loop tells it with a sign test instead of a second table.
    var lists = new Array(states * width);
    for (var t = 0; t < states; t++) {
      if (outputs[t].length) lists[t * width] = outputs[t];
    }
    for (var d = 0; d < delta.length; d++) {
      if (lists[delta[d]] !== undefined) delta[d] = -delta[d] - 1;
    }
    this.classOf = classOf;
    this.delta = delta;
    this.lists = lists;
    this.empty = patterns.length === 0;
  }

  // Every (anchor number, end offset) in the block, in order of end offset.
  Prefilter.prototype.scan = function (block) {
    var found = [];
    if (this.empty) return found;
    var classOf = this.classOf;
    var delta = this.delta;
    var s = 0;
    for (var i = 0, n = block.length; i < n; i++) {
      s = delta[s + classOf[block[i]]];
      if (s < 0) {
        s = -s - 1;
        var list = this.lists[s];
        for (var j = 0; j < list.length; j++) found.push(list[j], i + 1);
      }
    }
    return found;
  };

  function FileState(name, fileIndex, fileRank) {
    this.name = name;
    this.fileIndex = fileIndex;
    this.fileRank = fileRank;
    this.memos = new Map(); // stream (rank prefix or null) -> {offset, time, host}
    this.prevTail = new Uint8Array(0);
    this.tracebacks = new Map(); // stream -> lines left to look through for the final line
    this.summary = null; // [offset, rank, inside Root Cause] of a launcher's last `rank :` line
    this.rootNext = false;
  }

  function Scanner(index) {
    this.index = index;
    this.cap = index.maxLineBytes;
    this.firstExtra = index.anchors.length;
    this.tracebackAnchor = this.firstExtra + EXTRA_ANCHORS.indexOf(E.TRACEBACK);
    this.prefilter = new Prefilter(index.anchors.concat(EXTRA_ANCHORS));
  }

  // Scan one log. `read(n)` returns a promise of up to n bytes (exactly n unless the log ends;
  // an empty array at the end) and may reject with a LogReadError after the bytes before the
  // failure were returned. Each matching line is passed to onMatch, in order. Problems are
  // appended to `problems`, never thrown.
  Scanner.prototype.scan = async function (read, name, fileIndex, stats, problems, options) {
    options = options || {};
    var onMatch = options.onMatch || function () {};
    var state = new FileState(name, fileIndex, options.fileRank === undefined ? null : options.fileRank);
    var cap = this.cap;
    var carry = new Uint8Array(0);
    var skipping = false;
    var first = true;
    var endsWithBreak = true;
    var lineBase = 1;
    var offsetBase = 0;
    var error = null;
    for (;;) {
      var data;
      try {
        data = await read(CHUNK_BYTES);
      } catch (exc) {
        data = new Uint8Array(0);
        error = exc;
      }
      var final = !data.length;
      var block;
      if (data.length) {
        if (first) {
          first = false;
          var why = binaryReason(data.subarray(0, BINARY_SAMPLE));
          if (why !== null) {
            problems.push({ file: name, message: why, kind: "binary" });
            return;
          }
        }
        stats.bytes += data.length;
        endsWithBreak = data[data.length - 1] === LF;
        if (options.tick) options.tick(stats);
        if (skipping) {
          var brk = firstBreak(data);
          if (brk < 0) {
            stats.skippedBytes += data.length;
            continue;
          }
          stats.skippedBytes += brk;
          data = data.subarray(brk);
          skipping = false;
        }
        var last = Math.max(data.lastIndexOf(LF), data.lastIndexOf(CR));
        block = null;
        if (last < 0) {
          carry = concat(carry, data);
        } else {
          block = concat(carry, data.subarray(0, last + 1));
          carry = data.slice(last + 1);
        }
        if (carry.length > cap) {
          stats.longLines += 1;
          stats.skippedBytes += carry.length - cap;
          carry = carry.slice(0, cap);
          skipping = true;
        }
        if (block === null) continue;
      } else {
        block = carry;
        carry = new Uint8Array(0);
      }
      offsetBase += this.block(block, lineBase, offsetBase, state, stats, onMatch);
      var breaks = 0;
      for (var at = block.indexOf(LF); at >= 0; at = block.indexOf(LF, at + 1)) breaks++;
      stats.lines += breaks;
      lineBase += breaks;
      if (final) break;
    }
    stats.files += 1;
    if (!first && !endsWithBreak) stats.lines += 1;
    if (error !== null) {
      problems.push({ file: name, message: error && error.message ? error.message : String(error), kind: "read" });
    }
  };

  // The matches of one block; returns its length once escape sequences are removed.
  Scanner.prototype.block = function (block, lineBase, offsetBase, state, stats, onMatch) {
    var cap = this.cap;
    var hasCr = block.indexOf(CR) >= 0;
    // Lines are cut to their first `cap` bytes as they are in the file, and only then are
    // escape sequences removed (as scan.py does, so the block size never changes a result).
    var cut = cutLongLines(block, cap, hasCr);
    stats.longLines += cut[1];
    stats.skippedBytes += cut[2];
    block = stripCsi(cut[0]);
    var found = this.prefilter.scan(block);
    var index = this.index;
    var lines = [];
    if (found.length) {
      var lengths = this.prefilter.lengths;
      // Hits come in order of end offset, so their line starts never go back: one forward
      // walk over the breaks finds every line start and line number.
      var line = lineBase;
      var lastBreak = -1;
      var nextLf = block.indexOf(LF);
      var nextCr = hasCr ? block.indexOf(CR) : -1;
      var current = -1;
      var anchors = null;
      for (var h = 0; h < found.length; h += 2) {
        var anchorStart = found[h + 1] - lengths[found[h]];
        while (nextLf >= 0 && nextLf < anchorStart) {
          line++;
          if (nextLf > lastBreak) lastBreak = nextLf;
          nextLf = block.indexOf(LF, nextLf + 1);
        }
        while (nextCr >= 0 && nextCr < anchorStart) {
          if (nextCr > lastBreak) lastBreak = nextCr;
          nextCr = block.indexOf(CR, nextCr + 1);
        }
        var start = lastBreak + 1;
        if (start !== current) {
          current = start;
          anchors = new Set();
          lines.push([start, line, anchors]);
        }
        anchors.add(found[h]);
      }
    }
    var exceptions = this.exceptionLines(block, lines, lineBase, state, hasCr);
    if (lines.length) {
      var firstExtra = this.firstExtra;
      for (var k = 0; k < lines.length; k++) {
        var lineStartAt = lines[k][0];
        var end = Math.min(lineEnd(block, lineStartAt, hasCr), lineStartAt + cap);
        var text = decode(block.subarray(lineStartAt, end));
        var numbers = [];
        var extra = exceptions.has(lineStartAt);
        lines[k][2].forEach(function (anchorNumber) {
          if (anchorNumber >= firstExtra) {
            extra = true;
            return;
          }
          var candidates = index.byAnchor[anchorNumber];
          for (var j = 0; j < candidates.length; j++) {
            if (index.signatures[candidates[j]].matcher.search(text)) numbers.push(candidates[j]);
          }
        });
        if (numbers.length || extra) {
          numbers.sort(function (a, b) { return a - b; });
          var match = this.match(block, lineStartAt, offsetBase, lines[k][1], text, numbers, state, extra, exceptions);
          if (match !== null) onMatch(match);
        }
      }
    }
    // The last LOOKBACK_BYTES before the next block, however small the blocks are.
    var joined = block.length < LOOKBACK_BYTES ? concat(state.prevTail, block) : block;
    state.prevTail = joined.slice(Math.max(0, joined.length - LOOKBACK_BYTES));
    return block.length;
  };

  // The final lines of the tracebacks this block holds or continues, added to `lines` (kept in
  // order of start) with their line numbers: scan.py's _exception_lines.
  Scanner.prototype.exceptionLines = function (block, lines, lineBase, state, hasCr) {
    var found = new Set();
    var walks = [];
    state.tracebacks.forEach(function (left, stream) { walks.push([0, stream, left, lineBase]); });
    state.tracebacks = new Map();
    var tracebackAnchor = this.tracebackAnchor;
    lines.forEach(function (entry) {
      if (!entry[2].has(tracebackAnchor)) return;
      var start = entry[0];
      var end = lineEnd(block, start, hasCr);
      var head = decode(block.subarray(start, Math.min(end, start + E.HEAD_CHARS)));
      var read = E.readLineBody(head);
      if (E.bodyOf(read[1]).startsWith(E.TRACEBACK)) {
        walks.push([end + 1, read[0].prefixRank, TRACEBACK_LINES, entry[1] + (block[end] === LF ? 1 : 0)]);
      }
    });
    walks.sort(function (a, b) { return a[0] - b[0]; });
    var waiting = new Set();
    var added = [];
    var size = block.length;
    for (var w = 0; w < walks.length; w++) {
      var pos = walks[w][0];
      var stream = walks[w][1];
      var left = walks[w][2];
      var line = walks[w][3];
      if (waiting.has(stream)) continue;
      while (left > 0 && pos < size) {
        var end = lineEnd(block, pos, hasCr);
        var head = decode(block.subarray(pos, Math.min(end, pos + E.HEAD_CHARS)));
        var lineStartAt = pos;
        var lineNumber = line;
        pos = end + 1;
        if (block[end] === LF) line++;
        var read = E.readLineBody(head);
        if (read[0].prefixRank !== stream) continue;
        left -= 1;
        var body = E.bodyOf(read[1]);
        if (!E.pyStrip(body) || E.isFrame(body)) continue;
        if (body.startsWith(E.TRACEBACK)) continue; // a traceback printed inside another
        if (E.isExceptionLine(body) && !found.has(lineStartAt)) {
          found.add(lineStartAt);
          added.push([lineStartAt, lineNumber]);
        }
        left = 0;
      }
      if (left > 0) {
        // The block ended inside the traceback: go on at the start of the next one.
        state.tracebacks.set(stream, left);
        waiting.add(stream);
      }
    }
    if (added.length) {
      var known = new Set(lines.map(function (entry) { return entry[0]; }));
      added.forEach(function (a) {
        if (!known.has(a[0])) lines.push([a[0], a[1], new Set()]);
      });
      lines.sort(function (a, b) { return a[0] - b[0]; });
    }
    return found;
  };

  Scanner.prototype.match = function (block, start, offsetBase, line, text, numbers, state, extra, exceptions) {
    var read = E.readLineBody(text);
    var info = read[0];
    var kind = null;
    var launch = null;
    var launchRank = null;
    if (extra) {
      var body = E.bodyOf(read[1]);
      launch = E.readLaunch(body);
      if (launch !== null) {
        launchRank = summaryRank(launch, offsetBase + start, state);
        if ((launch.summary === "rank" || launch.summary === "field") && launchRank !== null) {
          launch.rank = launchRank;
          launch.root = state.summary !== null && state.summary[2];
        }
      }
      if (exceptions.has(start)) kind = "python-exception";
      else kind = E.classify(body, launch !== null && launch.signal !== null);
      if (launch !== null && (launch.summary === "root-header" || launch.summary === "other-header")) launch = null;
      if (!numbers.length && kind === null && (launch === null || !launch.failed)) return null;
    }
    var stream = info.prefixRank;
    var time = info.time;
    var host = info.host;
    var memo = state.memos.get(stream);
    var signatures = this.index.signatures;
    var supporting = numbers.length > 0 && kind === null && launch === null &&
      numbers.every(function (n) { return signatures[n].role === "context"; });
    if (supporting) {
      // A line that only supports a finding is counted, never reported: no time or host is
      // looked for, and it is no stream's last match (scan.py's _match).
      time = null;
      host = null;
    } else if (time === null || host === null) {
      var found = this.lookBack(block, start, offsetBase, stream, state);
      time = time || found[0];
      host = host || found[1];
      if (host === null && memo !== undefined) host = memo.host; // a stream's host does not change
    }
    var offset = offsetBase + start;
    if (!supporting) state.memos.set(stream, { offset: offset, time: time, host: host });
    var rank = null;
    var order = [info.prefixRank, launchRank, state.fileRank, info.textRank];
    for (var i = 0; i < order.length; i++) {
      if (order[i] !== null) {
        rank = order[i];
        break;
      }
    }
    return {
      file: state.name,
      fileIndex: state.fileIndex,
      line: line,
      offset: offset,
      text: E.unwrap(text).text,
      signatures: numbers,
      rank: rank,
      stream: stream,
      time: time,
      host: host,
      evidence: kind,
      launch: launch,
      rankFromLauncher: info.prefixRank === null && launchRank !== null,
    };
  };

  // The rank a launcher line names, or inherits from its summary block's `rank :` line; headers
  // only mark which block the next `rank :` line opens (scan.py's _summary_rank).
  function summaryRank(launch, offset, state) {
    if (launch.summary === "root-header") {
      state.rootNext = true;
      return null;
    }
    if (launch.summary === "other-header") {
      state.rootNext = false;
      return null;
    }
    if (launch.summary === "rank" && launch.rank !== null) {
      state.summary = [offset, launch.rank, state.rootNext];
      state.rootNext = false;
      return launch.rank;
    }
    if (launch.summary === "field") {
      if (state.summary !== null && offset - state.summary[0] <= SUMMARY_BYTES) return state.summary[1];
      return null;
    }
    return launch.rank;
  }

  // The latest time and host printed before `start` by the same stream, if close.
  Scanner.prototype.lookBack = function (block, start, offsetBase, stream, state) {
    var window;
    var windowOffset;
    if (start < LOOKBACK_BYTES && state.prevTail.length) {
      var keep = LOOKBACK_BYTES - start;
      var tail = state.prevTail.subarray(Math.max(0, state.prevTail.length - keep));
      window = concat(tail, block.subarray(0, start));
      windowOffset = offsetBase - Math.min(keep, state.prevTail.length);
    } else {
      window = block;
      windowOffset = offsetBase;
    }
    var pos = start + offsetBase - windowOffset;
    var floor = Math.max(0, pos - LOOKBACK_BYTES);
    var hasCr = find(window, CR, floor, pos) >= 0;
    var memo = state.memos.get(stream);
    var time = null;
    var host = null;
    var lines = 0;
    while (lines < LOOKBACK_LINES && pos > floor) {
      var ls = lineStart(window, pos - 1, floor, hasCr);
      if (memo !== undefined && windowOffset + ls <= memo.offset) {
        // Every line since the stream's last match was read: inherit from it.
        return [time || memo.time, host || memo.host];
      }
      var head = window.subarray(ls, Math.max(ls, Math.min(pos - 1, ls + E.HEAD_CHARS)));
      pos = ls;
      if (!head.length) continue;
      lines += 1;
      var info = E.readLine(decode(head));
      if (info.prefixRank !== stream) continue;
      time = time || info.time;
      host = host || info.host;
      if (time !== null && host !== null) break;
    }
    return [time, host];
  };

  E.CHUNK_BYTES = CHUNK_BYTES;
  E.LOOKBACK_BYTES = LOOKBACK_BYTES;
  E.LogReadError = LogReadError;
  E.decode = decode;
  E.stripCsi = stripCsi;
  E.binaryReason = binaryReason;
  E.Prefilter = Prefilter;
  E.Scanner = Scanner;
  E.setChunkBytes = function (n) { CHUNK_BYTES = n; E.CHUNK_BYTES = n; };
  E.newStats = function () {
    return { files: 0, bytes: 0, lines: 0, longLines: 0, skippedBytes: 0 };
  };
})(typeof self !== "undefined" ? self : globalThis);
