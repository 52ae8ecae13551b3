// The header search box is the theme's; its answers come from Pagefind's sharded index under
// /pagefind/ (generator/site_search.py), which a search fetches a few shards of, instead of
// the theme's single lunr index that every page downloaded whole.
//
// The theme talks to its search worker with messages: {type: 0, data: index} to set up,
// {type: 1} back when ready, {type: 2, data: query} per query and {type: 3, data: result}
// back (here twice, when an answer's second five results are loaded). This script, loaded
// in the head before the theme's bundle, replaces the worker with an object that speaks the
// same messages and asks Pagefind on this page. The build leaves the theme's index empty;
// when it is not (the preview, `trainwreck serve`), the theme's own worker runs as before.
//
// Readers paste error lines: "NVRM: Xid (PCI:0000:3b:00): 74, ...". Every query becomes plain
// words first (the same split as mkdocs.yml's separator), so punctuation never means syntax,
// for lunr (":" is a field, "~" "^" "*" "+" "-" operators) or for Pagefind (quotes, "-").
(function () {
  "use strict";
  var NativeWorker = window.Worker;
  var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
  // The theme renders the first ten results at once (more only on scrolling); each costs a
  // fragment (5-6 KB gzipped). Five come with the answer, as many as the panel shows at once
  // (three and a half on a 1280x720 screen, four and a half on 1920x1080 or a 390x844
  // phone), the other five when the reader scrolls the results.
  var MAX_RESULTS = 10;
  var canWatch = typeof window.IntersectionObserver === "function";
  var FIRST_RESULTS = canWatch ? 5 : MAX_RESULTS;
  // Typing sends a query per key: only the one left standing this long is searched, so the
  // shards and fragments of every prefix typed on the way are not fetched.
  var SETTLE_MS = 150;
  var MAX_SECTIONS = 4;
  var script = document.currentScript;
  var siteRoot = script ? new URL("../", script.src) : new URL("/", location.href);
  var engine = null;
  var usePagefind = false;

  function normalise(query) {
    return String(query).replace(/[^A-Za-z0-9]+/g, " ").trim();
  }

  // Words every page has: each one's shard lists nearly every page, and grows with the
  // catalog, while it narrows nothing. Left out of a query that has other words.
  var COMMON = {};
  "a an and are as at be by for from has in is it of on or that the this to was with"
    .split(" ").forEach(function (w) { COMMON[w] = true; });
  // A pasted line of twenty words finds no page that has them all; its first words are
  // the message, and the signature matcher above is what names its entry. Each word costs
  // one index chunk (12-15 KB gzipped, at any catalog size): six, not eight, keep a pasted
  // line's first search under 300 KB at 10k entries (docs/benchmarks.md, First search).
  var MAX_WORDS = 6;

  function pagefindQuery(query) {
    var words = normalise(query).split(" ").filter(Boolean);
    var kept = words.filter(function (w) { return !COMMON[w.toLowerCase()]; });
    return (kept.length ? kept : words).slice(0, MAX_WORDS).join(" ");
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // The theme writes a result's title and text as HTML. An excerpt is page text with <mark>
  // around hits: it is parsed in an inert document, and only the marks survive as markup.
  function safeExcerpt(html) {
    var body = new DOMParser().parseFromString("<body>" + String(html || ""), "text/html").body;
    var out = "";
    body.childNodes.forEach(function (node) {
      var text = escapeHtml(node.textContent || "");
      out += node.nodeName === "MARK" ? "<mark>" + text + "</mark>" : text;
    });
    return out;
  }

  // Loaded on the first search (or when the box gets focus), never with the page.
  function pagefind() {
    if (engine === null) {
      engine = import(new URL("pagefind/pagefind.js", siteRoot).href).then(function (pf) {
        return Promise.resolve(pf.options({ baseUrl: siteRoot.pathname, excerptLength: 24 }))
          .then(function () { return pf.init(); })
          .then(function () { return pf; });
      });
      engine.catch(function () { engine = null; });
    }
    return engine;
  }

  function group(score, data, terms) {
    var items = [{
      location: data.url,
      title: escapeHtml((data.meta && data.meta.title) || data.url),
      text: safeExcerpt(data.excerpt),
      score: score,
      terms: terms,
    }];
    (data.sub_results || [])
      .filter(function (sub) { return sub.url.indexOf("#") >= 0; })
      .slice(0, MAX_SECTIONS)
      .forEach(function (sub, i) {
        items.push({
          location: sub.url,
          title: escapeHtml(sub.title),
          text: safeExcerpt(sub.excerpt),
          // The theme folds sections scored below their page under "more matches".
          score: i === 0 ? score : score / 2,
          terms: terms,
        });
      });
    return items;
  }

  // An answer: Pagefind's ranked results and the groups of those whose fragments are loaded.
  function more(answer, count) {
    var next = answer.results.slice(answer.items.length, answer.items.length + count);
    return Promise.all(next.map(function (r) {
      return r.data().then(function (data) { return group(r.score, data, answer.terms); });
    })).then(function (groups) {
      answer.items = answer.items.concat(groups);
      return answer;
    });
  }

  // `stale()` is true once a newer query came: its fragments are then not fetched.
  function search(query, stale) {
    var words = pagefindQuery(query);
    var answer = { results: [], items: [], terms: {} };
    if (!words) return Promise.resolve(answer);
    words.toLowerCase().split(" ").forEach(function (w) { answer.terms[w] = true; });
    return pagefind()
      .then(function (pf) { return pf.search(words); })
      .then(function (found) {
        if (stale()) return answer;
        answer.results = found.results.slice(0, MAX_RESULTS);
        return more(answer, FIRST_RESULTS);
      });
  }

  function PagefindWorker(url, options) {
    var self = new EventTarget();
    var theme = null;
    var serial = 0;
    var timer = 0;
    var watching = [];
    function reply(data) {
      self.dispatchEvent(new MessageEvent("message", { data: data }));
    }
    function unwatch() {
      watching.forEach(function (o) { o.disconnect(); });
      watching = [];
    }

    // The theme renders the list again on each answer: keep the reader's scroll offset,
    // focused result and opened "more on this page", and count the answer's results.
    function show(answer) {
      var list = document.querySelector(".md-search-result__list");
      var box = list && list.parentElement.parentElement;
      var top = box && box.scrollTop;
      var focused = list && list.contains(document.activeElement) && document.activeElement.getAttribute("href");
      var opened = list ? [].map.call(list.children, function (li) {
        return !!li.querySelector("details[open]");
      }) : [];
      reply({ type: RESULT, data: { items: answer.items } });
      if (!list) return;
      var meta = list.previousElementSibling;
      if (meta && answer.items.length < answer.results.length) {
        var other = "# matching documents";
        try {
          other = JSON.parse(document.getElementById("__config").textContent).translations["search.result.other"] || other;
        } catch (exc) {}
        meta.textContent = other.replace("#", String(answer.results.length));
      }
      opened.forEach(function (open, i) {
        var details = open && list.children[i] && list.children[i].querySelector("details");
        if (details) details.open = true;
      });
      box.scrollTop = top;
      [].forEach.call(list.querySelectorAll("a[href]"), function (a) {
        if (a.getAttribute("href") === focused) a.focus({ preventScroll: true });
      });
    }

    // The rest of the answer's fragments, as soon as the reader scrolls the results (the
    // sixth is a result's height away), or at once if the panel has room for all five.
    function watch(answer, current) {
      unwatch();
      var list = document.querySelector(".md-search-result__list");
      if (!canWatch || !list || answer.items.length >= answer.results.length) return;
      var box = list.parentElement.parentElement;
      var loading = false;
      var load = function () {
        if (loading || !current() || list.children.length < answer.items.length) return;
        loading = true;
        more(answer, MAX_RESULTS).then(function () {
          unwatch();
          if (current()) show(answer);
        }, function () { loading = false; });
      };
      var seen = new IntersectionObserver(function (changes) {
        if (changes.some(function (c) { return c.intersectionRatio > 0.98; })) load();
      }, { root: box, threshold: 0.99 });
      var target = function () {
        seen.disconnect();
        if (list.lastElementChild) seen.observe(list.lastElementChild);
      };
      var rendered = new MutationObserver(target);
      rendered.observe(list, { childList: true });
      box.addEventListener("scroll", load, { passive: true });
      watching = [seen, rendered, { disconnect: function () { box.removeEventListener("scroll", load); } }];
      target();
    }

    self.postMessage = function (message) {
      if (theme !== null) {
        if (message && message.type === QUERY && typeof message.data === "string") {
          message = { type: QUERY, data: normalise(message.data) };
        }
        theme.postMessage(message);
        return;
      }
      if (!message) return;
      if (message.type === SETUP) {
        var docs = message.data && message.data.docs;
        if (docs && docs.length) {
          theme = new NativeWorker(url, options);
          theme.addEventListener("message", function (event) { reply(event.data); });
          theme.postMessage(message);
        } else {
          usePagefind = true;
          setTimeout(function () { reply({ type: READY }); }, 0);
        }
      } else if (message.type === QUERY) {
        var mine = ++serial;
        var query = message.data;
        var current = function () { return mine === serial; };
        unwatch();
        clearTimeout(timer);
        timer = setTimeout(function () {
          search(query, function () { return !current(); }).then(
            function (answer) {
              if (!current()) return;
              show(answer);
              watch(answer, current);
            },
            function () { if (current()) reply({ type: RESULT, data: { items: [] } }); }
          );
        }, normalise(query) ? SETTLE_MS : 0);
      }
    };
    self.terminate = function () {
      unwatch();
      if (theme !== null) theme.terminate();
    };
    return self;
  }

  if (NativeWorker) {
    var SearchWorker = function (url, options) {
      if (String(url).indexOf("search") === -1) return new NativeWorker(url, options);
      return PagefindWorker(url, options);
    };
    SearchWorker.prototype = NativeWorker.prototype;
    window.Worker = SearchWorker;
  }
  document.addEventListener("focusin", function (event) {
    var target = event.target;
    if (usePagefind && target && target.classList && target.classList.contains("md-search__input")) {
      pagefind().catch(function () {});
    }
  });
  window.trainwreckNormaliseQuery = normalise;
  window.trainwreckPagefindQuery = pagefindQuery;
})();
