// The preview's error banner. Only `trainwreck serve` adds this script to the pages. It reads
// problems.json beside it, so a save that breaks or fixes an entry rewrites that one small file
// and the pages stay as they were: the last good build, with this banner on top.
(function () {
  "use strict";
  var problemsUrl = new URL("problems.json", document.currentScript.src);

  function banner(problems) {
    var box = document.createElement("div");
    box.className = "tw-build-error";
    box.setAttribute("role", "alert");
    // Inline style: the banner must show even when the broken save is a stylesheet.
    box.style.cssText = "border: 2px solid #b71c1c; padding: 0.4em 1em; margin-bottom: 1em";
    var lead = document.createElement("p");
    var strong = document.createElement("strong");
    strong.textContent = "This preview is the last good build.";
    lead.append(strong, " Fix these problems and save again:");
    var list = document.createElement("ul");
    problems.forEach(function (text) {
      var item = document.createElement("li");
      var code = document.createElement("code");
      code.textContent = text;
      item.append(code);
      list.append(item);
    });
    box.append(lead, list);
    return box;
  }

  fetch(problemsUrl, { cache: "no-store" })
    .then(function (response) {
      return response.ok ? response.json() : { problems: [] };
    })
    .then(function (data) {
      if (data.problems.length) {
        var host = document.querySelector("article") || document.body;
        host.insertBefore(banner(data.problems), host.firstChild);
      }
      // Lets a test (or a curious editor) tell "no problems" from "not checked yet".
      document.documentElement.dataset.twPreview = "checked";
    });
})();
