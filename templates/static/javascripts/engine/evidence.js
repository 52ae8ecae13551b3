// Lines that state an error whether or not the catalog knows it: a port of
// generator/diagnose/evidence.py (a traceback's final line or an exception as pasted, a C++
// exception, a failed check, a usage error, a shell that found no program, a fatal signal,
// Slurm's errors, an Xid, NCCL WARN, an `error:` line), with the same anchors and ASCII-only
// patterns.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var KINDS = [
    "python-exception", "cpp-exception", "fatal", "usage", "shell", "signal", "scheduler", "xid",
    "nccl-warn", "error-line", "final-line",
  ];
  var STRONG = new Set(KINDS.slice(0, -3));
  // The line a log ends with, when it reads as an error (evidence.py's ends_in_error).
  var ERROR_WORDS = new RegExp(
    "\\b(?:error|errors|failed|failure|fatal|cannot|can't|unable to|not found|no such|invalid" +
      "|denied|refused|aborted|killed|assertion|exception|crash|crashed|segmentation fault)\\b" +
      "|(?:Error|Exception)\\b|\u672a\u627e\u5230|\u9519\u8bef|\u5931\u8d25",
    "i"
  );
  var NOT_AN_ERROR = new RegExp(
    "warn|deprecat|\\bINFO\\b|^[IWD]\\d{4} |\\bcaught\\b|\\bignor|\\bretry|\\bretrying\\b" +
      "|\\bno errors?\\b|\\berror[ \\t\\n\\r\\f\\v]*[=:][ \\t\\n\\r\\f\\v]*-?\\d" +
      "|:[ \\t\\n\\r\\f\\v]*(?:no|none|0|n/a|false|ok|pass|passed)[ \\t\\n\\r\\f\\v]*$" +
      "|\\?[ \\t\\n\\r\\f\\v]*$",
    "i"
  );

  function endsInError(body) {
    return ERROR_WORDS.test(body) && !NOT_AN_ERROR.test(body);
  }
  // Strong kinds that can make a known-collateral finding collateral (evidence.py's CAUSES).
  var CAUSES = new Set(["python-exception", "cpp-exception", "fatal", "xid"]);
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
  // Python's \s and \S under re.ASCII, which JavaScript's \s is not (it takes Unicode spaces).
  var SP = "[ \\t\\n\\r\\f\\v]";
  var NSP = "[^ \\t\\n\\r\\f\\v]";
  var EXCEPTION_IN_LINE = new RegExp(
    "(?:^|(?<=[ \\t\\n\\r\\f\\v`*>:\\uff1a(\\[\"'\\u300c]))" +
      "(?:[A-Za-z_]\\w*\\.)*(?:[A-Za-z_]\\w*(?:Error|Exception)|Exception)" +
      "(?: \\(see above for traceback\\))?: " + NSP
  );
  // A Python warning that quotes an exception is still a warning (evidence.py's _WARNING).
  var WARNING = /[A-Za-z]Warning: /;
  var CPP_EXCEPTION = new RegExp("(?:^|" + SP + ")what\\(\\): {1,2}" + NSP);
  var FATAL = /\] Check failed: |RET_CHECK failure \(/;
  var USAGE = new RegExp(
    NSP + ": error: (?:unrecognized arguments: |the following arguments are required: " +
      "|argument " + NSP + "|invalid choice: |one of the arguments )" +
      "|^[\\w.-]+\\.py: error: " + NSP
  );
  var SHELL = new RegExp(
    "(?:^|" + SP + ")" + NSP + "+: command not found(?:$|[ \\t\\n\\r\\f\\v\"'`])" +
      "|(?:^|[ \\t\\n\\r\\f\\v\"'`])[^ \\t\\n\\r\\f\\v:\"'`]+: \\d+: [^ \\t\\n\\r\\f\\v:]+: not found(?:$|[\"'`])" +
      "|is not recognized as an internal or external command"
  );
  var SCHEDULER = new RegExp("(?:^|" + SP + ")(?:srun|sbatch|salloc|slurmstepd|slurmd|scontrol): (?:error|fatal): " + NSP);
  var SIGNAL = new RegExp(
    "Fatal Python error: (?:Segmentation fault|Aborted|Bus error|Floating point exception)" +
      "|\\*\\*\\* SIG[A-Z]+ [^\\n]*received by PID" +
      "|Signal \\d{1,3} \\(SIG[A-Z0-9]+\\) received by PID" +
      "|(?:Segmentation fault|Aborted|Bus error|Floating point exception|Illegal instruction)" +
      " \\(core dumped\\)" +
      "|exited on signal \\d{1,3}"
  );
  var XID = /NVRM: Xid \(/;
  var RAISE = /^[ \t\n\r\f\v]*raise [A-Za-z_][\w.]*\((?:f["']|[^\n]*(?:\{|%[sdr(]|\.format\())/;
  var ERROR_LINE = /(?<![A-Za-z])error: [^ \t\n\r\f\v]/;

  function bodyOf(rest) {
    return rest.startsWith(" ") ? rest.slice(1) : rest;
  }

  function isFrame(body) {
    return body.startsWith(" ") || body.startsWith("\t");
  }

  // A traceback's source line that raises: the message's template, not the message
  // (evidence.py's is_raise_line).
  function isRaiseLine(body) {
    return RAISE.test(body);
  }

  function isExceptionLine(body) {
    return EXCEPTION_LINE.test(pyRstrip(body));
  }

  function classify(body, signal) {
    var text = pyRstrip(body);
    var m = EXCEPTION_IN_LINE.exec(text);
    if (m !== null && !WARNING.test(text.slice(0, m.index))) return "python-exception";
    if (CPP_EXCEPTION.test(text)) return "cpp-exception";
    if (FATAL.test(text)) return "fatal";
    if (signal || SIGNAL.test(body)) return "signal";
    if (SCHEDULER.test(text)) return "scheduler"; // before usage: `srun: error: ...` names no script
    if (USAGE.test(text)) return "usage";
    if (SHELL.test(text)) return "shell";
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
  E.isRaiseLine = isRaiseLine;
  E.classify = classify;
  E.endsInError = endsInError;
  E.EVIDENCE_ANCHORS = [
    TRACEBACK, "Error: ", "Exception: ", "(see above for traceback)",
    "what():", "Check failed: ", "RET_CHECK failure",
    ": not found", "command not found", "is not recognized as an internal or external command",
    "Segmentation fault", "Fatal Python error: ", "received by PID", "exited on signal",
    "(core dumped)", "NVRM: Xid", "NCCL WARN", "error: ", "fatal: ",
  ];
})(typeof self !== "undefined" ? self : globalThis);
