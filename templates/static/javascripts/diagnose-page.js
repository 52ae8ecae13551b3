// The /diagnose/ page: paste or drop logs, run the engine in a Web Worker, show the diagnosis.
//
// Privacy: the worker fetches /signatures.json once, when the page opens; after that nothing
// on this page makes a request. Logs go to the worker and the results come back; log text is
// only ever put into the page with textContent, never as markup.
(function () {
  "use strict";

  var SHOWN_ROOT_CAUSES = 3; // the rest are folded
  var PASTED = "pasted log";

  function $(root, name) {
    return root.querySelector("[data-dx-" + name + "]");
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function formatBytes(n) {
    if (n < 1024) return n + " bytes";
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KiB";
    return (n / (1024 * 1024)).toFixed(1) + " MiB";
  }

  function where(hit) {
    var bits = [hit.rank !== null ? "rank " + hit.rank : "no rank"];
    if (hit.host) bits.push("host " + hit.host);
    if (hit.time) bits.push(hit.time);
    bits.push(hit.file + ", line " + hit.line);
    return bits.join(" · ");
  }

  function start(root) {
    var form = $(root, "form");
    var textarea = form.querySelector("textarea");
    var picker = form.querySelector("input[type=file]");
    var drop = $(root, "drop");
    var fileList = $(root, "files");
    var run = $(root, "run");
    var status = $(root, "status");
    var results = $(root, "results");
    var siteRoot = new URL(root.getAttribute("data-root") || "/", location.href);
    var files = [];
    var report = "";
    var lastText = "";
    var pending = 0;
    var started = 0;
    var ready = false;

    function say(text) {
      status.textContent = text;
    }

    var worker;
    try {
      worker = new Worker(root.getAttribute("data-worker"));
    } catch (exc) {
      say("This browser cannot run the diagnosis here (no Web Workers). Use trainwreck diagnose instead.");
      return;
    }
    worker.onerror = function () {
      say("The diagnosis engine failed to start. Reload the page to try again.");
    };
    worker.onmessage = function (event) {
      var m = event.data;
      if (m.type === "ready") {
        ready = true;
        run.disabled = false;
        root.setAttribute("data-ready", "");
        say("Ready: " + m.entries + " failures, " + m.signatures + " signatures.");
      } else if (m.type === "progress" && m.id === pending) {
        say("Reading… " + formatBytes(m.bytes));
      } else if (m.type === "result" && m.id === pending) {
        var seconds = ((performance.now() - started) / 1000).toFixed(2);
        // For benchmarks: the worker's own time, and the time from Diagnose to the result.
        root.setAttribute("data-ms", JSON.stringify({ scan: m.result.ms.scan, worker: m.result.ms.total }));
        run.disabled = false;
        form.removeAttribute("aria-busy");
        show(m.result, seconds);
      } else if (m.type === "error") {
        run.disabled = !ready;
        form.removeAttribute("aria-busy");
        say("Could not diagnose: " + m.message);
      }
    };
    worker.postMessage({ type: "init", indexUrl: new URL(root.getAttribute("data-index"), location.href).href });

    // --- files ------------------------------------------------------------------------------

    function renderFiles() {
      clear(fileList);
      fileList.hidden = !files.length;
      files.forEach(function (file, i) {
        var item = el("li", null, (file.webkitRelativePath || file.name) + " (" + formatBytes(file.size) + ") ");
        var remove = el("button", "tw-dx-link", "remove");
        remove.type = "button";
        remove.setAttribute("aria-label", "Remove " + file.name);
        remove.addEventListener("click", function () {
          files.splice(i, 1);
          renderFiles();
        });
        item.appendChild(remove);
        fileList.appendChild(item);
      });
    }

    function addFiles(list) {
      Array.prototype.forEach.call(list, function (file) {
        var dup = files.some(function (f) {
          return f.name === file.name && f.size === file.size && f.lastModified === file.lastModified;
        });
        if (!dup) files.push(file);
      });
      files.sort(function (a, b) {
        return naturalCompare(a.webkitRelativePath || a.name, b.webkitRelativePath || b.name);
      });
      renderFiles();
    }

    // rank2 before rank10, as the command line orders a folder.
    function naturalCompare(a, b) {
      var x = a.split(/(\d+)/);
      var y = b.split(/(\d+)/);
      for (var i = 0; i < Math.min(x.length, y.length); i++) {
        if (x[i] === y[i]) continue;
        var nx = /^\d+$/.test(x[i]);
        var ny = /^\d+$/.test(y[i]);
        if (nx && ny) return Number(x[i]) - Number(y[i]);
        return x[i] < y[i] ? -1 : 1;
      }
      return x.length - y.length;
    }

    picker.addEventListener("change", function () {
      addFiles(picker.files);
      picker.value = "";
    });
    ["dragenter", "dragover"].forEach(function (type) {
      drop.addEventListener(type, function (event) {
        event.preventDefault();
        drop.classList.add("tw-dx-dragging");
      });
    });
    ["dragleave", "drop"].forEach(function (type) {
      drop.addEventListener(type, function () {
        drop.classList.remove("tw-dx-dragging");
      });
    });
    drop.addEventListener("drop", function (event) {
      event.preventDefault();
      if (event.dataTransfer && event.dataTransfer.files) addFiles(event.dataTransfer.files);
    });
    // A file dropped on the text area is read as a file, not pasted as its name.
    textarea.addEventListener("drop", function (event) {
      if (event.dataTransfer && event.dataTransfer.files && event.dataTransfer.files.length) {
        event.preventDefault();
        addFiles(event.dataTransfer.files);
      }
    });

    $(root, "clear").addEventListener("click", function () {
      textarea.value = "";
      files = [];
      renderFiles();
      results.hidden = true;
      report = "";
      say(ready ? "Cleared." : status.textContent);
      textarea.focus();
    });

    // --- running ----------------------------------------------------------------------------

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (!ready) return;
      var logs = [];
      lastText = textarea.value;
      if (/\S/.test(lastText)) logs.push({ name: PASTED, text: lastText });
      files.forEach(function (file) {
        logs.push({ name: file.webkitRelativePath || file.name, file: file });
      });
      if (!logs.length) {
        say("Paste a log or choose files first.");
        textarea.focus();
        return;
      }
      pending += 1;
      started = performance.now();
      run.disabled = true;
      form.setAttribute("aria-busy", "true");
      say("Reading…");
      worker.postMessage({ type: "diagnose", id: pending, logs: logs, baseUrl: siteRoot.href });
    });

    // --- results ----------------------------------------------------------------------------

    function link(path, text) {
      var a = el("a", null, text);
      a.href = new URL(path, siteRoot).href;
      return a;
    }

    function card(f, first) {
      var node = $(root, "card").content.firstElementChild.cloneNode(true);
      node.setAttribute("data-entry-id", f.id);
      if (!first) node.classList.add("tw-dx-card--also");
      var title = node.querySelector("[data-dx-link]");
      title.textContent = f.title;
      title.href = new URL(f.path, siteRoot).href;
      var severity = node.querySelector("[data-dx-severity]");
      severity.classList.add("tw-sev-" + f.severity);
      severity.appendChild(el("span", "tw-sr", "Severity: "));
      severity.appendChild(document.createTextNode(f.severity));
      node.querySelector("[data-dx-where]").textContent = where(f.first);
      node.querySelector("[data-dx-caption]").textContent =
        "The first matching line, " + f.first.file + " line " + f.first.line + ", with the lines around it:";
      var code = node.querySelector("[data-dx-lines]");
      var rows = f.context.length ? f.context : [[f.first.line, f.first.text]];
      var width = String(rows[rows.length - 1][0]).length;
      var shownMatch = false;
      rows.forEach(function (row) {
        var number = String(row[0]);
        while (number.length < width) number = " " + number;
        var isHit = row[0] === f.first.line && !shownMatch;
        var line = el(isHit ? "mark" : "span", isHit ? "tw-dx-hit" : null);
        line.appendChild(el("span", "tw-dx-ln", number + "  "));
        line.appendChild(document.createTextNode(isHit ? f.first.text : row[1]));
        if (isHit) shownMatch = true;
        code.appendChild(line);
        code.appendChild(document.createTextNode("\n"));
      });
      node.querySelector("[data-dx-fix]").textContent = f.quickFix;
      node.querySelector("[data-dx-seen]").textContent =
        "Seen on " + f.count.toLocaleString("en-US") + " line" + (f.count === 1 ? "" : "s") + ": " +
        (f.rankSummary || "no rank") + ". Confidence: " + f.confidence + ".";
      var more = node.querySelector("[data-dx-more]");
      more.href = title.href;
      more.textContent = "Read the full entry: " + f.title;
      return node;
    }

    // --- what the numbers show: a chart per trend, inline SVG built node by node ----------------

    var SVG = "http://www.w3.org/2000/svg";
    var CHART_W = 480;
    var CHART_H = 120;
    var PAD = 6;

    function svg(tag, attrs) {
      var node = document.createElementNS(SVG, tag);
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
      return node;
    }

    // The trend's metric, one line per rank, the point where the numbers turned marked with a
    // vertical line; a non-finite value sits on the top edge, drawn as a cross.
    function chart(t) {
      var c = t.chart;
      var xs = [];
      var ys = [];
      c.curves.forEach(function (curve) {
        curve.points.forEach(function (p) {
          xs.push(p.x);
          if (typeof p.y === "number") ys.push(p.y);
        });
      });
      if (!xs.length) return null;
      var x0 = Math.min.apply(null, xs);
      var x1 = Math.max.apply(null, xs);
      var y0 = ys.length ? Math.min.apply(null, ys) : 0;
      var y1 = ys.length ? Math.max.apply(null, ys) : 1;
      function sx(x) { return PAD + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (CHART_W - 2 * PAD); }
      function sy(y) {
        if (typeof y !== "number") return PAD;
        return CHART_H - PAD - (y1 === y0 ? 0.5 : (y - y0) / (y1 - y0)) * (CHART_H - 2 * PAD);
      }
      var label = t.title + ": " + c.metric.replace("_", " ") + " by " +
        (c.curves.length === 1 ? "line" : c.curves.length + " ranks") + ", " + t.says;
      var drawing = svg("svg", { class: "tw-dx-chart", viewBox: "0 0 " + CHART_W + " " + CHART_H, role: "img" });
      drawing.setAttribute("aria-label", label);
      drawing.setAttribute("data-dx-chart", c.metric);
      var title = svg("title", {});
      title.textContent = label;
      drawing.appendChild(title);
      c.curves.forEach(function (curve, i) {
        var coords = curve.points.map(function (p) { return sx(p.x).toFixed(1) + "," + sy(p.y).toFixed(1); });
        var line = svg("polyline", { points: coords.join(" "), class: "tw-dx-curve tw-dx-curve-" + (i % 4), fill: "none" });
        line.setAttribute("data-rank", curve.rank === null ? "" : String(curve.rank));
        drawing.appendChild(line);
        curve.points.forEach(function (p) {
          if (typeof p.y !== "number") {
            drawing.appendChild(svg("path", {
              d: "M" + (sx(p.x) - 2) + "," + (PAD - 2) + "l4,4m0,-4l-4,4", class: "tw-dx-nonfinite",
            }));
          }
          if (p.mark) {
            var mark = svg("line", { x1: sx(p.x), x2: sx(p.x), y1: 0, y2: CHART_H, class: "tw-dx-mark" });
            mark.setAttribute("data-dx-mark", String(p.x));
            drawing.appendChild(mark);
          }
        });
      });
      return drawing;
    }

    function trendItem(t) {
      var item = el("li", "tw-dx-trend");
      item.setAttribute("data-kind", t.kind);
      var head = el("p", "tw-dx-trend-head");
      head.appendChild(el("strong", null, t.title.charAt(0).toUpperCase() + t.title.slice(1) + ": "));
      var says = el("span", null, t.says);
      says.setAttribute("data-dx-says", "");
      head.appendChild(says);
      item.appendChild(head);
      item.appendChild(
        el("p", "tw-muted", t.file + ", line " + t.line + (t.rank !== null ? ", rank " + t.rank : "") + (t.time ? ", " + t.time : ""))
      );
      var line = el("pre", "tw-dx-line");
      line.appendChild(el("code", null, t.text));
      item.appendChild(line);
      var drawn = t.chart ? chart(t) : null;
      if (drawn) item.appendChild(drawn);
      if (t.path) {
        var more = el("p");
        more.appendChild(link(t.path, "Read the entry: " + t.entryTitle));
        item.appendChild(more);
      }
      return item;
    }

    function trends(result) {
      var list = $(root, "trends-list");
      clear(list);
      result.trends.forEach(function (t) { list.appendChild(trendItem(t)); });
      $(root, "trends").hidden = !result.trends.length;
    }

    function timeline(result) {
      var section = $(root, "timeline");
      var list = $(root, "ranks");
      clear(list);
      // The worker sends the rows shown (the first 128 ranks), the common clock
      // and its range over every rank's lines, and how many ranks are left out (worker.js).
      var t = result.timeline;
      if (t === null) {
        section.hidden = true;
        return;
      }
      var clock = t.clock;
      var low = t.low;
      var high = t.high;
      $(root, "timeline-note").textContent = clock
        ? "Each rank's first line of each failure, on the log's clock, earliest first."
        : "Each rank's first line of each failure, in the order of the logs (not every line has a time).";
      t.ranks.forEach(function (row) {
        var key = row.key;
        var events = row.events.map(function (e) { return { finding: result.findings[e.finding], hit: e.hit }; });
        var item = el("li", "tw-dx-rank");
        if (key === result.firstFailedRank) item.classList.add("tw-dx-rank--first");
        var label = el("span", "tw-dx-rank-label", key === "none" ? "no rank" : "rank " + key);
        if (key === result.firstFailedRank) {
          label.appendChild(document.createTextNode(" "));
          label.appendChild(el("span", "tw-badge tw-dx-first", "failed first"));
        }
        item.appendChild(label);
        if (clock && high > low) {
          var track = el("span", "tw-dx-track");
          track.setAttribute("aria-hidden", "true");
          events.forEach(function (e) {
            var dot = el("span", "tw-dx-dot tw-dx-dot--" + e.finding.role);
            dot.style.left = ((100 * (e.hit.clock[clock] - low)) / (high - low)).toFixed(2) + "%";
            dot.title = e.finding.title + (e.hit.time ? " at " + e.hit.time : "");
            track.appendChild(dot);
          });
          item.appendChild(track);
        }
        var steps = el("ol", "tw-dx-events");
        events
          .slice()
          .sort(function (a, b) {
            if (clock) return a.hit.clock[clock] - b.hit.clock[clock] || a.hit.fileIndex - b.hit.fileIndex;
            return a.hit.fileIndex - b.hit.fileIndex || a.hit.line - b.hit.line;
          })
          .forEach(function (e) {
            var step = el("li", "tw-dx-event tw-dx-event--" + e.finding.role);
            if (e.hit.time) step.appendChild(el("time", "tw-dx-time", e.hit.time));
            step.appendChild(document.createTextNode(" " + e.finding.title + " "));
            step.appendChild(el("span", "tw-muted", "(" + e.finding.role.replace("-", " ") + ", " + e.hit.file + ":" + e.hit.line + ")"));
            steps.appendChild(step);
          });
        item.appendChild(steps);
        list.appendChild(item);
      });
      if (t.more > 0) {
        list.appendChild(el("li", "tw-muted", t.more + " more ranks not shown."));
      }
      section.hidden = false;
    }

    function show(result, seconds) {
      report = result.markdown;
      var summary = $(root, "summary");
      clear(summary);
      if (result.firstFailure) {
        var strong = el("strong", "tw-dx-first-rank", "First failed rank: " + result.firstFailedRank);
        strong.setAttribute("data-dx-first-rank", String(result.firstFailedRank));
        summary.appendChild(strong);
        summary.appendChild(
          document.createTextNode(
            (result.firstFailure.time ? ", at " + result.firstFailure.time : "") +
              " (" + result.firstFailure.file + ", line " + result.firstFailure.line + "). "
          )
        );
      }
      if (result.launcher) {
        var said = el("span", "tw-dx-launcher", result.launcher + ". ");
        said.setAttribute("data-dx-launcher", "");
        summary.appendChild(said);
      }
      summary.appendChild(document.createTextNode(result.statsLine + " in " + seconds + " s."));
      result.notes.forEach(function (note) {
        summary.appendChild(el("span", "tw-muted tw-dx-note", " Note: " + note + "."));
      });

      // Text, never markup: the culprit's paths and names come from the log.
      $(root, "culprit").hidden = !result.culprit;
      $(root, "culprit-text").textContent = result.culprit || "";

      var roots = $(root, "roots");
      clear(roots);
      var rootCauses = result.findings.filter(function (f) { return f.role === "root-cause"; });
      var more = null;
      rootCauses.forEach(function (f, i) {
        if (i === SHOWN_ROOT_CAUSES) {
          more = el("details", "tw-dx-more");
          var rest = rootCauses.length - SHOWN_ROOT_CAUSES;
          more.appendChild(el("summary", null, rest + " more root cause" + (rest === 1 ? "" : "s") + ", later in the log"));
          roots.appendChild(more);
        }
        (more || roots).appendChild(card(f, i === 0));
      });
      $(root, "nomatch").hidden = rootCauses.length > 0;
      var unknown = result.unrecognized[0];
      $(root, "unrecognized").hidden = !unknown || rootCauses.length > 0;
      if (unknown) {
        $(root, "unrecognized-kind").textContent = unknown.words;
        $(root, "unrecognized-where").textContent = where(unknown.hit);
        $(root, "unrecognized-line").textContent = unknown.hit.text;
      }

      var collateral = result.findings.filter(function (f) { return f.role === "collateral"; });
      var details = $(root, "collateral");
      var list = $(root, "collateral-list");
      clear(list);
      collateral.forEach(function (f) {
        var item = el("li", "tw-dx-collateral-item");
        item.setAttribute("data-entry-id", f.id);
        item.appendChild(link(f.path, f.title));
        var causes = f.causedBy.map(function (c) { return c.title; }).join(", ");
        item.appendChild(
          el(
            "span",
            "tw-muted",
            " — caused by " + causes + "; " + f.count.toLocaleString("en-US") + " line" +
              (f.count === 1 ? "" : "s") + ": " + (f.rankSummary || "no rank") + "; first " + where(f.first)
          )
        );
        list.appendChild(item);
      });
      details.hidden = !collateral.length;
      details.open = false;
      $(root, "collateral-summary").textContent =
        "Collateral: " + collateral.length + " more failure" + (collateral.length === 1 ? "" : "s") +
        " caused by the root cause";

      trends(result);

      var harmless = result.findings.filter(function (f) { return f.role === "not-the-cause"; });
      var harmlessList = $(root, "harmless-list");
      clear(harmlessList);
      harmless.forEach(function (f) {
        var item = el("li", "tw-dx-harmless-item");
        item.setAttribute("data-entry-id", f.id);
        item.appendChild(link(f.path, f.title));
        item.appendChild(
          el(
            "span",
            "tw-muted",
            " — " + f.count.toLocaleString("en-US") + " line" + (f.count === 1 ? "" : "s") +
              "; first " + where(f.first)
          )
        );
        harmlessList.appendChild(item);
      });
      $(root, "harmless").hidden = !harmless.length;

      var problems = $(root, "problems");
      clear(problems);
      result.problems.forEach(function (p) {
        problems.appendChild(el("li", "tw-dx-problem", p.file + ": " + p.message));
      });
      problems.hidden = !result.problems.length;

      timeline(result);
      $(root, "copied").textContent = "";
      results.hidden = false;
      say(
        rootCauses.length
          ? "Done: " + rootCauses.length + " root cause" + (rootCauses.length === 1 ? "" : "s") + " found."
          : "Done: no known failure matched."
      );
      var heading = results.querySelector("#diagnosis");
      if (heading) heading.focus({ preventScroll: false });
    }

    // --- copy and search --------------------------------------------------------------------

    function copyText(text) {
      if (navigator.clipboard && navigator.clipboard.writeText) {
        return navigator.clipboard.writeText(text).catch(function () { return fallbackCopy(text); });
      }
      return fallbackCopy(text);
    }

    function fallbackCopy(text) {
      return new Promise(function (resolve, reject) {
        var area = el("textarea", "tw-sr");
        area.value = text;
        area.setAttribute("readonly", "");
        document.body.appendChild(area);
        area.select();
        var ok = false;
        try {
          ok = document.execCommand("copy");
        } catch (exc) {
          ok = false;
        }
        document.body.removeChild(area);
        if (ok) resolve();
        else reject(new Error("copy refused"));
      });
    }

    $(root, "copy").addEventListener("click", function () {
      var note = $(root, "copied");
      copyText(report).then(
        function () { note.textContent = "Copied the report (Markdown) to the clipboard."; },
        function () { note.textContent = "The browser refused to copy; select the text and copy it by hand."; }
      );
    });

    // The first line that looks like an error, for the full-text search.
    function errorLine(text) {
      var lines = text.split(/\r\n|\r|\n/);
      var strong = /[A-Za-z](Error|Exception)\b|\berror:|\bFATAL\b|\bfatal error\b|\bFAILED\b/;
      var weak = /error|fail|fatal|abort|killed|timed out/i;
      var pick =
        lines.find(function (l) { return strong.test(l) && !/^\s*Traceback/.test(l); }) ||
        lines.find(function (l) { return weak.test(l); }) ||
        lines.find(function (l) { return l.trim(); }) ||
        "";
      return pick.trim().slice(0, 200);
    }

    $(root, "search").addEventListener("click", function () {
      var query = errorLine(lastText);
      var toggle = document.getElementById("__search");
      var input = document.querySelector(".md-search__input");
      if (!toggle || !input) return;
      toggle.checked = true;
      toggle.dispatchEvent(new Event("change"));
      input.value = query;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      input.focus();
    });
  }

  function boot() {
    var root = document.querySelector("[data-tw-diagnose]");
    if (root) start(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
