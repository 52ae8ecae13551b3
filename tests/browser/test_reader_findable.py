"""Findable: sitemap, robots.txt, canonical URLs, descriptions, social cards and the feed link.

Every page is read in Chromium from the real build, served at the URL it was built for. Entry
pages (their head, JSON-LD and the rest) are checked one by one in test_reader_entry_pages.py.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from generator.catalog import Catalog

from .searching import search

pytestmark = pytest.mark.browser

# One page of every other kind.
PAGES = ["/", "/categories/", "/categories/gpu-hardware/", "/tags/", "/tags/xid/", "/xid/", "/api/"]

HEAD = """() => {
  const one = (sel, attr) => {
    const e = document.querySelector(sel);
    return e ? e.getAttribute(attr) : null;
  };
  const meta = {};
  for (const m of document.querySelectorAll('meta[property], meta[name]')) {
    meta[m.getAttribute('property') || m.getAttribute('name')] = m.getAttribute('content');
  }
  return {
    canonical: one('link[rel=canonical]', 'href'),
    canonicals: document.querySelectorAll('link[rel=canonical]').length,
    // Resolved against the page: the link itself is relative (see overrides/main.html).
    feed: (document.querySelector('link[rel=alternate][type="application/atom+xml"]') || {}).href,
    title: document.title,
    meta,
  };
}"""

JSON_LD = """() => [...document.querySelectorAll('script[type="application/ld+json"]')]
  .map(s => JSON.parse(s.textContent))"""


def built_pages(site: Path) -> list[str]:
    """Every HTML page of the build, as its path on the site (redirects from old URLs aside)."""
    rels = [
        p.parent.relative_to(site).as_posix()
        for p in site.rglob("index.html")
        if 'http-equiv="refresh"' not in p.read_text()
    ]
    return sorted("/" if rel == "." else f"/{rel}/" for rel in rels)


def test_the_sitemap_lists_every_page_by_its_absolute_url(
    site_dir: tuple[Path, str],
    fetch,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    site, url = site_dir
    status, _, text = fetch(["/sitemap.xml"])["/sitemap.xml"]
    assert status == 200
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [loc.text for loc in ET.fromstring(text).findall("s:url/s:loc", ns)]
    assert sorted(locs) == sorted(url + p for p in built_pages(site))
    for entry in catalog.entries:
        assert f"{url}/failures/{entry.id}/" in locs
    entry_files = list((Path(__file__).parents[2] / "entries").rglob("*.yaml"))
    assert len(catalog.entries) == len(entry_files)


def test_robots_txt_allows_everything_and_names_the_sitemap(site_url: str, fetch) -> None:  # type: ignore[no-untyped-def]
    status, _, text = fetch(["/robots.txt"])["/robots.txt"]
    assert status == 200
    assert text == f"User-agent: *\nAllow: /\n\nSitemap: {site_url}/sitemap.xml\n"


def check_head(head: dict, site_url: str, url: str, *, kind: str) -> None:  # type: ignore[type-arg]
    meta = head["meta"]
    assert head["canonicals"] == 1
    assert head["canonical"] == url
    assert head["feed"] == f"{site_url}/feed.xml"
    assert meta["description"]
    assert meta["og:url"] == url
    assert meta["og:type"] == kind
    assert meta["og:site_name"] == "Trainwreck"
    assert meta["og:title"] and meta["twitter:title"] == meta["og:title"]
    assert meta["og:description"] == meta["twitter:description"] == meta["description"]
    assert meta["og:image"] == meta["twitter:image"]
    assert meta["og:image"] == f"{site_url}/images/social-card.png"
    assert meta["twitter:card"] == "summary_large_image"
    assert meta["og:image:alt"] and meta["twitter:image:alt"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_a_canonical_url_description_social_card_and_feed_link(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
    path: str,
) -> None:
    page.goto(site_url + path)
    head = page.evaluate(HEAD)
    check_head(head, site_url, site_url + path, kind="website")
    assert page.evaluate(JSON_LD) == []
    assert page.errors == []


def test_the_social_card_image_is_served(site_url: str, fetch) -> None:  # type: ignore[no-untyped-def]
    status, kind, _ = fetch(["/images/social-card.png"])["/images/social-card.png"]
    assert (status, kind) == (200, "image/png")


def test_the_404_page_is_kept_out_of_search_engines(site_url: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{site_url}/404.html")
    assert page.locator('meta[name="robots"]').get_attribute("content") == "noindex"
    assert page.locator("h1").inner_text() == "404 - Not found"


def test_the_search_index_holds_entries_and_articles_not_listings(
    site_dir: tuple[Path, str], catalog: Catalog
) -> None:
    """Category and tag pages, the home page's recent list and each entry's related lists only
    repeat other entries' titles; indexed, they came back as extra results for every title.

    Pagefind indexes the pages marked data-pagefind-body and skips data-pagefind-ignore; the
    theme's own index, which every page would download whole, is left empty."""
    root = site_dir[0]
    marked = {
        str(p.parent.relative_to(root)).removeprefix(".") + "/"
        for p in root.rglob("*.html")
        if "data-pagefind-body" in p.read_text()
    }
    articles = {"/", "diagnose/", "benchmark/", "categories/", "tags/", "xid/", "api/"}
    assert marked == articles | {f"failures/{e.id}/" for e in catalog.entries}
    for page in root.rglob("*.html"):
        text = page.read_text()
        lists = re.findall(r"<ul [^>]*data-search-exclude[^>]*>", text)
        assert [u for u in lists if 'data-pagefind-ignore="all"' not in u] == [], page
    theme_index = json.loads((root / "search" / "search_index.json").read_text())
    assert theme_index["docs"] == []
    assert (root / "pagefind" / "pagefind.js").is_file()


def test_searching_a_title_lists_no_listing_pages(page, site_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{site_url}/")
    search(page, "fallen off the bus")
    page.wait_for_timeout(500)  # let the full-text results settle after the first one
    hrefs = page.eval_on_selector_all(".md-search-result__item > a", "as => as.map(a => a.href)")
    # Without the theme's ?h= highlight parameter, keeping the #section.
    paths = [re.sub(r"\?[^#]*", "", href.removeprefix(site_url)) for href in hrefs]
    assert paths and paths[0] == "/failures/xid-79-gpu-fallen-off-bus/"
    # A category's or tag's own page, or a list of links on another page.
    listing = re.compile(r"^/(categories|tags)/[^/]+/|#(related|recent)$")
    assert [p for p in paths if listing.search(p)] == []
