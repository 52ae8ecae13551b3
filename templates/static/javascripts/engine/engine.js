// The engine on logs in the browser: pasted text, bytes, or files (plain or gzip), streamed
// through the Scanner and Tally and triaged, as generator/diagnose/engine.py and inputs.py do.
// Compression is told from the first bytes, not the name; gzip is decompressed with
// DecompressionStream while it is read. Nothing here touches the network.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var CONTEXT_LINES = 3;
  var CONTEXT_BYTES = 2000;

  var UNSUPPORTED = [
    [[0x28, 0xb5, 0x2f, 0xfd], "is zstd-compressed; decompress it first (zstd -d FILE), or use trainwreck diagnose"],
    [[0x50, 0x4b, 0x03, 0x04], "is a zip archive; unpack it first"],
    [[0x42, 0x5a, 0x68], "is bzip2-compressed; decompress it first (bunzip2 -k FILE), or use trainwreck diagnose"],
    [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], "is xz-compressed; decompress it first (unxz -k FILE), or use trainwreck diagnose"],
  ];

  function startsWith(head, magic) {
    if (head.length < magic.length) return false;
    for (var i = 0; i < magic.length; i++) if (head[i] !== magic[i]) return false;
    return true;
  }

  function InputError(message) {
    var error = new Error(message);
    error.name = "InputError";
    return error;
  }

  // read(n) over bytes in memory.
  function bytesReader(bytes) {
    var at = 0;
    return function (n) {
      var chunk = bytes.subarray(at, Math.min(bytes.length, at + n));
      at += chunk.length;
      return Promise.resolve(chunk);
    };
  }

  // read(n) over a string, encoded to UTF-8 a slice at a time as the bytes are asked for, so a
  // large paste is never held twice. Slices never split a surrogate pair.
  function textReader(text) {
    var encoder = new TextEncoder();
    var SLICE = E.TEXT_SLICE;
    var at = 0; // next character to encode
    var buffered = new Uint8Array(0);
    var head = 0;
    return function (n) {
      while (buffered.length - head < n && at < text.length) {
        var end = Math.min(text.length, at + SLICE);
        var last = text.charCodeAt(end - 1);
        if (end < text.length && last >= 0xd800 && last < 0xdc00) end += 1;
        var more = encoder.encode(text.slice(at, end));
        at = end;
        var rest = buffered.subarray(head);
        var joined = new Uint8Array(rest.length + more.length);
        joined.set(rest, 0);
        joined.set(more, rest.length);
        buffered = joined;
        head = 0;
      }
      var size = Math.min(n, buffered.length - head);
      var chunk = buffered.slice(head, head + size);
      head += size;
      return Promise.resolve(chunk);
    };
  }

  function gzipMessage(exc) {
    if (exc && exc.logMessage) return exc.logMessage;
    var text = exc && exc.message ? exc.message : String(exc);
    if (/truncat|unexpected end|ended/i.test(text)) {
      return "gzip data ends early (a truncated file); the lines before the cut were diagnosed";
    }
    return "gzip data is corrupt (" + text + ")";
  }

  // read(n) over a ReadableStream of bytes: exactly n bytes unless the stream ends. A stream
  // error is raised once the bytes before it have been returned, so nothing read is lost.
  function streamReader(stream, describe) {
    var reader = stream.getReader();
    var chunks = [];
    var head = 0; // offset into chunks[0]
    var buffered = 0;
    var done = false;
    var failure = null;
    return async function read(n) {
      while (buffered < n && !done && failure === null) {
        try {
          var r = await reader.read();
          if (r.done) done = true;
          else if (r.value.length) {
            var value = r.value instanceof Uint8Array ? r.value : new Uint8Array(r.value);
            chunks.push(value);
            buffered += value.length;
          }
        } catch (exc) {
          failure = E.LogReadError(describe(exc));
        }
      }
      if (!buffered && failure !== null) {
        var f = failure;
        failure = null;
        done = true;
        throw f;
      }
      var size = Math.min(n, buffered);
      var out = new Uint8Array(size);
      var filled = 0;
      while (filled < size) {
        var chunk = chunks[0];
        var take = Math.min(chunk.length - head, size - filled);
        out.set(chunk.subarray(head, head + take), filled);
        filled += take;
        head += take;
        if (head === chunk.length) {
          chunks.shift();
          head = 0;
        }
      }
      buffered -= size;
      return out;
    };
  }

  // --- gzip, member after member, as Python's gzip module reads it (inputs.py) ---------------
  //
  // Chromium's DecompressionStream decodes one member and fails on any byte after it ("junk"),
  // a second member or zero padding included; and a failing stream drops the output it had
  // queued, which is most of the output of the piece that held the member's end. So a member
  // that fails is decoded again, the piece that held the failure a byte at a time (one byte
  // gives less than one output buffer, which goes straight to the waiting read): every byte of
  // it is read, and the failing byte is where the member ended. What follows is then read as
  // Python does: zero bytes are padding, 1f 8b starts another member, anything else is junk.

  var GZIP_PIECE = 16384;
  var ZERO_SCAN = 65536;

  function sizeOf(source) {
    return source instanceof Uint8Array ? source.length : source.size;
  }

  async function bytesAt(source, start, n) {
    if (source instanceof Uint8Array) return source.subarray(start, Math.min(source.length, start + n));
    return new Uint8Array(await source.slice(start, start + n).arrayBuffer());
  }

  // The bytes of `source` from `start`, in pieces of at most GZIP_PIECE bytes.
  async function* piecesOf(source, start) {
    if (source instanceof Uint8Array) {
      for (var at = start; at < source.length; at += GZIP_PIECE) {
        yield source.subarray(at, Math.min(source.length, at + GZIP_PIECE));
      }
      return;
    }
    var reader = source.slice(start).stream().getReader();
    for (;;) {
      var r = await reader.read();
      if (r.done) return;
      var value = r.value instanceof Uint8Array ? r.value : new Uint8Array(r.value);
      for (var i = 0; i < value.length; i += GZIP_PIECE) yield value.subarray(i, i + GZIP_PIECE);
    }
  }

  // One DecompressionStream over the member from byte `start`: yields its output but the first
  // `skip` bytes, writing a byte at a time from byte `slowFrom` on. Returns {output, failure,
  // last}: the output's length, the stream's error (null at a clean end) and the offset of the
  // last write (after a failed one, of the piece or byte that failed).
  async function* inflatePass(source, start, skip, slowFrom) {
    var ds = new DecompressionStream("gzip");
    var writer = ds.writable.getWriter();
    var reader = ds.readable.getReader();
    var last = start;
    var writing = (async function () {
      var at = start;
      try {
        for await (var piece of piecesOf(source, start)) {
          var fast = Math.max(0, Math.min(piece.length, slowFrom - at));
          if (fast) {
            last = at;
            await writer.write(piece.subarray(0, fast));
            at += fast;
          }
          for (var i = fast; i < piece.length; i++) {
            last = at;
            await writer.write(piece.subarray(i, i + 1));
            at += 1;
          }
        }
        await writer.close();
      } catch (exc) {
        // The readable side has the same error.
      }
    })();
    var output = 0;
    var failure = null;
    for (;;) {
      var r;
      try {
        r = await reader.read();
      } catch (exc) {
        failure = exc;
        break;
      }
      if (r.done) break;
      var chunk = r.value;
      var before = output;
      output += chunk.length;
      if (output > skip) yield before >= skip ? chunk : chunk.subarray(skip - before);
    }
    await writing;
    return { output: output, failure: failure, last: last };
  }

  function junkError(offset) {
    var message =
      "gzip data is followed by bytes that are not gzip (from byte " +
      offset.toLocaleString("en-US") + "); the lines before them were diagnosed";
    var error = new Error(message);
    error.logMessage = message;
    return error;
  }

  // The first byte at or after `at` that is not zero (padding after a member).
  async function skipZeros(source, at, size) {
    while (at < size) {
      var bytes = await bytesAt(source, at, ZERO_SCAN);
      for (var i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return at + i;
      at += bytes.length;
    }
    return size;
  }

  async function* gunzip(source) {
    var size = sizeOf(source);
    var start = 0;
    for (;;) {
      var first = yield* inflatePass(source, start, 0, Infinity);
      var end = size; // a member that ends cleanly ran to the end of the data
      if (first.failure !== null) {
        var again = yield* inflatePass(source, start, first.output, first.last);
        if (again.failure !== null) {
          if (!/junk/i.test(String(again.failure && again.failure.message))) throw again.failure;
          end = again.last;
        }
      }
      var next = await skipZeros(source, end, size);
      if (next >= size) return;
      var magic = await bytesAt(source, next, 2);
      if (magic.length < 2 || magic[0] !== 0x1f || magic[1] !== 0x8b) throw junkError(next);
      start = next;
    }
  }

  // A byte stream pulled from an async generator of chunks, one chunk a read, so that when the
  // generator fails nothing is queued to be dropped.
  function generatorStream(chunks) {
    return new ReadableStream(
      {
        pull: async function (controller) {
          try {
            var r = await chunks.next();
            if (r.done) controller.close();
            else controller.enqueue(r.value);
          } catch (exc) {
            controller.error(exc);
          }
        },
        cancel: function () {
          return chunks.return();
        },
      },
      { highWaterMark: 0 }
    );
  }

  async function headOf(source, n) {
    if (source instanceof Uint8Array) return source.subarray(0, n);
    return new Uint8Array(await source.slice(0, n).arrayBuffer());
  }

  // A log opened for streaming: {read, kind}; throws InputError for what cannot be read here.
  async function openLog(source) {
    if (typeof source === "string") {
      // Pasted text: never compressed, and it cannot hold the magic bytes of a format.
      return { read: textReader(source), kind: "plain" };
    }
    var head = await headOf(source, 6);
    for (var i = 0; i < UNSUPPORTED.length; i++) {
      var magic = UNSUPPORTED[i][0];
      if (startsWith(head, magic) && (magic[0] !== 0x42 || (head[3] >= 0x30 && head[3] <= 0x39))) {
        throw InputError(UNSUPPORTED[i][1]);
      }
    }
    var gzip = startsWith(head, [0x1f, 0x8b]);
    if (!gzip) {
      if (source instanceof Uint8Array) return { read: bytesReader(source), kind: "plain" };
      return {
        read: streamReader(source.stream(), function (exc) { return "read error: " + (exc && exc.message ? exc.message : exc); }),
        kind: "plain",
      };
    }
    if (typeof DecompressionStream === "undefined") {
      throw InputError("is gzip-compressed, and this browser cannot decompress it; use gunzip first");
    }
    return { read: streamReader(generatorStream(gunzip(source)), gzipMessage), kind: "gzip" };
  }

  // Diagnose logs: [{name, source}] where source is a string, a Uint8Array or a Blob/File.
  // Options: onProgress(stats), index (compiled). Returns {diagnosis, stats, problems, hosts}.
  async function diagnose(index, logs, options) {
    options = options || {};
    var scanner = options.scanner || new E.Scanner(index);
    var tally = new E.Tally(index);
    var stats = E.newStats();
    var problems = [];
    var endings = [];
    var readers = [];
    for (var i = 0; i < logs.length; i++) {
      var log = logs[i];
      var opened;
      try {
        opened = await openLog(log.source);
      } catch (exc) {
        problems.push({ file: log.name, message: exc.message, kind: "read" });
        continue;
      }
      var tail = new Tail(opened.read, END_BYTES);
      var fileRank = E.rankFromPath(log.name);
      var progress = new E.ProgressReader(tail, log.name, i, fileRank);
      readers.push(progress);
      await scanner.scan(function (n) { return progress.read(n); }, log.name, i, stats, problems, {
        fileRank: fileRank,
        onMatch: function (m) { tally.add(m); },
        tick: options.onProgress,
      });
      endings.push([i, log.name, tail.lastLine()]);
    }
    var diagnosis = E.withTrends(E.triage(tally), E.trendsIn(readers, endings), index);
    diagnosis = await withCulprit(await withExceptionLine(withEnding(diagnosis, endings), logs), logs);
    return {
      diagnosis: diagnosis, stats: stats, problems: problems, hosts: tally.hosts,
      progress: readers.map(function (r) { return r.log; }),
    };
  }

  // What a log keeps of its end as it is read (context.py's Tail): the line it ends with.
  var END_BYTES = 64 << 10;
  var LAST_LINE_BYTES = 2048;

  function countBreaks(bytes, from, to) {
    var n = 0;
    for (var at = bytes.indexOf(10, from); at >= 0 && at < to; at = bytes.indexOf(10, at + 1)) n++;
    return n;
  }

  function Tail(read, keep) {
    this._read = read;
    this.keep = keep;
    this.kept = new Uint8Array(0);
    this.firstLine = 1;
    this.size = 0;
  }

  Tail.prototype.read = async function (n) {
    var data = await this._read(n);
    this.size += data.length;
    if (data.length >= this.keep) {
      var cut = data.length - this.keep;
      this.firstLine += countBreaks(this.kept, 0, this.kept.length) + countBreaks(data, 0, cut);
      this.kept = data.slice(cut);
    } else if (data.length) {
      var joined = new Uint8Array(this.kept.length + data.length);
      joined.set(this.kept);
      joined.set(data, this.kept.length);
      this.kept = joined;
      if (this.kept.length > 2 * this.keep) {
        var drop = this.kept.length - this.keep;
        this.firstLine += countBreaks(this.kept, 0, drop);
        this.kept = this.kept.slice(drop);
      }
    }
    return data;
  };

  // [number, offset, text] of the log's last line with text in it, or null.
  Tail.prototype.lastLine = function () {
    var kept = this.kept;
    var end = kept.length;
    var number = this.firstLine + countBreaks(kept, 0, kept.length);
    while (end >= 0) {
      var start = end > 0 ? kept.lastIndexOf(10, end - 1) + 1 : 0;
      var text = decodedLine(kept.subarray(start, Math.min(end, start + LAST_LINE_BYTES)));
      if (E.pyStrip(text).length) return [number, this.size - kept.length + start, text];
      end = start - 1;
      number -= 1;
    }
    return null;
  };

  // When nothing states an error, the line a log ends with, if it reads as one
  // (engine.py's with_ending).
  function withEnding(diagnosis, endings) {
    var roots = diagnosis.findings.some(function (f) { return f.role === "root-cause"; });
    if (roots || diagnosis.unrecognized.length) return diagnosis;
    for (var k = 0; k < endings.length; k++) {
      var last = endings[k][2];
      if (last === null) continue;
      var text = last[2];
      var read = E.readLineBody(text);
      var body = E.bodyOf(read[1]) + text.slice(E.headOf(text, E.HEAD_CHARS).length);
      if (!E.endsInError(body)) continue;
      var info = read[0];
      var rank = info.prefixRank;
      if (rank === null) rank = E.rankFromPath(endings[k][1]);
      if (rank === null) rank = info.textRank;
      var hit = E.hitOf({
        file: endings[k][1], fileIndex: endings[k][0], line: last[0], offset: last[1], rank: rank,
        time: info.time, host: info.host, text: E.unwrap(text).text, rankFromLauncher: false,
      });
      diagnosis.unrecognized = [{ kind: "final-line", hit: hit }];
      if (rank !== null) {
        diagnosis.firstFailedRank = rank;
        diagnosis.firstFailure = hit;
      }
      return diagnosis;
    }
    return diagnosis;
  }

  // The line a report puts first: the top root cause's, else the unrecognised one.
  function explainedHit(diagnosis) {
    var root = diagnosis.findings.find(function (f) { return f.role === "root-cause"; });
    if (root) return root.first;
    return diagnosis.unrecognized.length ? diagnosis.unrecognized[0].hit : null;
  }

  // exception_line.py: the typed exception line that the line a report puts first stands for
  // (a `raise X('message')` source line, or the bare message pasted above its traceback), when
  // the same stream goes on to it within LOOK_AHEAD lines.
  var LOOK_AHEAD = 64;
  var EXCEPTION_LINE_BYTES = 4096;
  var MIN_MESSAGE = 16;
  var RAISE_MESSAGE = /^raise[ \t\n\r\f\v]+[A-Za-z0-9_.]+\([ \t\n\r\f\v]*[rbu]?(['"])(.{8,}?)\1/;
  var TYPED = /^(?:[A-Za-z_][A-Za-z0-9_.]*)?(?:Error|Exception|Exit|Interrupt|Fault)[A-Za-z0-9_]*: (.+)$/;
  var TYPED_IN = /(?:Error|Exception|Exit|Interrupt|Fault)[A-Za-z0-9_]*: /;

  function messageOf(body) {
    var text = E.pyStrip(body);
    var m = RAISE_MESSAGE.exec(text);
    if (m !== null) return m[2];
    if (TYPED_IN.test(text) || Array.from(text).length < MIN_MESSAGE || text.startsWith("raise ")) return null;
    return text;
  }

  function messageOfLine(text) {
    var head = E.headOf(text, E.HEAD_CHARS);
    var read = E.readLineBody(head);
    return [read[0].prefixRank, messageOf(E.bodyOf(read[1]) + text.slice(head.length))];
  }

  async function withExceptionLine(diagnosis, logs) {
    var hit = explainedHit(diagnosis);
    if (hit === null) return diagnosis;
    var own = messageOfLine(hit.text);
    if (own[1] === null) return diagnosis;
    var wanted = new Set();
    for (var n = hit.line + 1; n <= hit.line + LOOK_AHEAD; n++) wanted.add(n);
    var found;
    try {
      found = await linesOf(logs[hit.fileIndex].source, wanted, EXCEPTION_LINE_BYTES);
    } catch (exc) {
      return diagnosis;
    }
    var numbers = Array.from(found.keys()).sort(function (a, b) { return a - b; });
    for (var i = 0; i < numbers.length; i++) {
      var line = decodedLine(found.get(numbers[i]));
      var head = E.headOf(line, E.HEAD_CHARS);
      var read = E.readLineBody(head);
      if (read[0].prefixRank !== own[0]) continue;
      var typed = TYPED.exec(E.pyStrip(E.bodyOf(read[1]) + line.slice(head.length)));
      if (typed === null || typed[1].indexOf(own[1]) < 0) continue;
      var better = E.hitOf({
        file: hit.file, fileIndex: hit.fileIndex, line: numbers[i], offset: hit.offset, rank: hit.rank,
        time: hit.time, host: hit.host, text: E.unwrap(line).text, rankFromLauncher: hit.rankFromLauncher,
      });
      diagnosis.findings = diagnosis.findings.map(function (f) {
        return f.first === hit ? Object.assign({}, f, { first: better }) : f;
      });
      diagnosis.unrecognized = diagnosis.unrecognized.map(function (u) {
        return u.hit === hit ? { kind: u.kind, hit: better } : u;
      });
      if (diagnosis.firstFailure === hit) diagnosis.firstFailure = better;
      return diagnosis;
    }
    return diagnosis;
  }

  // The diagnosis with the culprit of the line it puts first, read from the lines before that
  // line in its log (engine.py's with_culprit).
  async function withCulprit(diagnosis, logs) {
    var hit = explainedHit(diagnosis);
    diagnosis.explained = hit;
    diagnosis.culprit = null;
    if (hit === null) return diagnosis;
    var wanted = new Set();
    for (var n = Math.max(1, hit.line - E.CULPRIT_LINES_BEFORE); n < hit.line; n++) wanted.add(n);
    var found;
    try {
      found = await linesOf(logs[hit.fileIndex].source, wanted, E.CULPRIT_LINE_BYTES);
    } catch (exc) {
      found = new Map(); // gone since it was read: the culprit goes unnamed
    }
    var before = Array.from(found.keys()).sort(function (a, b) { return a - b; }).map(function (k) {
      return decodedLine(found.get(k));
    });
    diagnosis.culprit = E.culpritOf(hit.text, before);
    return diagnosis;
  }

  // Some lines of one log read again (context.py's read_lines): Map(number -> raw bytes), each
  // cut at maxBytes; numbers count LF, as the scanner's do.
  async function linesOf(source, wanted, maxBytes) {
    var found = new Map();
    if (!wanted.size) return found;
    var last = Math.max.apply(null, Array.from(wanted));
    var opened = await openLog(source);
    var line = 1;
    var parts = [];
    var kept = 0;
    for (;;) {
      var data = await opened.read(1 << 20);
      if (!data.length) break;
      var at = 0;
      while (at <= data.length) {
        var lf = data.indexOf(10, at);
        var end = lf < 0 ? data.length : lf;
        if (wanted.has(line) && kept < maxBytes) {
          var piece = data.subarray(at, Math.min(end, at + maxBytes - kept));
          parts.push(piece);
          kept += piece.length;
        }
        if (lf < 0) break;
        if (wanted.has(line)) found.set(line, joinParts(parts));
        parts = [];
        kept = 0;
        line++;
        at = lf + 1;
        if (line > last) return found;
      }
    }
    if (parts.length && wanted.has(line)) found.set(line, joinParts(parts));
    return found;
  }

  // A line read again as the scanner reads it (context.py's decoded): colour codes removed,
  // UTF-8 with U+FFFD, and of a line redrawn with CR what is left on the screen.
  function decodedLine(bytes) {
    var parts = E.decode(E.stripCsi(bytes)).split("\r").filter(function (p) { return p.length; });
    return parts.length ? parts[parts.length - 1] : "";
  }

  // The text of one line for display: escape sequences removed, what a terminal would show of
  // a line redrawn with CR (its last part), capped.
  function displayLine(bytes) {
    var clean = E.stripCsi(bytes.subarray(0, CONTEXT_BYTES * 4));
    var parts = E.decode(clean).split("\r");
    var shown = "";
    for (var i = parts.length - 1; i >= 0; i--) {
      if (parts[i]) {
        shown = parts[i];
        break;
      }
    }
    return shown.length > CONTEXT_BYTES ? shown.slice(0, CONTEXT_BYTES) + "\u2026" : shown;
  }

  // The lines around some line numbers of one log (numbers count LF, as the scanner's do):
  // {lineNumber: [[number, text], ...]} with CONTEXT_LINES before and after each.
  async function contextOf(source, lineNumbers) {
    var wanted = new Map();
    var last = 0;
    lineNumbers.forEach(function (n) {
      for (var k = Math.max(1, n - CONTEXT_LINES); k <= n + CONTEXT_LINES; k++) wanted.set(k, null);
      last = Math.max(last, n + CONTEXT_LINES);
    });
    var opened = await openLog(source);
    var line = 1;
    var partial = [];
    for (;;) {
      var data;
      try {
        data = await opened.read(1 << 20);
      } catch (exc) {
        break;
      }
      if (!data.length) break;
      var at = 0;
      while (at <= data.length) {
        var lf = data.indexOf(10, at);
        var end = lf < 0 ? data.length : lf;
        if (wanted.has(line)) partial.push(data.slice(at, Math.min(end, at + CONTEXT_BYTES * 4)));
        if (lf < 0) break;
        if (wanted.has(line)) {
          wanted.set(line, displayLine(joinParts(partial)));
          partial = [];
        }
        line++;
        at = lf + 1;
      }
      if (line > last) break;
    }
    // The last line, when the log does not end with a line break.
    var tail = joinParts(partial);
    if (tail.length && wanted.has(line)) wanted.set(line, displayLine(tail));
    var out = {};
    lineNumbers.forEach(function (n) {
      var rows = [];
      for (var k = Math.max(1, n - CONTEXT_LINES); k <= n + CONTEXT_LINES; k++) {
        if (wanted.get(k) !== null && wanted.get(k) !== undefined) rows.push([k, wanted.get(k)]);
      }
      out[n] = rows;
    });
    return out;
  }

  function joinParts(parts) {
    if (parts.length === 1) return parts[0];
    if (!parts.length) return new Uint8Array(0);
    var size = parts.reduce(function (s, p) { return s + p.length; }, 0);
    var out = new Uint8Array(size);
    var at = 0;
    parts.forEach(function (p) {
      out.set(p, at);
      at += p.length;
    });
    return out;
  }

  E.countBreaks = countBreaks;
  E.decodedLine = decodedLine;
  E.TEXT_SLICE = 1 << 20; // characters encoded at a time from pasted text
  E.openLog = openLog;
  E.diagnose = diagnose;
  E.contextOf = contextOf;
  E.CONTEXT_LINES = CONTEXT_LINES;
})(typeof self !== "undefined" ? self : globalThis);
