// Readers paste error lines into the search box: "NVRM: Xid (PCI:0000:3b:00): 74, ...".
// lunr reads ":" as a field, "~" "^" "*" "+" "-" as operators, and throws on some of them.
// The theme sends each query to its search worker as {type: 2, data: query}; this wrapper
// turns every query into plain words split exactly as the index was (mkdocs.yml separator).
(function () {
  "use strict";
  var NativeWorker = window.Worker;
  if (!NativeWorker) return;
  var QUERY = 2;

  function normalise(query) {
    return String(query).replace(/[^A-Za-z0-9]+/g, " ").trim();
  }

  function SearchSafeWorker(url, options) {
    var worker = new NativeWorker(url, options);
    if (String(url).indexOf("search") === -1) return worker;
    var post = worker.postMessage.bind(worker);
    worker.postMessage = function (message, transfer) {
      if (message && message.type === QUERY && typeof message.data === "string") {
        message = { type: QUERY, data: normalise(message.data) };
      }
      return transfer === undefined ? post(message) : post(message, transfer);
    };
    return worker;
  }
  SearchSafeWorker.prototype = NativeWorker.prototype;
  window.Worker = SearchSafeWorker;
  window.trainwreckNormaliseQuery = normalise;
})();
