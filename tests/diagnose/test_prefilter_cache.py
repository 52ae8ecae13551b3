"""The prefilter cache: a stored Hyperscan database is loaded, a bad one is compiled over."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.diagnose.prefilter import FindPrefilter, HyperscanPrefilter
from generator.diagnose.prefilter_cache import cached_prefilter

LITERALS = (b"Watchdog caught", b"CUDA out of memory", b"Traceback (most recent call last)")
BLOCK = b"x Watchdog caught y\nCUDA out of memory\nWatchdog caught\n"
FOUND = sorted(FindPrefilter(LITERALS).scan(BLOCK))


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TRAINWRECK_CACHE_DIR", str(folder))
    return folder


def test_the_first_run_stores_the_database_and_the_next_loads_it(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = cached_prefilter(LITERALS)
    assert isinstance(first, HyperscanPrefilter)
    assert sorted(first.scan(BLOCK)) == FOUND
    (stored,) = cache.iterdir()
    assert stored.name.startswith("prefilter-")

    def no_compile(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled although a good copy was stored")

    monkeypatch.setattr("generator.diagnose.prefilter_cache.make_prefilter", no_compile)
    second = cached_prefilter(LITERALS)
    assert sorted(second.scan(BLOCK)) == FOUND


def test_other_literals_get_their_own_file(cache: Path) -> None:
    cached_prefilter(LITERALS)
    other = cached_prefilter(LITERALS[:2])
    assert sorted(other.scan(BLOCK)) == sorted(FindPrefilter(LITERALS[:2]).scan(BLOCK))
    assert len(list(cache.iterdir())) == 2


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_a_damaged_file_is_compiled_over(cache: Path, damage: str) -> None:
    cached_prefilter(LITERALS)
    (stored,) = cache.iterdir()
    raw = stored.read_bytes()
    damaged = {"truncate": raw[:-100], "flip": raw[:-1] + bytes([raw[-1] ^ 1]), "empty": b""}
    stored.write_bytes(damaged[damage])
    again = cached_prefilter(LITERALS)
    assert sorted(again.scan(BLOCK)) == FOUND
    assert stored.read_bytes() == raw


def test_an_unwritable_cache_still_diagnoses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TRAINWRECK_CACHE_DIR", str(blocker / "cache"))
    assert sorted(cached_prefilter(LITERALS).scan(BLOCK)) == FOUND


def test_an_empty_setting_turns_the_cache_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAINWRECK_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert sorted(cached_prefilter(LITERALS).scan(BLOCK)) == FOUND
    assert list(tmp_path.iterdir()) == []
