"""Publishing swaps a finished build into place, and a failed build changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.publish import BUILDS_DIR, publish


def snapshot(site: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()
    }


def write(files: dict[str, str]):  # type: ignore[no-untyped-def]
    def build(target: Path) -> None:
        for name, text in files.items():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_text(text)

    return build


def test_publish_replaces_the_site_and_keeps_only_the_newest_build(tmp_path: Path) -> None:
    site = tmp_path / "site"
    publish(site, write({"index.html": "one"}))
    publish(site, write({"index.html": "two", "a/b.html": "b"}))
    assert site.is_symlink()
    assert snapshot(site) == {"index.html": b"two", "a/b.html": b"b"}
    assert len(list((tmp_path / BUILDS_DIR).iterdir())) == 1


def test_failed_build_leaves_the_previous_site_and_no_debris(tmp_path: Path) -> None:
    site = tmp_path / "site"
    publish(site, write({"index.html": "good"}))
    before = snapshot(site)
    builds_before = sorted((tmp_path / BUILDS_DIR).iterdir())

    def half_then_fail(target: Path) -> None:
        write({"index.html": "half"})(target)
        raise RuntimeError("template exploded")

    with pytest.raises(RuntimeError):
        publish(site, half_then_fail)
    assert snapshot(site) == before
    assert sorted((tmp_path / BUILDS_DIR).iterdir()) == builds_before


def test_a_plain_site_directory_from_before_is_replaced_atomically(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "old.html").write_text("old")
    publish(site, write({"index.html": "new"}))
    assert snapshot(site) == {"index.html": b"new"}
