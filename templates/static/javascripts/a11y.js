// Accessibility touches for parts of the page that the theme's own script builds:
// - the search overlay is a dialog, and a dialog needs a name;
// - each code block's copy button sits in a <nav>, which would make every code block a
//   navigation landmark; the buttons stay, the landmarks go.
(function () {
  "use strict";

  function unlandmark(root) {
    root.querySelectorAll(".md-code__nav:not([role])").forEach(function (nav) {
      nav.setAttribute("role", "none");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var search = document.querySelector('.md-search[role="dialog"]');
    if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search");
    unlandmark(document);
    new MutationObserver(function () {
      unlandmark(document);
    }).observe(document.body, { childList: true, subtree: true });
  });
})();
