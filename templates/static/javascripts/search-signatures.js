// Search that accepts error text: the header search box (and the home page's) first runs the
// signature matcher on what was typed or pasted, and shows the entries whose error signatures
// match it, on top, as exact hits; the theme's full-text search runs as before underneath.
//
// The matcher is the diagnosis engine's (javascripts/engine/pattern.js and index.js) with the
// site's /signatures.json, loaded the first time a search box is used. The query never leaves
// the browser: matching runs on this page, and the only requests are for those static files.
// Include it on every page, after search-normalise.js:
//   <script src="{{ 'javascripts/search-signatures.js' | url }}" defer></script>
(function () {
  "use strict";
  var MIN_CHARS = 8;
  var MAX_HITS = 8;
  var script = document.currentScript;
  var siteRoot = script ? new URL("../", script.src) : new URL("/", location.href);
  var loading = null;

  function loadScript(path) {
    return new Promise(function (resolve, reject) {
      if (window.TrainwreckEngine && path.indexOf("pattern") >= 0 && window.TrainwreckEngine.Matcher) return resolve();
      if (window.TrainwreckEngine && path.indexOf("index") >= 0 && window.TrainwreckEngine.compileIndex) return resolve();
      var s = document.createElement("script");
      s.src = new URL(path, siteRoot).href;
      s.async = false; // pattern.js before index.js
      s.onload = function () { resolve(); };
      s.onerror = function () { reject(new Error("could not load " + path)); };
      document.head.appendChild(s);
    });
  }

  // The compiled index, loaded once; null when it cannot be had (search still works).
  function index() {
    if (loading === null) {
      loading = Promise.all([
        loadScript("javascripts/engine/pattern.js"),
        loadScript("javascripts/engine/index.js"),
        fetch(new URL("signatures.json", siteRoot).href).then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.json();
        }),
      ])
        .then(function (done) { return window.TrainwreckEngine.compileIndex(done[2]); })
        .catch(function () { return null; });
    }
    return loading;
  }

  // Text as a terminal shows it: colour codes out, lines kept.
  function clean(text) {
    return String(text).replace(/\x1b\[[0-?]*[ -\/]*[@-~]/g, "");
  }

  function render(box, query, hits) {
    while (box.firstChild) box.removeChild(box.firstChild);
    if (!hits.length) {
      box.hidden = true;
      return;
    }
    var title = document.createElement("h2");
    title.textContent = hits.length === 1 ? "Exact match for this error text" : "Exact matches for this error text";
    box.appendChild(title);
    var list = document.createElement("ol");
    hits.slice(0, MAX_HITS).forEach(function (hit) {
      var item = document.createElement("li");
      item.setAttribute("data-entry-id", hit.id);
      var a = document.createElement("a");
      a.href = new URL(hit.entry.path, siteRoot).href;
      a.textContent = hit.entry.title;
      item.appendChild(a);
      var why = document.createElement("span");
      why.className = "tw-sig-why";
      why.textContent = hit.roles.has("defining")
        ? "Its error signature matches" + (hit.lines.length > 1 || query.indexOf("\n") >= 0 ? " line " + hit.lines.join(", ") : "") + "."
        : hit.roles.has("harmless")
          ? "A harmless line that is often blamed matches: the failure is usually elsewhere."
          : "A supporting line of this failure matches.";
      item.appendChild(why);
      list.appendChild(item);
    });
    box.appendChild(list);
    box.hidden = false;
  }

  // Keep what was pasted with its line breaks: a one-line input drops them.
  function attach(input, box) {
    var pasted = null;
    var timer = 0;
    var serial = 0;
    input.addEventListener("paste", function (event) {
      var data = event.clipboardData && event.clipboardData.getData("text");
      pasted = data || null;
    });
    function update() {
      var value = input.value;
      // Chromium pastes line breaks as spaces, other browsers drop them.
      var same =
        pasted !== null &&
        (pasted.replace(/\r\n|[\r\n]/g, " ") === value || pasted.replace(/[\r\n]/g, "") === value);
      var query = same ? pasted : value;
      var mine = ++serial;
      if (query.trim().length < MIN_CHARS) {
        render(box, "", []);
        return;
      }
      index().then(function (compiled) {
        if (mine !== serial || compiled === null) return;
        render(box, query, window.TrainwreckEngine.matchText(compiled, clean(query)));
      });
    }
    function later() {
      clearTimeout(timer);
      timer = setTimeout(update, 80);
    }
    input.addEventListener("input", later);
    input.addEventListener("focus", function () {
      index();
      later();
    });
    if (input.value) later();
  }

  function boot() {
    // The theme's search: hits go above its result list, inside the same scrolling panel.
    var input = document.querySelector(".md-search__input");
    var result = document.querySelector(".md-search-result");
    if (input && result) {
      var box = document.createElement("section");
      box.className = "tw-sig-hits";
      box.setAttribute("aria-label", "Exact signature matches");
      box.setAttribute("aria-live", "polite");
      box.hidden = true;
      result.insertBefore(box, result.firstChild);
      attach(input, box);
      // The theme fills the box from ?q= after start-up, without an input event.
      if (new URL(location.href).searchParams.has("q")) setTimeout(function () {
        if (input.value) input.dispatchEvent(new Event("input"));
      }, 300);
    }
    // The home page's search form.
    var home = document.querySelector("form.tw-search input[type=search]");
    if (home) {
      var hits = document.createElement("section");
      hits.className = "tw-sig-hits tw-search-hits";
      hits.setAttribute("aria-label", "Exact signature matches");
      hits.setAttribute("aria-live", "polite");
      hits.hidden = true;
      home.form.insertAdjacentElement("afterend", hits);
      attach(home, hits);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
