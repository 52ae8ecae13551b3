"""A renamed entry's old URL lands the reader on the entry, in Chromium."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from entry_factory import entry_yaml

from generator.mkdocs_glue import build_site

from .conftest import REPO, serve_dir

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def renamed_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    repo = tmp_path_factory.mktemp("repo")
    shutil.copy(REPO / "mkdocs.yml", repo / "mkdocs.yml")
    shutil.copytree(REPO / "templates", repo / "templates")
    entry = repo / "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
    entry.parent.mkdir(parents=True)
    entry.write_text(
        entry_yaml().replace("title:", "aliases: [gpu-fell-off-bus, xid-79]\ntitle:", 1)
    )
    out = repo / "site"
    build_site(repo / "mkdocs.yml", out)
    server, url = serve_dir(out)
    yield url
    server.shutdown()


@pytest.mark.parametrize("alias", ["gpu-fell-off-bus", "xid-79"])
def test_old_url_redirects_to_the_renamed_entry(renamed_site: str, page, alias: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{renamed_site}/failures/{alias}/")
    page.wait_for_url(f"{renamed_site}/failures/xid-79-gpu-fallen-off-bus/", timeout=10000)
    assert page.locator("h1").first.inner_text() == "Xid 79: GPU has fallen off the bus"
