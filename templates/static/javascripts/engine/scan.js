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
  var CACHED_LINES = 4096; // distinct lines whose reading is kept (Scanner.lines), at most
  var CACHED_LINE_BYTES = 1024; // and only lines this short
  // When a full cache is emptied having answered fewer than CACHED_LINES / 8 look-ups, the next
  // UNCACHED_LINES lines are read without it (Scanner.uncached).
  var UNCACHED_LINES = 3 * 4096;
  var CACHED_HEADS = 1 << 16; // lines a block's look-backs keep (FileState.heads), at most
  var CACHED_STREAMS = 1 << 16; // streams whose last match a file keeps (setMemo), at most
  var SWEEP_GAP = 8; // lines between two matches that a Sweep reads rather than begin anew
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
  // One character per byte, every byte its own (WHATWG's windows-1252 maps each of the 256 to a
  // distinct code point): a line's bytes as a Map key.
  var bytesKey = new TextDecoder("windows-1252");
  // Text that is not all ASCII: the line's bytes were not (an invalid byte decodes to U+FFFD).
  var NON_ASCII = /[^\x00-\x7f]/;
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
    // stream (rank prefix or null) -> {offset, time, host} of its last resolved match, at most
    // CACHED_STREAMS of them, the least recently matched stream dropped first (setMemo).
    this.memos = new Map();
    this.prevTail = new Uint8Array(0);
    this.tracebacks = new Map(); // stream -> lines left to look through for the final line
    this.summary = null; // [offset, rank, inside Root Cause] of a launcher's last `rank :` line
    this.rootNext = false;
    // Lines the look-backs of the current block read: stream place after the line's break ->
    // [place of its start, what it says, or null for an empty line] (scan.py's heads).
    this.heads = new Map();
    // The lines of the current block that were read whole (at most HEAD_CHARS bytes, not cut):
    // stream place of the start -> [place of the break, what it says]. A look-back that walks
    // onto one takes what it says instead of decoding it again (the same bytes, the same head).
    this.readLines = new Map();
    this.window = null; // the look-backs' window at the start of the block (lookBack)
    this.sweep = null; // the current block's lines read forward, when matches are close (Sweep)
  }

  // How many times `byte` stands in buf[lo:hi], counted up to `limit` + 1 at most.
  function countUpTo(buf, byte, lo, hi, limit) {
    var n = 0;
    for (var at = buf.indexOf(byte, lo); at >= 0 && at < hi; at = buf.indexOf(byte, at + 1)) {
      if (++n > limit) break;
    }
    return n;
  }

  // The lines of a block read forward, in order, while its matches come thick (scan.py's
  // _Sweep, rule for rule). A look-back walks up to LOOKBACK_LINES lines back from a match;
  // when matches stand close together (a storm: every rank prints its watchdog line), each walk
  // covers the lines the walks before it covered. So once matches are close, the lines between
  // them are read once, forward, and what a walk would find is kept per stream: the latest line
  // with a time and the latest with a host, by their count among the block's non-empty lines.
  // A walk's answer is then a look-up (`answer`), exactly the walk's, and when the kept lines do
  // not cover the whole of a walk (a segment just begun, a window reaching back past the block
  // or the byte limit), the walk itself runs. A gap of more than SWEEP_GAP lines starts a new
  // segment, so a log of few matches never reads a line its walks would not.
  function Sweep(block, offsetBase, hasCr, heads) {
    this.block = block;
    this.heads = heads; // the walks' lines (FileState.heads)
    this.offsetBase = offsetBase;
    this.hasCr = hasCr;
    this.pos = -1; // where the next unread line of the segment starts; -1: no segment
    this.begin = 0; // where the segment starts
    this.count = 0; // its non-empty lines read so far
    this.recent = new Array(LOOKBACK_LINES); // the starts of the last of them, a ring
    this.noted = 0; // starts put in the ring since the segment began
    this.times = new Map(); // stream -> [count of its latest line with a time, the time]
    this.hosts = new Map(); // stream -> [count of its latest line with a host, the host]
    this.matches = new Map(); // stream -> [stream offset, count] of its last match in the segment
  }

  // Read the lines up to the one at `start`, or begin a new segment there.
  Sweep.prototype.reach = function (start) {
    if (this.pos < 0 || start < this.pos) {
      this.restart(start);
      return;
    }
    var gap = countUpTo(this.block, LF, this.pos, start, SWEEP_GAP);
    if (this.hasCr && gap <= SWEEP_GAP) gap += countUpTo(this.block, CR, this.pos, start, SWEEP_GAP);
    if (gap > SWEEP_GAP) {
      this.restart(start);
      return;
    }
    this.readTo(start);
  };

  Sweep.prototype.restart = function (start) {
    this.pos = this.begin = start;
    this.count = 0;
    this.noted = 0;
    this.times.clear();
    this.hosts.clear();
    this.matches.clear();
  };

  Sweep.prototype.readTo = function (to) {
    var block = this.block;
    var pos = this.pos;
    while (pos < to) {
      var end = block.indexOf(LF, pos);
      if (end < 0 || end > to) end = to;
      if (this.hasCr) {
        var cr = find(block, CR, pos, end);
        if (cr >= 0) end = cr;
      }
      if (end > pos) {
        // Shared with the walks, which read the same lines the same way.
        var key = this.offsetBase + end + 1;
        var known = this.heads.get(key);
        var info;
        if (known !== undefined && known[1] !== null) {
          info = known[1];
        } else {
          info = E.readLine(decode(block.subarray(pos, Math.min(end, pos + E.HEAD_CHARS))));
          if (this.heads.size < CACHED_HEADS) this.heads.set(key, [this.offsetBase + pos, info]);
        }
        this.note(pos, info);
      }
      pos = end + 1;
    }
    // Lines end at a break: a `to` that is not a line's start ends the segment.
    this.pos = pos === to ? pos : -1;
  };

  Sweep.prototype.note = function (start, info) {
    var ordinal = this.count++;
    this.recent[this.noted++ % LOOKBACK_LINES] = start;
    if (info.time !== null) this.times.set(info.prefixRank, [ordinal, info.time]);
    if (info.host !== null) this.hosts.set(info.prefixRank, [ordinal, info.host]);
  };

  // Read the matched line at `start` (its text ends at `end`), which stands `repeat` times in a
  // row, `size` bytes apart, and note the stream's last match when it is there. `info` is what
  // the line's head says, when the caller knows it already (or null; given only for a line
  // read whole, so that `end` is where its break stands).
  Sweep.prototype.take = function (start, end, size, repeat, stream, state, info) {
    if (this.pos !== start) return;
    var block = this.block;
    if (repeat <= 1 && info !== null && end > start) {
      var stop = end;
      this.note(start, info);
      if (this.heads.size < CACHED_HEADS) this.heads.set(this.offsetBase + stop + 1, [this.offsetBase + start, info]);
      this.pos = stop + 1;
    } else if (repeat <= 1 || end === start) {
      this.readTo(lineEnd(block, start, this.hasCr) + 1);
    } else {
      // Copies read alike: note the last LOOKBACK_LINES of them, count the rest.
      if (info === null) info = E.readLine(decode(block.subarray(start, Math.min(end, start + E.HEAD_CHARS))));
      var skip = Math.max(0, repeat - LOOKBACK_LINES);
      this.count += skip;
      for (var j = skip; j < repeat; j++) this.note(start + j * size, info);
      this.pos = start + repeat * size;
    }
    var memo = state.memos.get(stream);
    var last = this.offsetBase + start + (Math.max(repeat, 1) - 1) * size;
    if (memo !== undefined && memo.offset === last) this.matches.set(stream, [last, this.count - 1]);
  };

  // What the look-back from the line at `start` finds, [time, host], or null to walk.
  Sweep.prototype.answer = function (start, stream, memo) {
    if (this.pos !== start) return null;
    var n = this.count;
    var floor = start - LOOKBACK_BYTES;
    var seenTime = this.times.get(stream);
    var seenHost = this.hosts.get(stream);
    var time;
    var host;
    if (memo !== undefined && memo.offset >= this.offsetBase + this.begin) {
      var known = this.matches.get(stream);
      if (known === undefined || known[0] !== memo.offset) return null;
      var m = known[1];
      if (m >= n - LOOKBACK_LINES) {
        if (memo.offset - this.offsetBase < floor) return null;
        time = seenTime !== undefined && seenTime[0] > m ? seenTime[1] : null;
        host = seenHost !== undefined && seenHost[0] > m ? seenHost[1] : null;
        return [time || memo.time, host || memo.host];
      }
    }
    var oldest = this.recent[this.noted < LOOKBACK_LINES ? 0 : this.noted % LOOKBACK_LINES];
    if (n < LOOKBACK_LINES || oldest <= floor) return null; // the walk stops at a line the floor cuts
    var low = n - LOOKBACK_LINES;
    time = seenTime !== undefined && seenTime[0] >= low ? seenTime[1] : null;
    host = seenHost !== undefined && seenHost[0] >= low ? seenHost[1] : null;
    return [time, host];
  };

  // A stream's last resolved match, for at most CACHED_STREAMS streams of a file (a rank
  // prefix has up to six digits), so a hostile log of a million rank prefixes keeps a bounded
  // map; scan.py's _set_memo is the same rule. Under the bound (every real job) nothing is
  // dropped; over it a stream unseen for the longest time forgets its last match, and its
  // next line looks back LOOKBACK_LINES lines as a stream's first does.
  function setMemo(state, stream, memo) {
    var memos = state.memos;
    if (memos.has(stream)) memos.delete(stream); // to the end of the map's order
    else if (memos.size >= CACHED_STREAMS) memos.delete(memos.keys().next().value);
    memos.set(stream, memo);
  }

  // Whether buf[a:a+n] equals buf[b:b+n].
  function sameBytes(buf, a, b, n) {
    for (var k = 0; k < n; k++) if (buf[a + k] !== buf[b + k]) return false;
    return true;
  }

  // How many times the line at `start` (ending at `end`, before its LF or CRLF) stands in a
  // row, this one included, and its size with its break (scan.py's _repeats). Such lines read
  // alike, and a traceback's final line (`exceptions`) is never folded into the lines before it.
  function repeats(block, start, end, exceptions) {
    var size;
    if (block[end] === LF) size = end + 1 - start;
    else if (block[end] === CR && block[end + 1] === LF) size = end + 2 - start;
    else return [1, 0];
    var more = 0; // copies after the first one, known to follow
    var pos = start + size;
    var limit = block.length - size;
    while (pos <= limit && sameBytes(block, start, pos, size)) {
      more++;
      pos += size;
    }
    if (more) {
      var runEnd = start + (more + 1) * size;
      exceptions.forEach(function (e) {
        if (start < e && e < runEnd) more = Math.min(more, Math.floor((e - start) / size) - 1);
      });
    }
    return [more + 1, size];
  }

  function Scanner(index) {
    this.index = index;
    this.cap = index.maxLineBytes;
    this.firstExtra = index.anchors.length;
    this.tracebackAnchor = this.firstExtra + EXTRA_ANCHORS.indexOf(E.TRACEBACK);
    this.prefilter = new Prefilter(index.anchors.concat(EXTRA_ANCHORS));
    // Lines by their bytes (as windows-1252 text, one character per byte): a storm repeats the
    // same few lines, each read once (scan.py's Scanner._lines).
    this.lines = new Map();
    // A storm of distinct lines (every watchdog line has its own rank, time and numbers) never
    // finds one in the cache, and keeping each line's reading until the cache is emptied costs
    // more than the look-up saves: hashing the text, and the collector moving thousands of
    // readings to the old generation. So when a full cache has answered few look-ups, lines
    // are read without it for a while, then it is tried again. A reading is a pure function of
    // the line, so this changes how often a line is read, never what it says.
    this.lineHits = 0; // look-ups the cache answered since it was last emptied
    this.uncached = 0; // lines still to read without the cache
  }
  // Scan one log. `read(n)` returns a promise of up to n bytes (exactly n unless the log ends;
  // an empty array at the end) and may reject with a LogReadError after the bytes before the
  // failure were returned. Each matching line is passed to onMatch, in order. Problems are
  // appended to `problems`, never thrown.
  Scanner.prototype.scan = async function (read, name, fileIndex, stats, problems, options) {
    options = options || {};
    var onMatch = options.onMatch || function () {};
    var state = new FileState(name, fileIndex, options.fileRank === undefined ? null : options.fileRank);
    this.uncached = 0; // another log may repeat its lines: try the cache again
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

  // The first index at or after `lo` of the flat [anchor, end, ...] list whose end is past
  // `x` (bisect_right over the ends), as a pair index.
  function afterEnd(found, x, lo) {
    var hi = found.length >> 1;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (found[2 * mid + 1] <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function countLf(block, lo, hi) {
    var n = 0;
    for (var at = block.indexOf(LF, lo); at >= 0 && at < hi; at = block.indexOf(LF, at + 1)) n++;
    return n;
  }

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
    var lengths = this.prefilter.lengths;
    var tb = this.tracebackAnchor;
    var n = found.length >> 1;
    var tracebacks = new Map();
    for (var t = 0; t < n; t++) {
      if (found[2 * t] !== tb) continue;
      var at = lineStart(block, found[2 * t + 1] - lengths[tb], 0, hasCr);
      if (!tracebacks.has(at)) tracebacks.set(at, new Set([tb]));
    }
    var exceptions = this.exceptionLines(block, tracebacks, state, hasCr);
    // An anchor never holds a line break, so anchors in end order come line by line: a line's
    // start and end are looked for once, not once per anchor on it. A line that stands many
    // times in a row (a storm) is looked at once, with how often it stands (scan.py's _block).
    var starts = new Map();
    var runs = new Map();
    var i = 0;
    while (i < n) {
      var start = lineStart(block, found[2 * i + 1] - lengths[found[2 * i]], 0, hasCr);
      var stop = lineEnd(block, start, hasCr);
      var anchors = starts.get(start);
      if (anchors === undefined) {
        anchors = new Set();
        starts.set(start, anchors);
      }
      while (i < n && found[2 * i + 1] <= stop) {
        anchors.add(found[2 * i]);
        i++;
      }
      if (stop - start <= CACHED_LINE_BYTES) {
        var run = repeats(block, start, stop, exceptions);
        if (run[0] > 1) {
          runs.set(start, run);
          i = afterEnd(found, start + run[0] * run[1] - 1, i);
        }
      }
    }
    exceptions.forEach(function (e) {
      if (!starts.has(e)) starts.set(e, new Set());
    });
    if (starts.size) {
      state.heads = new Map();
      state.readLines = new Map();
      state.window = null;
      var sweep = (state.sweep = new Sweep(block, offsetBase, hasCr, state.heads));
      var tailCr = hasCr || state.prevTail.indexOf(CR) >= 0;
      var order = Array.from(starts.keys());
      for (var o = 1; o < order.length; o++) {
        if (order[o] < order[o - 1]) {
          order.sort(function (a, b) { return a - b; });
          break;
        }
      }
      var countedTo = 0;
      var line = lineBase;
      var cache = this.lines;
      for (var k = 0; k < order.length; k++) {
        var lineStartAt = order[k];
        line += countLf(block, countedTo, lineStartAt);
        countedTo = lineStartAt;
        var end = Math.min(lineEnd(block, lineStartAt, hasCr), lineStartAt + cap);
        var raw = block.subarray(lineStartAt, end);
        var text = null;
        var key = null;
        var read = undefined;
        if (this.uncached > 0) {
          this.uncached--;
        } else if (raw.length <= CACHED_LINE_BYTES) {
          // An ASCII line's text is its bytes' key as well: decoded once.
          text = decode(raw);
          key = NON_ASCII.test(text) ? bytesKey.decode(raw) : text;
          read = cache.get(key);
          if (read !== undefined) this.lineHits++;
        }
        if (read === undefined) {
          read = this.read(raw, starts.get(lineStartAt), text);
          if (key !== null) {
            if (cache.size >= CACHED_LINES) {
              if (this.lineHits < CACHED_LINES / 8) this.uncached = UNCACHED_LINES;
              this.lineHits = 0;
              cache.clear();
            }
            cache.set(key, read);
          }
        }
        if (!(read.numbers.length || read.extra || exceptions.has(lineStartAt))) continue;
        // A line read whole is what a walk or the sweep would read of it (the same head).
        var whole = raw.length <= E.HEAD_CHARS && end < lineStartAt + cap ? read.info : null;
        var stream = read.info.prefixRank;
        var repeat = 1;
        var size = 0;
        var r = runs.get(lineStartAt);
        if (r !== undefined) {
          repeat = r[0];
          size = r[1];
        }
        var match;
        if (repeat > 1 && read.launch !== null) {
          // A launcher's line carries its summary's state from line to line.
          for (var j = 0; j < repeat; j++) {
            match = this.match(block, lineStartAt + j * size, offsetBase, line + j, read, state, exceptions, tailCr);
            sweep.take(lineStartAt + j * size, end + j * size, size, 1, stream, state, whole);
            if (match !== null) onMatch(match);
          }
        } else {
          match = this.match(block, lineStartAt, offsetBase, line, read, state, exceptions, tailCr);
          if (match !== null) {
            if (repeat > 1) {
              // One match stands for them all: each would read as the first does (see
              // repeats), and inherits the same time and host.
              var memo = state.memos.get(match.stream);
              if (memo !== undefined && memo.offset === offsetBase + lineStartAt) {
                var last = offsetBase + lineStartAt + (repeat - 1) * size;
                setMemo(state, match.stream, { offset: last, time: match.time, host: match.host });
              }
              match.repeat = repeat;
            }
            sweep.take(lineStartAt, end, size, repeat, stream, state, whole);
            onMatch(match);
          } else {
            sweep.take(lineStartAt, end, size, repeat, stream, state, whole);
          }
        }
        // Kept for a later walk that reaches the line, unless the sweep has put it with the
        // walks' lines already (a walk looks there first; both hold what the line says).
        if (whole !== null && !state.heads.has(offsetBase + end + 1)) {
          state.readLines.set(offsetBase + lineStartAt, [offsetBase + end, whole]);
        }
        if (repeat > 1) {
          line += repeat - 1;
          countedTo = lineStartAt + (repeat - 1) * size;
        }
      }
    }
    // The last LOOKBACK_BYTES before the next block, however small the blocks are.
    var joined = block.length < LOOKBACK_BYTES ? concat(state.prevTail, block) : block;
    state.prevTail = joined.slice(Math.max(0, joined.length - LOOKBACK_BYTES));
    return block.length;
  };

  // The starts of the final lines of the tracebacks this block holds or continues (from the
  // `Traceback` lines in `starts`, start -> anchors, to which they are added): scan.py's
  // _exception_lines.
  Scanner.prototype.exceptionLines = function (block, starts, state, hasCr) {
    var found = new Set();
    var walks = [];
    state.tracebacks.forEach(function (left, stream) { walks.push([0, stream, left]); });
    state.tracebacks = new Map();
    var tracebackAnchor = this.tracebackAnchor;
    starts.forEach(function (anchors, start) {
      if (!anchors.has(tracebackAnchor)) return;
      var end = lineEnd(block, start, hasCr);
      var head = decode(block.subarray(start, Math.min(end, start + E.HEAD_CHARS)));
      var read = E.readLineBody(head);
      if (E.bodyOf(read[1]).startsWith(E.TRACEBACK)) walks.push([end + 1, read[0].prefixRank, TRACEBACK_LINES]);
    });
    walks.sort(function (a, b) { return a[0] - b[0]; });
    var waiting = new Set();
    var size = block.length;
    for (var w = 0; w < walks.length; w++) {
      var pos = walks[w][0];
      var stream = walks[w][1];
      var left = walks[w][2];
      if (waiting.has(stream)) continue;
      while (left > 0 && pos < size) {
        var end = lineEnd(block, pos, hasCr);
        var head = decode(block.subarray(pos, Math.min(end, pos + E.HEAD_CHARS)));
        var lineStartAt = pos;
        pos = end + 1;
        var read = E.readLineBody(head);
        if (read[0].prefixRank !== stream) continue;
        left -= 1;
        var body = E.bodyOf(read[1]);
        if (!E.pyStrip(body) || E.isFrame(body)) continue;
        if (body.startsWith(E.TRACEBACK)) continue; // a traceback printed inside another
        if (E.isExceptionLine(body)) {
          found.add(lineStartAt);
          if (!starts.has(lineStartAt)) starts.set(lineStartAt, new Set());
        }
        left = 0;
      }
      if (left > 0) {
        // The block ended inside the traceback: go on at the start of the next one.
        state.tracebacks.set(stream, left);
        waiting.add(stream);
      }
    }
    return found;
  };

  // What a line says by itself, whatever its place: a pure function of its bytes (and the
  // anchors in them), scan.py's _read.
  Scanner.prototype.read = function (raw, anchors, decoded) {
    var text = decoded !== null && decoded !== undefined ? decoded : decode(raw);
    var firstExtra = this.firstExtra;
    var index = this.index;
    var numbers = [];
    var extra = false;
    anchors.forEach(function (anchorNumber) {
      if (anchorNumber >= firstExtra) {
        extra = true;
        return;
      }
      var candidates = index.byAnchor[anchorNumber];
      for (var j = 0; j < candidates.length; j++) {
        if (index.signatures[candidates[j]].matcher.search(text)) numbers.push(candidates[j]);
      }
    });
    numbers.sort(function (a, b) { return a - b; });
    var lineRead = E.readLineParts(text);
    var body = E.bodyOf(lineRead[1]);
    // A traceback's source line that raises holds the message's template (evidence.js).
    if (numbers.length && E.isRaiseLine(body)) numbers = [];
    var launch = null;
    var kind = null;
    if (extra || !anchors.size) {
      // A line with no anchor is a traceback's end. The whole line is read: a flattened
      // traceback states its error past the head.
      var whole = body + text.slice(E.headOf(text, E.HEAD_CHARS).length);
      launch = E.readLaunch(whole);
      kind = E.classify(whole, launch !== null && launch.signal !== null);
    }
    var supporting = numbers.length > 0 && numbers.every(function (n) { return index.signatures[n].role === "context"; });
    return {
      numbers: numbers, // the signatures that match it, ascending
      extra: extra, // it holds a launcher or evidence literal
      // Without a paste's wrappers: the head's, when the head is the whole line.
      text: text.length <= E.HEAD_CHARS ? lineRead[2] : E.unwrap(text).text,
      info: lineRead[0],
      launch: launch,
      kind: kind, // the evidence it is by its own text (a traceback's end aside)
      supporting: supporting, // only context signatures match it
    };
  };

  Scanner.prototype.match = function (block, start, offsetBase, line, read, state, exceptions, tailCr) {
    var info = read.info;
    var kind = null;
    var launch = null;
    var launchRank = null;
    var offset = offsetBase + start;
    if (read.extra || exceptions.has(start)) {
      launch = read.launch;
      if (launch !== null) {
        launchRank = summaryRank(launch, offset, state);
        if ((launch.summary === "rank" || launch.summary === "field") && launchRank !== null) {
          launch = Object.assign({}, launch, { rank: launchRank, root: state.summary !== null && state.summary[2] });
        }
      }
      kind = exceptions.has(start) ? "python-exception" : read.kind;
      if (launch !== null && (launch.summary === "root-header" || launch.summary === "other-header")) launch = null;
      if (!read.numbers.length && kind === null && (launch === null || !launch.failed)) return null;
    }
    var stream = info.prefixRank;
    var time = info.time;
    var host = info.host;
    var memo = state.memos.get(stream);
    if (read.supporting && kind === null && launch === null) {
      // A line that only supports a finding is counted, never reported: no time or host is
      // looked for, and it is no stream's last match (scan.py's _match).
      time = null;
      host = null;
    } else if (time === null || host === null) {
      var found = null;
      if (state.sweep !== null) {
        // Only lines that look back move the sweep on: a log's supporting lines (NCCL INFO
        // from every rank) never make it read the lines between them.
        state.sweep.reach(start);
        found = state.sweep.answer(start, stream, memo);
      }
      if (found === null) found = this.lookBack(block, start, offsetBase, stream, state, tailCr);
      time = time || found[0];
      host = host || found[1];
      if (host === null && memo !== undefined) host = memo.host; // a stream's host does not change
    }
    if (!read.supporting || kind !== null || launch !== null) {
      setMemo(state, stream, { offset: offset, time: time, host: host });
    }
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
      text: read.text,
      signatures: read.numbers,
      rank: rank,
      stream: stream,
      time: time,
      host: host,
      evidence: kind,
      launch: launch,
      rankFromLauncher: info.prefixRank === null && launchRank !== null,
      repeat: 1, // the line, unchanged, stands this many times in a row (from `line` on)
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

  // The latest time and host printed before `start` by the same stream, if close. `hasCr` may
  // be true when the window holds no CR (it only adds a search). The lines walked are kept in
  // state.heads by their place in the stream, so the look-backs of a storm of matches read
  // each line once, however many windows it lies in (scan.py's _look_back).
  Scanner.prototype.lookBack = function (block, start, offsetBase, stream, state, hasCr) {
    var window;
    var windowOffset;
    if (start < LOOKBACK_BYTES && state.prevTail.length) {
      // The previous block's tail and this block's first LOOKBACK_BYTES, joined once per block:
      // a look-back reads only before `start` and no further back than LOOKBACK_BYTES, so it
      // walks the lines scan.py's window (the tail's last bytes and the block up to `start`)
      // holds, at the same places in the stream.
      if (state.window === null) {
        state.window = concat(state.prevTail, block.subarray(0, Math.min(block.length, LOOKBACK_BYTES)));
      }
      window = state.window;
      windowOffset = offsetBase - state.prevTail.length;
    } else {
      window = block;
      windowOffset = offsetBase;
    }
    var pos = start + offsetBase - windowOffset;
    var floor = Math.max(0, pos - LOOKBACK_BYTES);
    var memo = state.memos.get(stream);
    var memoAt = memo !== undefined ? memo.offset - windowOffset : -1;
    var heads = state.heads;
    var time = null;
    var host = null;
    var lines = 0;
    while (lines < LOOKBACK_LINES && pos > floor) {
      var known = heads.get(windowOffset + pos);
      var ls;
      var info = null;
      if (known === undefined) {
        ls = lineStart(window, pos - 1, floor, hasCr);
      } else {
        ls = known[0] - windowOffset;
        info = known[1];
      }
      if (ls <= memoAt) {
        // Every line since the stream's last match was read: inherit from it.
        return [time || memo.time, host || memo.host];
      }
      if (!(ls > floor || (ls === 0 && windowOffset === 0))) {
        // A line the window's floor cuts is not read: its head would depend on where the
        // floor fell, and a copy read whole by an earlier walk would say more (scan.py).
        break;
      }
      if (known === undefined) {
        var whole = state.readLines.get(windowOffset + ls);
        if (whole !== undefined && whole[0] === windowOffset + pos - 1) {
          info = whole[1];
        } else {
          var head = window.subarray(ls, Math.max(ls, Math.min(pos - 1, ls + E.HEAD_CHARS)));
          info = head.length ? E.readLine(decode(head)) : null;
        }
        if (heads.size < CACHED_HEADS) heads.set(windowOffset + pos, [windowOffset + ls, info]);
      }
      pos = ls;
      if (info === null) continue;
      lines += 1;
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
