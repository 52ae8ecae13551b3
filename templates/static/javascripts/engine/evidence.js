// Lines that state an error whether or not the catalog knows it: a port of
// generator/diagnose/evidence.py (a traceback's final line, a fatal signal, an Xid, NCCL WARN,
// an `error:` line), with the same anchors and ASCII-only patterns.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var KINDS = ["python-exception", "signal", "xid", "nccl-warn", "error-line"];
  var STRONG = new Set(["python-exception", "signal", "xid"]);
  // Strong kinds that can make a known-collateral finding collateral (evidence.py's CAUSES).
  var CAUSES = new Set(["python-exception", "xid"]);
  var TRACEBACK = "Traceback (most recent call last):";
  // Python's str.isspace(), for strip() and rstrip().
  var SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  var TRAILING = new RegExp("[" + SPACE + "]+$");
  var LEADING = new RegExp("^[" + SPACE + "]+");

  function pyRstrip(text) {
    return text.replace(TRAILING, "");
  }

  function pyStrip(text) {
    return pyRstrip(text).replace(LEADING, "");
  }

  var EXCEPTION_LINE = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?::(?: [^\n]*)?)?$/;
  var EXCEPTION_ALONE = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception): [^ \t\n\r\f\v][^\n]*$/;
  var SIGNAL = new RegExp(
    "Fatal Python error: (?:Segmentation fault|Aborted|Bus error|Floating point exception)" +
      "|\\*\\*\\* SIG[A-Z]+ [^\\n]*received by PID" +
      "|Signal \\d{1,3} \\(SIG[A-Z0-9]+\\) received by PID" +
      "|(?:Segmentation fault|Aborted|Bus error|Floating point exception|Illegal instruction)" +
      " \\(core dumped\\)" +
      "|exited on signal \\d{1,3}"
  );
  var XID = /NVRM: Xid \(/;
  var ERROR_LINE = /(?<![A-Za-z])error: [^ \t\n\r\f\v]/;

  function bodyOf(rest) {
    return rest.startsWith(" ") ? rest.slice(1) : rest;
  }

  function isFrame(body) {
    return body.startsWith(" ") || body.startsWith("\t");
  }

  function isExceptionLine(body) {
    return EXCEPTION_LINE.test(pyRstrip(body));
  }

  function classify(body, signal) {
    if (EXCEPTION_ALONE.test(pyRstrip(body))) return "python-exception";
    if (signal || SIGNAL.test(body)) return "signal";
    if (XID.test(body)) return "xid";
    if (body.indexOf("NCCL WARN") >= 0) return "nccl-warn";
    if (ERROR_LINE.test(body)) return "error-line";
    return null;
  }

  E.KINDS = KINDS;
  E.STRONG = STRONG;
  E.CAUSES = CAUSES;
  E.TRACEBACK = TRACEBACK;
  E.pyStrip = pyStrip;
  E.pyRstrip = pyRstrip;
  E.bodyOf = bodyOf;
  E.isFrame = isFrame;
  E.isExceptionLine = isExceptionLine;
  E.classify = classify;
  E.EVIDENCE_ANCHORS = [
    TRACEBACK, "Error: ", "Exception: ", "Segmentation fault", "Fatal Python error: ",
    "received by PID", "exited on signal", "(core dumped)", "NVRM: Xid", "NCCL WARN", "error: ",
  ];
})(typeof self !== "undefined" ? self : globalThis);
