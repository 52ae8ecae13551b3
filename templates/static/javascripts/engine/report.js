// A diagnosis as Markdown for an issue, with what could identify a machine or a person masked.
// The layout follows the Markdown report of `trainwreck diagnose --format markdown`
// (generator/diagnose/report.py); the masking is the browser's own, because a pasted log is
// often shared further than a local one.
(function (root) {
  "use strict";
  var E = root.TrainwreckEngine || (root.TrainwreckEngine = {});

  var SHOWN_CHARS = 400;
  var CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
  // Python's str.isspace(), for rstrip().
  var PY_SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/;

  // Log text made safe and short for a Markdown code block (report.py's shown()).
  function shown(text) {
    text = text.replace(PY_SPACE, "").replace(CONTROLS, "\ufffd");
    var head = E.headOf(text, SHOWN_CHARS);
    return head.length < text.length ? head + "\u2026" : text;
  }

  function plural(n, word) {
    return n.toLocaleString("en-US") + " " + word + (n === 1 ? "" : "s");
  }

  function ranges(ranks) {
    var parts = [];
    var start = ranks[0];
    var prev = ranks[0];
    ranks.slice(1).concat([null]).forEach(function (r) {
      if (r !== null && r === prev + 1) {
        prev = r;
        return;
      }
      parts.push(start === prev ? String(start) : start + "-" + prev);
      if (r !== null) start = prev = r;
    });
    return parts.join(", ");
  }

  // `ranks 0-2, 4 (1 line each), rank 3 (4 lines), no rank (2 lines)`.
  function rankSummary(rankCounts) {
    var groups = new Map();
    rankCounts.forEach(function (rc) {
      if (rc[0] === null) return;
      if (!groups.has(rc[1])) groups.set(rc[1], []);
      groups.get(rc[1]).push(rc[0]);
    });
    var parts = Array.from(groups.entries())
      .sort(function (a, b) { return a[1][0] - b[1][0]; })
      .map(function (g) {
        var word = g[1].length === 1 ? "rank" : "ranks";
        var each = g[1].length > 1 ? " each" : "";
        return word + " " + ranges(g[1]) + " (" + plural(g[0], "line") + each + ")";
      });
    rankCounts.forEach(function (rc) {
      if (rc[0] === null) parts.push("no rank (" + plural(rc[1], "line") + ")");
    });
    return parts.join(", ");
  }

  function statsLine(stats) {
    return plural(stats.files, "file") + ", " + plural(stats.lines, "line") + " read";
  }

  // What the report says of the lines it shows cut (report.py's text_notes).
  function textNotes(diagnosis) {
    var hits = diagnosis.findings.map(function (f) { return f.first; });
    diagnosis.unrecognized.forEach(function (u) { hits.push(u.hit); });
    diagnosis.witnesses.forEach(function (w) { hits.push(w.hit); });
    var cut = [];
    hits.forEach(function (h) {
      if (h.cut && cut.indexOf(h) < 0) cut.push(h);
    });
    if (!cut.length) return [];
    var n = cut.length;
    var left = 0;
    cut.forEach(function (h) { left += h.cut; });
    var chars = E.TEXT_CHARS.toLocaleString("en-US");
    return [
      plural(n, "reported line") + (n === 1 ? " is" : " are") + " longer than " + chars +
        " characters; the report keeps the first " + chars + " of " + (n === 1 ? "it" : "each") +
        " (" + plural(left, "character") + " left off; in the JSON such a text ends in \u2026)",
    ];
  }

  function statsNotes(stats, maxLineBytes) {
    if (!stats.longLines) return [];
    var cap = maxLineBytes.toLocaleString("en-US");
    return [
      plural(stats.longLines, "line") + " longer than " + cap + " bytes matched on their first " +
        cap + " bytes (" + plural(stats.skippedBytes, "byte") + " not matched)",
    ];
  }

  function confidence(f) {
    if (f.fromTrend) return "medium (read from progress lines or stack dumps; no line states an error)";
    if (f.contextLines) return "high (with " + plural(f.contextLines, "supporting line") + ")";
    return "medium (defining lines only)";
  }

  // --- masking ------------------------------------------------------------------------------

  // Documentation hosts that log lines link to: naming them identifies nobody.
  var PUBLIC_HOSTS = [
    "pytorch.org", "github.com", "githubusercontent.com", "nvidia.com", "huggingface.co",
    "python.org", "readthedocs.io", "tensorflow.org", "microsoft.com", "deepspeed.ai",
    "google.com", "stackoverflow.com", "docker.com", "ubuntu.com", "kernel.org",
  ];
  var TLDS =
    "com|net|org|io|ai|dev|cloud|app|co|us|uk|de|fr|nl|jp|cn|kr|in|eu|ch|se|ca|au|ru|edu|gov|mil|int|" +
    "internal|local|localdomain|lan|corp|home|cluster|svc|intra|intranet|private|priv|test|example|site|host";

  var RULES = [
    ["email", /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g],
    // Secrets given as key=value or key: value: the value goes.
    [
      "token",
      /(?<=\b(?:[A-Za-z0-9]+_)*(?:token|secret|password|passwd|pwd|api_?key|access_?key|auth|credentials?)\s*[=:]\s*["']?)[^\s"',;]{4,}/gi,
    ],
    ["token", /(?<=\bBearer\s+)[A-Za-z0-9._~+\/=-]{8,}/g],
    [
      "token",
      /\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/g,
    ],
    ["ip", /(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\w]|\.\d)/g],
    ["ip", /(?<![0-9A-Fa-f:.])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![\w:])/g],
    ["ip", /(?<![0-9A-Fa-f:.])(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?::(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*)?(?![\w:])/g],
    ["host", /(?<=\b(?:MASTER_ADDR|HOSTNAME|SLURMD_NODENAME|SLURM_NODELIST|hostname|host|node|nodename|master_addr)\s*[=:]\s*["']?)[A-Za-z0-9][A-Za-z0-9.\-\[\],]*/g],
    ["host", new RegExp("(?<![\\w.@-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+(?:" + TLDS + ")(?![\\w-]|\\.\\w)", "gi")],
    // name:port, where the name has a digit or hyphen and a letter that is not a hex digit
    // (node-17:29500, worker4:1234; not PCI:0000:3b:00, not cuda:0).
    ["host", /(?<![\w.-])(?!0[xX][0-9A-Fa-f]+:)(?=[A-Za-z0-9-]*[G-Zg-z])(?=[A-Za-z0-9-]*[0-9-])[A-Za-z0-9][A-Za-z0-9-]*(?=:[1-9]\d{1,4}(?!\d))/g],
    // Long strings of letters and digits, both present: keys, hashes, ids.
    ["token", /(?<![A-Za-z0-9_+-])(?=[A-Za-z0-9_+-]*[0-9])(?=[A-Za-z0-9_+-]*[A-Za-z])[A-Za-z0-9_+-]{32,}(?![A-Za-z0-9_+-])/g],
  ];

  function isPublicHost(name) {
    var lower = name.toLowerCase();
    return PUBLIC_HOSTS.some(function (h) {
      return lower === h || lower.endsWith("." + h);
    });
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  // Replaces IP addresses, host names, e-mail addresses and token-like strings with numbered
  // placeholders (<ip-1>, <host-2>, ...): the same value gets the same placeholder everywhere.
  function Masker(knownHosts) {
    this.seen = new Map();
    this.counts = { ip: 0, host: 0, email: 0, token: 0 };
    var hosts = Array.from(knownHosts || [])
      .filter(function (h) { return h && h.length >= 2 && !isPublicHost(h); })
      .sort(function (a, b) { return b.length - a.length; });
    this.known = hosts.length
      ? new RegExp("(?<![A-Za-z0-9.-])(?:" + hosts.map(escapeRegExp).join("|") + ")(?![A-Za-z0-9-]|\\.[A-Za-z0-9])", "g")
      : null;
  }

  Masker.prototype.placeholder = function (kind, value) {
    var key = kind + "\u0000" + value;
    if (!this.seen.has(key)) {
      this.counts[kind] += 1;
      this.seen.set(key, "<" + kind + "-" + this.counts[kind] + ">");
    }
    return this.seen.get(key);
  };

  Masker.prototype.mask = function (text) {
    if (text === null || text === undefined) return text;
    text = String(text);
    var spans = [];
    function free(start, end) {
      return spans.every(function (s) { return end <= s[0] || start >= s[1]; });
    }
    var rules = this.known ? [RULES[0], ["host", this.known]].concat(RULES.slice(1)) : RULES;
    rules.forEach(function (rule) {
      var regex = rule[1];
      regex.lastIndex = 0;
      var m;
      while ((m = regex.exec(text)) !== null) {
        if (!m[0].length) {
          regex.lastIndex++;
          continue;
        }
        var start = m.index;
        var end = start + m[0].length;
        if (rule[0] === "host" && isPublicHost(m[0])) continue;
        if (rule[0] === "ip" && m[0].indexOf(":") >= 0 && m[0].replace(/[^0-9A-Fa-f]/g, "").length < 2) continue;
        if (free(start, end)) spans.push([start, end, rule[0]]);
      }
    });
    if (!spans.length) return text;
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var out = "";
    var at = 0;
    spans.forEach(function (s) {
      out += text.slice(at, s[0]) + this.placeholder(s[2], text.slice(s[0], s[1]));
      at = s[1];
    }, this);
    return out + text.slice(at);
  };

  // --- Markdown -----------------------------------------------------------------------------

  function longestRun(text) {
    var longest = 0;
    (text.match(/`+/g) || []).forEach(function (run) { longest = Math.max(longest, run.length); });
    return longest;
  }

  function codeSpan(text) {
    var fence = "`".repeat(longestRun(text) + 1);
    var pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
    return fence + pad + text + pad + fence;
  }

  function codeBlock(text, indent) {
    var fence = "`".repeat(Math.max(3, longestRun(text) + 1));
    return [indent + fence + "text", indent + text, indent + fence];
  }

  function mdText(text) {
    return text.replace(/([\\`*_\[\]<>|#])/g, "\\$1");
  }

  function entryUrl(entry, baseUrl) {
    return baseUrl ? baseUrl.replace(/\/+$/, "") + "/" + entry.path : entry.path;
  }

  function where(hit, masker) {
    var bits = [hit.rank !== null ? "rank " + hit.rank : "no rank"];
    if (hit.host) bits.push("host " + masker.mask(hit.host));
    if (hit.time) bits.push(hit.time.text);
    return bits.join(", ");
  }

  var KIND_WORDS = {
    "python-exception": "a Python exception",
    "cpp-exception": "a C++ exception",
    fatal: "a failed internal check",
    usage: "a command-line usage error",
    shell: "a program the shell could not find",
    signal: "a fatal signal",
    scheduler: "a Slurm error",
    xid: "a GPU Xid error",
    "nccl-warn": "an NCCL warning",
    "error-line": "an error line",
    "final-line": "the line the log ends with, which reads as an error",
  };

  // `trainer.py:140 in train`, the path's last `parts` parts (0: all of it) (report.py's _frame).
  function frameText(frame, parts) {
    var path = frame.path;
    if (parts) path = path.split(/[/\\]/).slice(-parts).join("/");
    return path + ":" + frame.line + " in " + frame.function;
  }

  // report.py's culprit_says: `transformers raised it (transformers/trainer.py:2474 in train),
  // called from train.py:140 in main; argument gamma; transformers 4.46.0`.
  function culpritSays(c) {
    var said = [];
    if (c.package !== null && c.raisedIn !== null) said.push(c.package + " raised it (" + frameText(c.raisedIn, 2) + ")");
    else if (c.package !== null) said.push("in " + c.package);
    if (c.calledFrom !== null) said.push("called from " + frameText(c.calledFrom, 0));
    var parts = [said.join(", ")];
    c.names.forEach(function (n) { parts.push(n[0] + " " + n[1]); });
    c.versions.forEach(function (v) { parts.push(v[0] + " " + v[1]); });
    return parts.filter(function (p) { return p.length; }).join("; ");
  }

  // `torchrun reports rank 2 failed: exit code -11: SIGSEGV, ...` (report.py's witness_says).
  function witnessSays(w) {
    if (w.rank === null) return w.launcher + " reports the process failed: " + E.exitMeaning(w.code, w.signal);
    var local = w.local ? " (a local rank)" : "";
    return w.launcher + " reports rank " + w.rank + local + " failed: " + E.exitMeaning(w.code, w.signal);
  }

  // What to say when the catalog has no entry (report.py's unrecognized_steps).
  function unrecognizedSteps(diagnosis, masker) {
    if (!diagnosis.unrecognized.length) {
      return ["If this log shows a failure the catalog lacks, add an entry (docs/entry-format.md)."];
    }
    var u = diagnosis.unrecognized[0];
    return [
      "The catalog has no entry for this error. To add one:",
      "  1. trainwreck new <id> --category <category> --from-log " + masker.mask(u.hit.file),
      "  2. write the prose, check the drafted signature against the upstream source,",
      "     and run trainwreck validate until it reports nothing",
      "  (docs/entry-format.md describes every field)",
    ];
  }

  function mdCauses(causedBy) {
    return causedBy.map(function (c) { return c === E.UNRECOGNIZED ? "an unrecognised error" : codeSpan(c); }).join(", ");
  }

  // The Markdown of report.py's markdown_report, with log-derived text masked.
  function markdownReport(diagnosis, stats, baseUrl, options) {
    options = options || {};
    var masker = new Masker(options.hosts);
    var notes = options.notes || [];
    var out = ["## Trainwreck diagnosis", ""];
    var first = diagnosis.firstFailure;
    if (first !== null) {
      var when = first.time ? " at " + first.time.text : "";
      out.push(
        "**First failed rank: " + diagnosis.firstFailedRank + "**" + when + " (" +
          codeSpan(masker.mask(first.file) + ":" + first.line) + ")"
      );
      out.push("");
    }
    if (diagnosis.firstWitness) {
      out.push("Launcher: " + mdText(masker.mask(witnessSays(diagnosis.firstWitness))) + ".");
      out.push("");
    }
    var roots = diagnosis.findings.filter(function (f) { return f.role === "root-cause"; });
    if (!roots.length) {
      out.push("No known failure matched.");
      out.push("");
      diagnosis.unrecognized.forEach(function (u) {
        out.push("### Unrecognised: " + KIND_WORDS[u.kind]);
        out.push("");
        out.push(
          "- First seen: " + codeSpan(masker.mask(u.hit.file) + ":" + u.hit.line) + " (" +
            mdText(where(u.hit, masker)) + ")"
        );
        out.push.apply(out, codeBlock(shown(masker.mask(u.hit.text)), "  "));
        if (diagnosis.culprit && u.hit === diagnosis.explained) {
          out.push("- Culprit: " + mdText(masker.mask(culpritSays(diagnosis.culprit))));
        }
        out.push("");
      });
      if (diagnosis.unrecognized.length) {
        unrecognizedSteps(diagnosis, masker).forEach(function (step) { out.push(mdText(step)); });
        out.push("");
      }
    }
    var collateral = diagnosis.findings.filter(function (f) { return f.role === "collateral"; });
    roots.forEach(function (f) {
      var link = "[" + mdText(f.entry.title) + "](" + entryUrl(f.entry, baseUrl) + ")";
      out.push("### Root cause: " + link);
      out.push("");
      out.push("- Entry: " + codeSpan(f.id) + ", severity " + f.entry.severity);
      out.push(
        "- First seen: " + codeSpan(masker.mask(f.first.file) + ":" + f.first.line) + " (" +
          mdText(where(f.first, masker)) + ")"
      );
      out.push.apply(out, codeBlock(shown(masker.mask(f.first.text)), "  "));
      if (diagnosis.culprit && f.first === diagnosis.explained) {
        out.push("- Culprit: " + mdText(masker.mask(culpritSays(diagnosis.culprit))));
      }
      out.push("- Seen: " + plural(f.count, "line") + ": " + rankSummary(f.rankCounts));
      out.push("- Confidence: " + confidence(f));
      out.push("- Fix: " + mdText(f.entry.quickFix));
      out.push("");
    });
    if (collateral.length) {
      out.push("### Collateral");
      out.push("");
      out.push("| failure | caused by | lines | first seen |");
      out.push("| --- | --- | --- | --- |");
      collateral.forEach(function (f) {
        var link = "[" + mdText(f.entry.title) + "](" + entryUrl(f.entry, baseUrl) + ")";
        out.push(
          "| " + link + " " + codeSpan(f.id) + " | " + mdCauses(f.causedBy) + " | " +
            plural(f.count, "line") + ": " + rankSummary(f.rankCounts) + " | " +
            codeSpan(masker.mask(f.first.file) + ":" + f.first.line) + " (" +
            mdText(where(f.first, masker)) + ") |"
        );
      });
      out.push("");
    }
    var notCause = diagnosis.findings.filter(function (f) { return f.role === "not-the-cause"; });
    if (notCause.length) {
      out.push("### Not the cause");
      out.push("");
      out.push("Harmless lines that are often blamed for a failure; look elsewhere.");
      out.push("");
      notCause.forEach(function (f) {
        var link = "[" + mdText(f.entry.title) + "](" + entryUrl(f.entry, baseUrl) + ")";
        out.push(
          "- " + link + " " + codeSpan(f.id) + ": " + plural(f.count, "line") + ", first " +
            codeSpan(masker.mask(f.first.file) + ":" + f.first.line)
        );
      });
      out.push("");
    }
    var trends = diagnosis.trends || [];
    if (trends.length) {
      out.push("### What the progress lines show");
      out.push("");
      trends.forEach(function (t) {
        var title = E.KIND_TITLES[t.kind];
        var place = t.rank !== null ? "rank " + t.rank : "no rank";
        if (t.point.time) place += ", " + t.point.time.text;
        out.push(
          "- " + mdText(title.charAt(0).toUpperCase() + title.slice(1)) + ": " + mdText(E.trendSays(t)) +
            " (" + codeSpan(masker.mask(t.file) + ":" + t.point.line) + ", " + mdText(place) + ")"
        );
        codeBlock(masker.mask(shown(t.point.text)), "  ").forEach(function (l) { out.push(l); });
      });
      out.push("");
    }
    out.push("_" + statsLine(stats) + "._");
    notes.forEach(function (note) { out.push("_Note: " + mdText(masker.mask(note)) + "._"); });
    out.push("_IP addresses, host names, e-mail addresses and token-like strings are masked._");
    return out.join("\n") + "\n";
  }

  E.shown = shown;
  E.witnessSays = witnessSays;
  E.KIND_WORDS = KIND_WORDS;
  E.culpritSays = culpritSays;
  E.plural = plural;
  E.rankSummary = rankSummary;
  E.statsLine = statsLine;
  E.statsNotes = statsNotes;
  E.textNotes = textNotes;
  E.confidence = confidence;
  E.Masker = Masker;
  E.markdownReport = markdownReport;
  E.entryUrl = entryUrl;
})(typeof self !== "undefined" ? self : globalThis);
