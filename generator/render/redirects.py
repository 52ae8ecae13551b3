"""Redirect pages at the old URLs of renamed entries, so links and bookmarks keep working."""

from __future__ import annotations

from html import escape

from generator.catalog import Catalog


def redirect_page(target: str) -> str:
    """A static page that sends the reader on to `target`, a URL relative to the page."""
    href = escape(target, quote=True)
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        "<title>Moved</title>\n"
        f'<link rel="canonical" href="{href}">\n'
        f'<meta http-equiv="refresh" content="0; url={href}">\n'
        '<meta name="robots" content="noindex">\n'
        "</head><body>\n"
        f'<p>This entry has moved to <a href="{href}">{href}</a>.</p>\n'
        "</body></html>\n"
    )


def redirect_files(catalog: Catalog) -> dict[str, str]:
    """failures/<alias>/index.html -> a redirect to failures/<id>/, for every alias."""
    return {
        f"failures/{alias}/index.html": redirect_page(f"../{entry.id}/")
        for entry in catalog.entries
        for alias in entry.aliases
    }
