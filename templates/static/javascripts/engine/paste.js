// Pastes as people make them: the wrappers a paste puts around a log line (issue quoting `> `,
// bold `**...**`, a line-number gutter `[1824] `, docker compose's `service  | `, pdsh's
// `host: `, kubectl logs --prefix's `[pod/name-3/container] `, a timestamp before the rank
// prefix), taken off before the line is read. A port of generator/diagnose/paste.py, rule for
// rule: every pattern is anchored at the start of the line and ASCII-only, and at most
// MAX_WRAPPERS wrappers are taken off, so both engines read the same line the same way.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var MAX_WRAPPERS = 6;
  var QUOTE = /^ {0,3}>(?: ?>)* ?/;
  var GUTTER = /^\[\d{1,7}\] /;
  var COMPOSE = /^([A-Za-z0-9][\w.-]*) +\| /;
  var KUBECTL = /^\[pod\/([A-Za-z0-9][\w.-]*)\/[\w.-]+\] /;
  var PDSH = /^([a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*): /;
  var LEAD_TIME = /^\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)\]?:? +(?=\[(?:rank|default)\d{1,6}\]:|\[\d{1,9},\d{1,6}\]<std(?:out|err)>:)/;
  var BOLD_OPEN = /^\*\*(?=[^ \t\n\r\f\v*])/;
  var BOLD_CLOSE = /(?<!\*)\*\*[ \t\n\r\f\v]*$/;
  var POD_INDEX = /^.*?-(\d{1,6})(?:-[a-z0-9]{5})?$/;

  // The line without the wrappers a paste put around it, and what those wrappers said:
  // {text, host, rank, timeText}.
  function unwrap(text) {
    var host = null;
    var rank = null;
    var lead = null;
    var bold = false;
    var kept = text.length;
    while (kept > 0 && text.charCodeAt(kept - 1) === 13) kept--; // trailing CRs off
    if (kept < text.length) text = text.slice(0, kept);
    for (var n = 0; n < MAX_WRAPPERS; n++) {
      if (!text) break;
      var first = text[0];
      var m = null;
      if (first === " " || first === ">") {
        m = QUOTE.exec(text);
      } else if (first === "[") {
        m = GUTTER.exec(text);
        if (m === null) {
          m = KUBECTL.exec(text);
          if (m !== null) {
            var pod = POD_INDEX.exec(m[1]);
            if (pod !== null) rank = parseInt(pod[1], 10);
          }
        }
        if (m === null) {
          m = LEAD_TIME.exec(text);
          if (m !== null) lead = m[1];
        }
      } else if (first === "*") {
        m = BOLD_OPEN.exec(text);
        bold = bold || m !== null;
      } else if (first >= "0" && first <= "9") {
        m = LEAD_TIME.exec(text);
        if (m !== null) lead = m[1];
      }
      if (m === null && /^[A-Za-z0-9]/.test(first)) {
        m = COMPOSE.exec(text);
        if (m === null) {
          m = PDSH.exec(text);
          if (m !== null && (/^[0-9]+$/.test(m[1]) || !/[0-9]/.test(m[1]))) {
            m = null; // srun's `3: ` label, or a word such as `error: `
          } else if (m !== null) {
            host = m[1];
          }
        }
      }
      if (m === null || !m[0].length) break;
      text = text.slice(m[0].length);
    }
    if (bold) {
      var close = BOLD_CLOSE.exec(text);
      if (close !== null) text = text.slice(0, close.index);
    }
    return { text: text, host: host, rank: rank, timeText: lead };
  }

  E.unwrap = unwrap;
})(typeof self !== "undefined" ? self : globalThis);
