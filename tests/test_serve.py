"""`trainwreck serve` as an editor uses it: a broken save shows as a banner, never a dead server.

The banner is drawn in the page by the preview's script from /_trainwreck/problems.json, so the
tests that look at it do so in Chromium, on the page livereload reloads by itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from entry_factory import entry_yaml
from serving import fetch, serving

REPO = Path(__file__).resolve().parents[1]
ENTRY = "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
ENTRY_PAGE = "/failures/xid-79-gpu-fallen-off-bus/"
BROKEN = entry_yaml().replace("severity: critical", "severity: dire")
SEVERITY_PROBLEM = (
    f"{ENTRY}:6:11: error [schema] severity: Input should be 'critical', 'high', 'medium' or 'low'"
)


def preview_problems(url: str) -> list[str]:
    problems: list[str] = json.loads(fetch(f"{url}/_trainwreck/problems.json"))["problems"]
    return problems


def wait_for(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def open_preview(page, url: str) -> None:  # type: ignore[no-untyped-def]
    """Open the entry's page once the preview is up, and wait until its banner script ran."""
    wait_for(lambda: "Xid 79" in fetch(f"{url}{ENTRY_PAGE}"), "the first build")
    page.goto(f"{url}{ENTRY_PAGE}")
    page.locator("html[data-tw-preview=checked]").wait_for(state="attached")


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    (tmp_path / ENTRY).parent.mkdir(parents=True)
    (tmp_path / ENTRY).write_text(entry_yaml())
    with (tmp_path / "serve.log").open("w") as log, serving(tmp_path, log) as url:
        yield tmp_path, url


@pytest.mark.browser
def test_a_broken_save_reloads_the_open_page_with_a_banner_and_the_fix_clears_it(
    served: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
) -> None:
    repo, url = served
    open_preview(page, url)
    assert page.locator(".tw-build-error").count() == 0

    # From here the test never navigates: livereload reloads the open page after each build.
    (repo / ENTRY).write_text(BROKEN)
    banner = page.locator(".tw-build-error")
    banner.wait_for(timeout=60_000)
    assert banner.get_attribute("role") == "alert"
    assert banner.locator("li").all_inner_texts() == [SEVERITY_PROBLEM]
    # The page under the banner is still the last good build.
    assert page.locator("article h1").inner_text() == "Xid 79: GPU has fallen off the bus"

    fixed = entry_yaml().replace('title: "Xid 79:', 'title: "Xid 79 (edited):')
    (repo / ENTRY).write_text(fixed)
    page.locator("article h1", has_text="Xid 79 (edited)").wait_for(timeout=60_000)
    page.locator("html[data-tw-preview=checked]").wait_for(state="attached")
    assert page.locator(".tw-build-error").count() == 0
    assert page.errors == []


def test_the_terminal_shows_the_problem_with_its_place(
    served: tuple[Path, str],
) -> None:
    repo, url = served
    page = f"{url}{ENTRY_PAGE}"
    wait_for(lambda: "Xid 79" in fetch(page), "the first build")
    assert preview_problems(url) == []
    (repo / ENTRY).write_text(BROKEN)
    wait_for(lambda: preview_problems(url) == [SEVERITY_PROBLEM], "the problem list")
    (repo / ENTRY).write_text(entry_yaml())
    wait_for(lambda: preview_problems(url) == [], "the recovery")
    assert SEVERITY_PROBLEM in (repo / "serve.log").read_text()


