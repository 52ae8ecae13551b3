// Search that accepts error text: the header search box (and the home page's) first runs the
// signature matcher on what was typed or pasted, and shows the entries whose error signatures
// match it, on top, as exact hits; the theme's full-text search runs as before underneath.
//
// The matcher is the diagnosis engine's (javascripts/engine/pattern.js and index.js), over the
// signature index cut into shards (generator/diagnose/search_shards.py says how): the head
// file signatures/search/index.json is loaded the first time a search box is used, and a query
// loads the shard of each of its words that the head's filter names, so it fetches only the
// signatures that could match it. The query never leaves the browser: matching runs on this
// page, and the only requests are for those static files.
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

  function getJSON(path) {
    return fetch(new URL(path, siteRoot).href).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    });
  }

  // The engine and the head file, loaded once; null when they cannot be had (search still works).
  function head() {
    if (loading === null) {
      loading = Promise.all([
        loadScript("javascripts/engine/pattern.js"),
        loadScript("javascripts/engine/index.js"),
        getJSON("signatures/search/index.json"),
      ])
        .then(function (done) {
          var data = done[2];
          if (data.version !== 1) return null; // a head file this script cannot read
          var raw = atob(data.filter);
          var bits = new Uint8Array(raw.length);
          for (var i = 0; i < raw.length; i++) bits[i] = raw.charCodeAt(i);
          data.bits = bits;
          return data;
        })
        .catch(function () { return null; });
    }
    return loading;
  }

  // search_shards.py's word_hash: 32-bit FNV-1a (words are ASCII, one byte a character).
  function wordHash(word) {
    var h = 0x811c9dc5;
    for (var i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
    return h;
  }

  // The shards a query needs: one per word whose filter bit is set (query_words, shard_of).
  function shardsFor(data, text) {
    var found = text.match(/[A-Za-z0-9_]+/g) || [];
    var bitCount = data.bits.length * 8;
    var wanted = [];
    found.forEach(function (word) {
      var h = wordHash(word);
      var bit = h % bitCount;
      if (!((data.bits[bit >> 3] >> (bit & 7)) & 1)) return;
      var n = h % data.shards;
      if (wanted.indexOf(n) < 0) wanted.push(n);
    });
    return wanted.sort(function (x, y) { return x - y; });
  }

  var shards = Object.create(null); // shard number -> promise of its JSON (null if it failed)
  var compiled = { key: null, index: null };

  function shard(data, n) {
    if (!(n in shards)) {
      var version = data.catalog ? "?v=" + encodeURIComponent(data.catalog) : "";
      shards[n] = getJSON("signatures/search/" + n + ".json" + version).catch(function () {
        delete shards[n]; // tried again by the next query
        return null;
      });
    }
    return shards[n];
  }

  // The compiled index of the head's signatures and those of the query's shards, in the order
  // of /signatures.json (`n`), so the matcher ranks hits as over the whole index.
  function indexFor(text) {
    return head().then(function (data) {
      if (data === null) return null;
      var wanted = shardsFor(data, text);
      return Promise.all(wanted.map(function (n) { return shard(data, n); })).then(function (parts) {
        var key = wanted.join(",");
        if (compiled.key === key) return compiled.index;
        var entries = Object.create(null);
        var signatures = [];
        [data].concat(parts).forEach(function (part) {
          if (part === null) return;
          Object.keys(part.entries).forEach(function (id) {
            var e = part.entries[id];
            // The box shows the title and the link; the engine's index wants these too.
            entries[id] = { title: e.title, path: e.path, category: "", severity: "", quick_fix: "" };
          });
          signatures.push.apply(signatures, part.signatures);
        });
        signatures.sort(function (x, y) { return x.n - y.n; });
        var index = null;
        try {
          index = window.TrainwreckEngine.compileIndex({
            version: window.TrainwreckEngine.INDEX_VERSION,
            max_line_bytes: data.max_line_bytes,
            entries: entries,
            signatures: signatures,
          });
        } catch (exc) {
          return null;
        }
        if (parts.indexOf(null) < 0) compiled = { key: key, index: index };
        return index;
      });
    });
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
      var text = clean(query);
      indexFor(text).then(function (index) {
        if (mine !== serial || index === null) return;
        render(box, query, window.TrainwreckEngine.matchText(index, text));
      });
    }
    function later() {
      clearTimeout(timer);
      timer = setTimeout(update, 80);
    }
    input.addEventListener("input", later);
    input.addEventListener("focus", function () {
      head();
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
