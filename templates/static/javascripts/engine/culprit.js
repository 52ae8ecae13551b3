// The culprit of a Python error: which installed package raised it, which line of the user's own
// code called into it, the names its message gives, and the versions the log prints. A port of
// generator/diagnose/culprit.py: the same expressions (ASCII classes written out, as Python's
// re.ASCII reads them), read from the lines before the error line once the diagnosis chose it.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var LINES_BEFORE = 400;
  var LINE_BYTES = 2048;
  var MAX_VERSIONS = 8;
  var NSP = "[^ \\t\\n\\r\\f\\v]";

  var FRAME = /File "([^"\n]{1,1000})", line (\d{1,9}), in ([\w<>.]{1,200})/g;
  var LIBRARY = /[/\\](?:site|dist)-packages[/\\]([A-Za-z0-9_.\-]{1,200})/;
  var STDLIB = /[/\\]lib[/\\]python\d\.\d{1,2}[/\\]|[/\\]Lib[/\\]|^</;
  var NAMES = [
    ["callable", "([A-Za-z_][\\w.]{0,200})\\(\\) (?:got an unexpected|missing \\d|takes )"],
    ["argument", "got an unexpected keyword argument '(\\w{1,200})'"],
    ["argument", "required (?:positional|keyword-only) arguments?: '(\\w{1,200})'"],
    ["object", "'(\\w{1,200})' object (?:has no attribute|is not)"],
    ["module", "module '([\\w.]{1,200})' has no attribute"],
    ["attribute", "has no attribute '(\\w{1,200})'"],
    ["name", "cannot import name '(\\w{1,200})'"],
    ["module", "cannot import name '\\w{1,200}' from '([\\w.]{1,200})'"],
    ["module", "No module named '?([\\w.]{1,200})"],
    ["name", "name '(\\w{1,200})' is not defined"],
    ["key", "(?:Key|Missing key) '?([\\w.]{1,200})"],
    ["key", "KeyError: '([^'\\n]{1,200})'"],
    ["path", "No such file or directory: '([^'\\n]{1,1000})'"],
    ["path", "can't open file '([^'\\n]{1,1000})'"],
    ["library", "([^ \\t\\n\\r\\f\\v:'`]{1,1000}\\.so[\\w.]{0,20}): undefined symbol"],
    ["symbol", "undefined symbol: +(" + NSP + "{1,1000})"],
  ].map(function (kp) { return [kp[0], new RegExp(kp[1])]; });
  var VERSION = /(?<![\w.\-])([A-Za-z][A-Za-z0-9_.\-]{0,100}?)(?:==| version:? |, version )v?(\d{1,4}\.\d{1,4}(?:\.[0-9A-Za-z]{1,20}){0,3})(?!\w|\.\w)/g;

  function streamBody(line) {
    var read = E.readLineBody(line);
    return [read[0].prefixRank, E.bodyOf(read[1])];
  }

  function packageOf(path) {
    var m = LIBRARY.exec(path);
    if (m === null) return null;
    var top = m[1];
    return top.endsWith(".py") ? top.slice(0, -3) : top;
  }

  function framesOf(text) {
    var out = [];
    FRAME.lastIndex = 0;
    var m;
    while ((m = FRAME.exec(text)) !== null) out.push({ path: m[1], line: parseInt(m[2], 10), function: m[3] });
    return out;
  }

  function tracebackFrames(error, before) {
    var own = streamBody(error);
    var frames = framesOf(own[1]);
    if (frames.length) return frames;
    for (var i = before.length - 1; i >= 0; i--) {
      var read = streamBody(before[i]);
      if (read[0] !== own[0]) continue;
      if (E.pyStrip(read[1]).startsWith(E.TRACEBACK)) return frames;
      frames = framesOf(read[1]).concat(frames);
    }
    return frames;
  }

  // The package the message names: a module's top part, or the folder of a library file under
  // site-packages (culprit.py's _named_package).
  function namedPackage(names) {
    for (var i = 0; i < names.length; i++) {
      if (names[i][0] === "module") return names[i][1].split(".")[0];
      if (names[i][0] === "library" && packageOf(names[i][1]) !== null) return packageOf(names[i][1]);
    }
    return null;
  }

  function namesOf(message) {
    var found = [];
    NAMES.forEach(function (kp) {
      var m = kp[1].exec(message);
      if (m !== null && !found.some(function (f) { return f[0] === kp[0] && f[1] === m[1]; })) found.push([kp[0], m[1]]);
    });
    return found;
  }

  function versionsOf(lines) {
    var found = new Map();
    for (var i = 0; i < lines.length; i++) {
      VERSION.lastIndex = 0;
      var m;
      while ((m = VERSION.exec(lines[i])) !== null) {
        var name = m[1].replace(/[.\-_]+$/, "");
        var key = name.toLowerCase();
        if (found.has(key)) continue;
        found.set(key, m[2]);
        if (found.size === MAX_VERSIONS) return Array.from(found.entries());
      }
    }
    return Array.from(found.entries());
  }

  // The culprit of the error line (as the log has it), from the lines before it; null when
  // nothing is known of it (culprit.py's culprit_of).
  function culpritOf(error, before) {
    var body = streamBody(error)[1];
    var frames = tracebackFrames(error, before);
    var own = [];
    frames.forEach(function (f, i) {
      if (packageOf(f.path) === null && !STDLIB.test(f.path)) own.push(i);
    });
    var calledFrom = own.length ? frames[own[own.length - 1]] : null;
    var after = own.length ? frames.slice(own[own.length - 1] + 1) : frames;
    var library = after.filter(function (f) { return packageOf(f.path) !== null; });
    var raisedIn = library.length ? library[library.length - 1] : null;
    var names = namesOf(body);
    var pkg = null;
    if (raisedIn !== null) pkg = packageOf(raisedIn.path);
    else pkg = namedPackage(names);
    var versions = versionsOf(before.slice(-LINES_BEFORE).concat([error]));
    if (pkg === null && calledFrom === null && !names.length) return null;
    return { package: pkg, raisedIn: raisedIn, calledFrom: calledFrom, names: names, versions: versions };
  }

  E.CULPRIT_LINES_BEFORE = LINES_BEFORE;
  E.CULPRIT_LINE_BYTES = LINE_BYTES;
  E.culpritOf = culpritOf;
})(typeof self !== "undefined" ? self : globalThis);
