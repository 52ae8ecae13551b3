// Rank, timestamp and host of a log line, and the rank a file's name gives: a port of
// generator/diagnose/lineinfo.py, rule for rule (see docs/diagnose.md, "What it reads from a
// log"). The regular expressions are the Python ones; both sides read ASCII digits and names
// only (Python compiles them with re.ASCII), and times are computed with the same float
// operations in the same order, so both engines order the same lines the same way.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var HEAD_CHARS = 512;
  var MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  var MONTHS = {};
  MONTH_NAMES.forEach(function (name, i) { MONTHS[name] = i + 1; });
  var MONTH_RE = MONTH_NAMES.join("|");
  var LEAP_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  // Seconds from the start of a leap year to each month, so that Feb 29 has a place.
  var MONTH_START = [0, 0];
  for (var m = 2; m <= 12; m++) MONTH_START[m] = MONTH_START[m - 1] + LEAP_DAYS[m - 2] * 86400.0;

  var SRUN = /^ {0,8}(\d{1,6}): /;
  var TORCHRUN = /^\[(?:rank|default)(\d{1,6})\]:/;
  // Open MPI's --tag-output: `[jobid,rank]<stdout>:` (or <stderr>), the world rank second.
  var MPI_TAG = /^\[\d{1,9},(\d{1,6})\]<std(?:out|err)>:/;
  var TEXT_RANK = /(?<![A-Za-z])Rank (\d{1,6})(?![0-9])/;
  var ISO = new RegExp(
    "(?<![0-9])(\\d{4})-(\\d{2})-(\\d{2})[T _](\\d{2}):(\\d{2}):(\\d{2})(?:[.,](\\d{1,9}))?" +
      "(Z|[+-]\\d{2}:?\\d{2}(?![0-9]))?(?![0-9])"
  );
  var GLOG = /(?<![A-Za-z0-9])[IWEF](\d{3,4}|\d{8}) (\d{2}):(\d{2}):(\d{2})\.(\d{1,9})/;
  var DMESG_T = new RegExp(
    "\\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (" + MONTH_RE + ") {1,2}(\\d{1,2}) " +
      "(\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})\\]"
  );
  var SYSLOG = new RegExp(
    "^(" + MONTH_RE + ") {1,2}(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2}) ([A-Za-z0-9][\\w.-]*) "
  );
  var DMESG_RAW = /^\[ *(\d{1,10})\.(\d{1,9})\]/;
  var NCCL_HOST = /([A-Za-z0-9][\w.-]*):\d+:\d+ \[\d+\] /;
  var NCCL_HOST_TAIL = /:\d+ \[\d+\] /;
  var NCCL_HOST_AT_START = /^([A-Za-z0-9][\w.-]*):\d+:\d+ \[\d+\] /;

  // The first n code points of a string (Python's text[:n]).
  function headOf(text, n) {
    if (text.length <= n) return text;
    var count = 0;
    for (var i = 0; i < text.length; i++) {
      if (count === n) return text.slice(0, i);
      var u = text.charCodeAt(i);
      if (u >= 0xd800 && u < 0xdc00 && i + 1 < text.length) {
        var v = text.charCodeAt(i + 1);
        if (v >= 0xdc00 && v < 0xe000) i++;
      }
      count++;
    }
    return text;
  }

  function lstripSpaces(text) {
    var i = 0;
    while (i < text.length && text.charCodeAt(i) === 32) i++;
    return i ? text.slice(i) : text;
  }

  function fraction(digits) {
    return digits ? parseInt(digits, 10) / Math.pow(10, digits.length) : 0.0;
  }

  function valid(month, day, hour, minute, second) {
    return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour < 24 && minute < 60 && second < 61;
  }

  function yearless(month, day, hour, minute, second) {
    return MONTH_START[month] + (day - 1) * 86400.0 + hour * 3600.0 + minute * 60.0 + second;
  }

  function isLeap(year) {
    return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  }

  // Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
  function daysFromCivil(y, m, d) {
    y -= m <= 2 ? 1 : 0;
    var era = Math.floor(y / 400);
    var yoe = y - era * 400;
    var doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
    var doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
    return era * 146097 + doe - 719468;
  }

  function civilFromDays(z) {
    z += 719468;
    var era = Math.floor(z / 146097);
    var doe = z - era * 146097;
    var yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
    var y = yoe + era * 400;
    var doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    var mp = Math.floor((5 * doy + 2) / 153);
    var d = doy - Math.floor((153 * mp + 2) / 5) + 1;
    var month = mp < 10 ? mp + 3 : mp - 9;
    return [month <= 2 ? y + 1 : y, month, d];
  }

  // C's round(): halves away from zero.
  function cRound(x) {
    var r = Math.trunc(x);
    if (Math.abs(x - r) >= 0.5) r += x < 0 ? -1 : 1;
    return r;
  }

  function roundHalfEven(x) {
    var r = cRound(x);
    if (Math.abs(x - r) === 0.5) r = 2.0 * cRound(x / 2.0);
    return r;
  }

  // datetime.fromtimestamp(t, UTC) as CPython computes it: microseconds rounded half to even.
  // Returns [year, month, day, hour, minute, second, microsecond].
  function utcFields(t) {
    var intpart = Math.trunc(t);
    var floatpart = (t - intpart) * 1e6;
    floatpart = roundHalfEven(floatpart);
    if (floatpart >= 1e6) {
      floatpart -= 1e6;
      intpart += 1.0;
    } else if (floatpart < 0) {
      floatpart += 1e6;
      intpart -= 1.0;
    }
    var days = Math.floor(intpart / 86400);
    var rest = intpart - days * 86400;
    var date = civilFromDays(days);
    return [date[0], date[1], date[2], Math.floor(rest / 3600), Math.floor((rest % 3600) / 60), rest % 60, floatpart];
  }

  function pad(n, width) {
    var s = String(n);
    while (s.length < width) s = "0" + s;
    return s;
  }

  function Timestamp(text, absolute, yearlessValue, boot) {
    return { text: text, absolute: absolute, yearless: yearlessValue, boot: boot };
  }

  function wall(year, month, day, hour, minute, second, frac, zone) {
    if (!valid(month, day, hour, minute, second)) return null;
    var seconds = second + fraction(frac);
    var clock = pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) + (frac ? "." + frac : "");
    if (year === null) {
      return Timestamp(
        "--" + pad(month, 2) + "-" + pad(day, 2) + "T" + clock,
        null,
        yearless(month, day, hour, minute, seconds),
        null
      );
    }
    var whole = Math.min(second, 59);
    var monthDays = month === 2 && !isLeap(year) ? 28 : LEAP_DAYS[month - 1];
    if (year < 1 || day > monthDays) return null; // datetime() refuses it
    var when = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + whole;
    var offset = 0.0;
    var suffix = "";
    if (zone) {
      suffix = zone === "Z" ? "Z" : zone.slice(0, 3) + ":" + zone.slice(-2);
      if (zone !== "Z") {
        var sign = zone[0] === "-" ? -1 : 1;
        offset = sign * (parseInt(zone.slice(1, 3), 10) * 3600 + parseInt(zone.slice(-2), 10) * 60);
      }
    }
    var absolute = when + (seconds - whole) - offset;
    var key = yearless(month, day, hour, minute, seconds);
    if (offset) {
      var utc = utcFields(absolute);
      if (utc[0] < 1 || utc[0] > 9999) return null; // out of datetime's range
      key = yearless(utc[1], utc[2], utc[3], utc[4], utc[5] + utc[6] / 1e6);
    }
    return Timestamp(
      pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + clock + suffix,
      absolute,
      key,
      null
    );
  }

  // Python's s[a:b] for the negative indices the glog reader uses.
  function pySlice(s, a, b) {
    var n = s.length;
    var from = a < 0 ? Math.max(0, n + a) : Math.min(a, n);
    var to = b === undefined ? n : b < 0 ? Math.max(0, n + b) : Math.min(b, n);
    return to > from ? s.slice(from, to) : "";
  }

  function int(s) {
    return parseInt(s, 10);
  }

  function fromMatch(kind, g) {
    if (kind === "iso") {
      return wall(int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]), int(g[6]), g[7], g[8]);
    }
    if (kind === "glog") {
      var date = g[1];
      var year = date.length === 8 ? int(date.slice(0, 4)) : null;
      var month = int(pySlice(date, -4, -2));
      var day = int(pySlice(date, -2));
      return wall(year, month, day, int(g[2]), int(g[3]), int(g[4]), g[5], undefined);
    }
    if (kind === "dmesg-T") {
      return wall(int(g[6]), MONTHS[g[1]], int(g[2]), int(g[3]), int(g[4]), int(g[5]), undefined, undefined);
    }
    if (kind === "syslog") {
      return wall(null, MONTHS[g[1]], int(g[2]), int(g[3]), int(g[4]), int(g[5]), undefined, undefined);
    }
    var secondsSinceBoot = int(g[1]) + fraction(g[2]);
    return Timestamp("boot+" + int(g[1]) + "." + g[2] + "s", null, null, secondsSinceBoot);
  }

  var READERS = [
    ["syslog", SYSLOG],
    ["dmesg-raw", DMESG_RAW],
    ["iso", ISO],
    ["dmesg-T", DMESG_T],
    ["glog", GLOG],
  ];
  var ISO_READER = 2;

  // The earliest timestamp in the head of a line, and the host a syslog prefix names.
  function timestamp(rest) {
    var found = [];
    var dashed = rest.indexOf("-") >= 0; // an ISO date holds one
    for (var priority = 0; priority < READERS.length; priority++) {
      if (priority === ISO_READER && !dashed) continue;
      var m = READERS[priority][1].exec(rest);
      if (m !== null) found.push([m.index, priority, READERS[priority][0], m]);
    }
    found.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    for (var i = 0; i < found.length; i++) {
      var stamp = fromMatch(found[i][2], found[i][3]);
      if (stamp !== null) return [stamp, found[i][2] === "syslog" ? found[i][3][6] : null];
    }
    return [null, null];
  }

  // Rank, time and host as the line itself states them (nothing inherited).
  function readLine(text) {
    return readLineBody(text)[0];
  }

  // readLine, and the line's own text after its wrappers and rank prefix (in the head), as
  // lineinfo.py's read_line_body: a paste's wrappers come off first (paste.js). Third, the head
  // without the wrappers (read_line_parts): the whole line's, when the line is no longer.
  function readLineBody(text) {
    var unwrapped = E.unwrap(headOf(text, HEAD_CHARS));
    var head = unwrapped.text;
    var rest = head;
    var prefixRank = null;
    var m = SRUN.exec(rest);
    if (m !== null) {
      prefixRank = int(m[1]);
      rest = rest.slice(m[0].length);
    }
    m = TORCHRUN.exec(lstripSpaces(rest)) || MPI_TAG.exec(lstripSpaces(rest));
    if (m !== null) {
      prefixRank = int(m[1]);
      rest = lstripSpaces(rest).slice(m[0].length);
    }
    if (prefixRank === null) prefixRank = unwrapped.rank;
    var body = rest;
    rest = lstripSpaces(rest);
    var found = timestamp(rest);
    var time = found[0];
    var host = found[1];
    if (time === null && unwrapped.timeText !== null) time = timestamp(unwrapped.timeText)[0];
    if (host === null) {
      m = NCCL_HOST_AT_START.exec(rest);
      if (m === null) {
        // NCCL lines often follow a timestamp or a log-level prefix.
        // (Most lines lack `:N [N] `, which every match holds: the slow search is skipped.)
        m = NCCL_HOST_TAIL.test(rest) ? NCCL_HOST.exec(headOf(rest, 200)) : null;
        if (m !== null && m.index > 0 && " ]".indexOf(rest[m.index - 1]) < 0) m = null;
      }
      host = m !== null ? m[1] : unwrapped.host;
    }
    m = TEXT_RANK.exec(head);
    var textRank = m !== null ? int(m[1]) : null;
    return [{ prefixRank: prefixRank, textRank: textRank, time: time, host: host }, body, head];
  }

  var SUFFIXES = [".gz", ".bz2", ".xz", ".log", ".txt", ".out", ".err"];
  var NAME_RANK = /(?:^|[^A-Za-z])rank[-_.]?(\d{1,6})(?![0-9])/i;
  var DIR_RANK = /^rank[-_.]?(\d{1,6})$/i;
  var DIR_NODE = /^node[-_.]?(\d{1,6})$/i;
  var ATTEMPT = /^attempt_\d+$/;
  var DIR_NUMBER = /^\d{1,6}$/;

  // The rank a log's path names, most specific first (see lineinfo.py's rank_from_path).
  function rankFromPath(path) {
    var parts = path.replace(/\\/g, "/").split("/").filter(function (p) { return p; });
    if (!parts.length) return null;
    var stem = parts[parts.length - 1];
    for (;;) {
      var stripped = false;
      for (var i = 0; i < SUFFIXES.length; i++) {
        var suffix = SUFFIXES[i];
        if (stem.toLowerCase().endsWith(suffix) && stem.length > suffix.length) {
          stem = stem.slice(0, -suffix.length);
          stripped = true;
          break;
        }
      }
      if (!stripped) break;
    }
    var m = NAME_RANK.exec(stem);
    if (m !== null) return int(m[1]);
    var dirs = parts.slice(0, -1);
    for (var j = dirs.length - 1; j >= 0; j--) {
      m = DIR_RANK.exec(dirs[j]);
      if (m !== null) return int(m[1]);
    }
    if (dirs.length >= 2 && DIR_NUMBER.test(dirs[dirs.length - 1]) && ATTEMPT.test(dirs[dirs.length - 2])) {
      return int(dirs[dirs.length - 1]);
    }
    for (var k = dirs.length - 1; k >= 0; k--) {
      m = DIR_NODE.exec(dirs[k]);
      if (m !== null) return int(m[1]);
    }
    return null;
  }

  E.HEAD_CHARS = HEAD_CHARS;
  E.headOf = headOf;
  E.readLine = readLine;
  E.readLineBody = readLineBody;
  E.readLineParts = readLineBody;
  E.rankFromPath = rankFromPath;
})(typeof self !== "undefined" ? self : globalThis);
