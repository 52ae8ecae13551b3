"""A reader reaches any entry from the home page in at most two clicks, with no search: by
category, by tag or by the Xid table.

Chromium opens the home page and takes every link a reader can see on it; then it fetches each
of those pages and reads the links in its content (its <article>), which is where a reader
looks for the entries.
"""

from __future__ import annotations

import pytest

from generator.catalog import Catalog

pytestmark = pytest.mark.browser

CONTENT_LINKS = """async (urls) => {
  const parser = new DOMParser();
  return Object.fromEntries(await Promise.all(urls.map(async (url) => {
    const doc = parser.parseFromString(await (await fetch(url)).text(), 'text/html');
    const base = new URL(url);
    const links = [...doc.querySelectorAll('article a[href]')]
      .map(a => new URL(a.getAttribute('href'), base).href.split('#')[0]);
    return [url, links];
  })));
}"""

VISIBLE_LINKS = """() => [...document.querySelectorAll('a[href]')]
  .filter(a => a.getClientRects().length && getComputedStyle(a).visibility !== 'hidden')
  .map(a => a.href.split('#')[0])"""


def entry_of(url: str, site_url: str) -> str | None:
    prefix = f"{site_url}/failures/"
    return url[len(prefix) :].strip("/") if url.startswith(prefix) else None


def test_every_entry_is_two_clicks_from_home_by_category_by_tag_and_by_xid(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    page.goto(f"{site_url}/")
    first = sorted({u for u in page.evaluate(VISIBLE_LINKS) if u.startswith(site_url)})
    reached: dict[str, set[str]] = {}  # entry id -> the pages one click from home that list it
    pages = [u for u in first if not u.endswith((".json", ".xml"))]  # not the data files
    for url, links in page.evaluate(CONTENT_LINKS, pages).items():
        if (entry := entry_of(url, site_url)) is not None:
            reached.setdefault(entry, set()).add("home")
        for link in links:
            if (entry := entry_of(link, site_url)) is not None:
                reached.setdefault(entry, set()).add(url[len(site_url) :])
    every = {e.id for e in catalog.entries}
    assert every - set(reached) == set()

    def via(prefix: str) -> set[str]:
        return {e for e, where in reached.items() if any(p.startswith(prefix) for p in where)}

    # Each way in covers what it should: every entry has a category and a tag, and every
    # entry with an Xid code is in the Xid table.
    assert via("/categories/") >= every
    assert via("/tags/") >= every
    assert via("/xid/") >= {e.id for e in catalog.entries if e.codes.xid}
    assert page.errors == []
