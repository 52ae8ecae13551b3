"""A built site served on loopback (the browser itself comes from tests/conftest.py)."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from generator.catalog import Catalog
from generator.mkdocs_glue import build_site

REPO = Path(__file__).resolve().parents[2]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve_dir(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The real catalog in entries/, built once per test session and served on loopback.

    The server starts first, so the build's site_url (mkdocs.yml reads TRAINWRECK_SITE_URL) is
    the address it is served at: canonical links, the feed and the API's URLs all resolve.
    """
    out = tmp_path_factory.mktemp("site")
    server, url = serve_dir(out)
    saved = os.environ.get("TRAINWRECK_SITE_URL")
    os.environ["TRAINWRECK_SITE_URL"] = url + "/"
    try:
        build_site(REPO / "mkdocs.yml", out)
    finally:
        if saved is None:
            del os.environ["TRAINWRECK_SITE_URL"]
        else:
            os.environ["TRAINWRECK_SITE_URL"] = saved
    yield out, url
    server.shutdown()


@pytest.fixture(scope="session")
def site_url(site_dir: tuple[Path, str]) -> str:
    return site_dir[1]


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The validated entries the site was built from, to check pages and files against."""
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.validation import validate_sources

    sources, unreadable = read_sources(find_entry_files(REPO / "entries"), REPO)
    result = validate_sources(sources)
    assert unreadable == []
    return Catalog.of(result.entries)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """test-artifacts/ (git-ignored): screenshots and reports a person can look at."""
    path = REPO / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


Fetch = Callable[[list[str]], dict[str, tuple[int, str, str]]]


@pytest.fixture()
def fetch(page, site_url: str) -> Fetch:  # type: ignore[no-untyped-def]
    """Fetch site paths from inside Chromium: {path: (status, content type, text)}."""

    def run(paths: list[str]) -> dict[str, tuple[int, str, str]]:
        if not page.url.startswith(site_url):
            page.goto(f"{site_url}/")
        result: dict[str, tuple[int, str, str]] = page.evaluate(
            """async (paths) => Object.fromEntries(await Promise.all(paths.map(async (p) => {
                const r = await fetch(p);
                return [p, [r.status, r.headers.get("content-type") || "", await r.text()]];
            })))""",
            paths,
        )
        return result

    return run
