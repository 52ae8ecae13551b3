"""`trainwreck build` end to end: a real MkDocs build, escaping in the theme, nothing lost."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from entry_factory import entry_yaml

from generator.cli import main

REPO = Path(__file__).resolve().parents[1]
ENTRY = "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
PAYLOAD = "</title><script>alert(1)</script><img src=x onerror=alert(2)>"


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    (tmp_path / "entries/gpu-hardware").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(site: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()
    }


def test_title_and_summary_payloads_stay_text_in_the_built_pages(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = entry_yaml().replace(
        'title: "Xid 79: GPU has fallen off the bus"', f"title: '{PAYLOAD}'"
    )
    # Raw HTML in a Markdown field is a validation error; inside a code span it is text, and
    # it reaches the page's meta description through the theme.
    text = text.replace("summary: >-\n", f"summary: >-\n  `{PAYLOAD}`\n")
    text = text.replace("quick_fix: Drain", f"quick_fix: Drain {PAYLOAD}")
    (repo / ENTRY).write_text(text)
    assert main(["build"]) == 0
    html = (repo / "site/failures/xid-79-gpu-fallen-off-bus/index.html").read_text()
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<meta name="description" content="&lt;/title&gt;&lt;script&gt;' in html
    for page in (repo / "site").rglob("*.html"):
        assert "<script>alert" not in page.read_text(), page


def test_a_failed_build_leaves_the_previous_site_byte_for_byte(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ENTRY).write_text(entry_yaml())
    assert main(["build"]) == 0
    before = snapshot(repo / "site")
    (repo / ENTRY).write_text(entry_yaml().replace("severity: critical", "severity: dire"))
    capsys.readouterr()
    assert main(["build"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{ENTRY}:6:11: error [schema] severity: Input should be 'critical', 'high', 'medium' "
        "or 'low'"
    ]
    assert err == "build stopped: fix the problems above; site/ was left as it was\n"
    assert snapshot(repo / "site") == before
    assert before["failures/xid-79-gpu-fallen-off-bus/index.html"]


def test_a_published_build_carries_nothing_of_the_preview(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The banner script and its problem list belong to `serve` only."""
    (repo / ENTRY).write_text(entry_yaml())
    assert main(["build"]) == 0
    assert not (repo / "site/_trainwreck").exists()
    for page in (repo / "site").rglob("*.html"):
        assert "_trainwreck" not in page.read_text(), page


def test_build_validates_the_catalog_once(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI validates (with the benign corpus) and hands its result to the plugin, which
    used to validate the same files again: a quarter of a build at 1k entries."""
    import generator.validation

    calls: list[int] = []
    real = generator.validation.validate_sources

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(generator.validation, "validate_sources", counted)
    monkeypatch.setattr("generator.mkdocs_glue.validate_sources", counted)
    (repo / ENTRY).write_text(entry_yaml())
    assert main(["build"]) == 0
    assert calls == [1]
    assert (repo / "site/failures/xid-79-gpu-fallen-off-bus/index.html").is_file()
    assert (repo / "site/pagefind/pagefind.js").is_file()