def test_the_preview_starts_while_a_new_entry_is_still_a_skeleton(tmp_path: Path) -> None:
    """CONTRIBUTING.md's order: new, write, preview. The preview must start before the entry
    is finished, show the other entries, and list what the new one still needs: every error
    that `validate` reports."""
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    (tmp_path / ENTRY).parent.mkdir(parents=True)
    (tmp_path / ENTRY).write_text(entry_yaml())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cli = [sys.executable, "-m", "generator.cli"]
    subprocess.run(
        [*cli, "new", "host-oom-killer", "--category", "memory"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    validated = subprocess.run(
        [*cli, "validate"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    errors = [line for line in validated.stdout.splitlines() if ": error [" in line]
    assert validated.returncode == 1
    # The skeleton's problems themselves are asserted in tests/test_cli_editor.py.
    assert errors[0].startswith(
        "entries/memory/host-oom-killer.yaml:7:8: error [schema] title: must not be empty"
    )
    with serving(tmp_path) as url:
        wait_for(
            lambda: "Xid 79" in fetch(f"{url}{ENTRY_PAGE}"),
            "the first build",
        )
        assert preview_problems(url) == errors


def test_a_template_edit_shows_on_every_page(served: tuple[Path, str]) -> None:
    """Page templates (rendered by the generator) and theme overrides (by MkDocs) are watched
    too; an edit to either must reach pages whose entries did not change."""
    repo, url = served
    entry_url = f"{url}{ENTRY_PAGE}"
    wait_for(lambda: "Xid 79" in fetch(entry_url), "the first build")
    template = repo / "templates/pages/entry.html.j2"
    template.write_text(template.read_text() + "<p>page-template-marker</p>\n")
    wait_for(lambda: "page-template-marker" in fetch(entry_url), "the page template edit")
    theme = repo / "templates/overrides/main.html"
    theme.write_text(theme.read_text() + "{% block announce %}theme-marker{% endblock %}\n")
    wait_for(lambda: "theme-marker" in fetch(entry_url), "the theme edit")
    assert "theme-marker" in fetch(f"{url}/tags/xid/")
    assert "page-template-marker" in fetch(entry_url)


def test_a_deleted_entry_leaves_the_preview(served: tuple[Path, str]) -> None:
    """The preview's dirty builds never clean the output folder themselves; a page whose
    entry is gone must not go on being served as if it still existed."""
    repo, url = served
    wait_for(lambda: "Xid 79" in fetch(f"{url}{ENTRY_PAGE}"), "the start")
    extra = repo / "entries/gpu-hardware/gpu-spare-entry.yaml"
    text = entry_yaml("gpu-spare-entry")
    text = text.replace('"NVRM: Xid (PCI:{pci}): 79, "', '"A spare failure on GPU"')
    text = text.replace(
        "[ 123.456] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
        "[ 123.456] A spare failure on GPU 3",
    )
    extra.write_text(
        text.replace(
            "  xid: [79]\n  xid_actions:\n    - code: 79\n"
            "      meaning: GPU has fallen off the bus\n      action: reboot\n",
            "  xid: []\n",
        )
    )
    page = f"{url}/failures/gpu-spare-entry/"
    wait_for(lambda: "gpu-spare-entry" in fetch(page), "the new entry's page")
    assert "gpu-spare-entry" in fetch(f"{url}/api/entries/gpu-spare-entry.json")
    extra.unlink()

    def gone(address: str) -> bool:
        try:
            fetch(address)
        except urllib.error.HTTPError as error:
            return error.code == 404
        return False

    wait_for(lambda: gone(page), "the page to go")
    assert gone(f"{url}/api/entries/gpu-spare-entry.json")
    assert preview_problems(url) == []


@pytest.mark.browser
def test_the_banner_shows_hostile_text_from_a_broken_entry_as_text(
    served: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
) -> None:
    """Problem messages quote what the author wrote; the banner must show it, never run it."""
    repo, url = served
    open_preview(page, url)
    payload = '<img src="x" onerror="window.pwned=1">'
    hostile = entry_yaml().replace("summary: >-\n", f"summary: >-\n  {payload}\n")
    (repo / ENTRY).write_text(hostile)
    banner = page.locator(".tw-build-error")
    banner.wait_for(timeout=60_000)
    assert banner.locator("li").all_inner_texts() == [
        f"{ENTRY}:8:10: error [markdown] raw HTML is not allowed: '{payload}'"
    ]
    assert banner.locator("img").count() == 0
    assert page.evaluate("() => window.pwned") is None
    assert page.errors == []


def test_a_path_holding_nul_is_not_found_not_a_server_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from mkdocs.livereload import LiveReloadServer

    from generator.mkdocs_glue import refuse_nul_paths

    (tmp_path / "index.html").write_text("home")
    server = LiveReloadServer(lambda: None, "127.0.0.1", 0, str(tmp_path))
    refuse_nul_paths(server)
    statuses: list[str] = []

    def get(path: str) -> bytes:
        environ = {"PATH_INFO": path, "REQUEST_METHOD": "GET"}
        return b"".join(server.serve_request(environ, lambda s, h: statuses.append(s)))

    with caplog.at_level("ERROR"):
        assert get("/\x00") == b"404 Not Found"
        assert get("/a\x00b/index.html") == b"404 Not Found"
        assert get("/index.html") == b"home"
    assert statuses == ["404 Not Found", "404 Not Found", "200 OK"]
    assert caplog.records == []
