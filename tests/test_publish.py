"""Publishing swaps a finished build into place, a failed build changes nothing, and a build
removes only what is provably its own or dead: never another build, never a user's folder."""

from __future__ import annotations

import errno
import multiprocessing
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from entry_factory import entry_yaml

from generator.cli import main
from generator.publish import BUILDS_DIR, PublishError, builds_dir, publish

REPO = Path(__file__).resolve().parents[1]


def snapshot(site: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()
    }


def tree(folder: Path) -> list[str]:
    """Every path under `folder`, relative to it: what a test compares to prove no litter."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def write(files: dict[str, str]) -> Callable[[Path], None]:
    def build(target: Path) -> None:
        for name, text in files.items():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_text(text)

    return build


def build_names(site: Path) -> list[str]:
    return sorted(p.name for p in builds_dir(site).iterdir())


def test_publish_replaces_the_site_and_keeps_only_the_newest_build(tmp_path: Path) -> None:
    site = tmp_path / "site"
    first = publish(site, write({"index.html": "one"}))
    second = publish(site, write({"index.html": "two", "a/b.html": "b"}))
    assert site.is_symlink()
    assert snapshot(site) == {"index.html": b"two", "a/b.html": b"b"}
    assert not first.exists()
    assert build_names(site) == [second.name]
    assert os.readlink(site) == f"{BUILDS_DIR}/site/{second.name}"


def test_failed_build_leaves_the_previous_site_and_no_debris(tmp_path: Path) -> None:
    site = tmp_path / "site"
    publish(site, write({"index.html": "good"}))
    before = snapshot(site)
    files_before = tree(tmp_path)

    def half_then_fail(target: Path) -> None:
        write({"index.html": "half"})(target)
        raise RuntimeError("template exploded")

    with pytest.raises(RuntimeError):
        publish(site, half_then_fail)
    assert snapshot(site) == before
    assert tree(tmp_path) == files_before


def test_a_plain_site_directory_is_never_replaced_or_deleted(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "notes.txt").write_text("mine")
    with pytest.raises(PublishError) as caught:
        publish(site, write({"index.html": "new"}))
    assert str(caught.value) == (
        f"{site}: a folder that `trainwreck build` did not make; "
        "move it away or pass another --site-dir"
    )
    assert tree(tmp_path) == ["site", "site/notes.txt"]
    assert (site / "notes.txt").read_text() == "mine"


def test_a_site_dir_naming_a_file_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.write_text("a file")
    with pytest.raises(PublishError) as caught:
        publish(site, write({"index.html": "new"}))
    assert str(caught.value) == f"{site}: not a folder; pass another --site-dir"
    assert tree(tmp_path) == ["site"]


def test_a_site_dir_under_a_file_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file")
    with pytest.raises(PublishError) as caught:
        publish(tmp_path / "out" / "en", write({"index.html": "new"}))
    assert str(caught.value) == f"{tmp_path}/out/en: cannot make a build folder: Not a directory"
    assert tree(tmp_path) == ["out"]


def test_each_site_dir_keeps_its_own_builds(tmp_path: Path) -> None:
    en, preview = tmp_path / "out" / "en", tmp_path / "out" / "preview"
    publish(en, write({"index.html": "en"}))
    publish(preview, write({"index.html": "preview"}))
    publish(preview, write({"index.html": "preview 2"}))
    assert snapshot(en) == {"index.html": b"en"}
    assert snapshot(preview) == {"index.html": b"preview 2"}
    assert len(build_names(en)) == len(build_names(preview)) == 1


def test_a_build_finishing_during_another_leaves_it_alone_and_the_last_swap_wins(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    publish(site, write({"index.html": "old"}))
    seen: dict[str, object] = {}

    def slow(target: Path) -> None:
        write({"index.html": "slow", "a.html": "a"})(target)
        # Another build starts, finishes and cleans up while this one is half done.
        publish(site, write({"index.html": "fast"}))
        seen["fast"] = snapshot(site)
        seen["mine"] = snapshot(target)
        write({"b.html": "b"})(target)

    slow_target = publish(site, slow)
    assert seen == {
        "fast": {"index.html": b"fast"},
        "mine": {"index.html": b"slow", "a.html": b"a"},
    }
    assert snapshot(site) == {"index.html": b"slow", "a.html": b"a", "b.html": b"b"}
    assert build_names(site) == [slow_target.name]


def _publish_then_wait(site: Path, started: object, release: object) -> None:
    def build(target: Path) -> None:
        write({"index.html": "child"})(target)
        started.set()  # type: ignore[attr-defined]
        release.wait(60)  # type: ignore[attr-defined]

    publish(site, build)


def _publish_then_die(site: Path) -> None:
    def build(target: Path) -> None:
        write({"index.html": "half"})(target)
        os.kill(os.getpid(), signal.SIGKILL)

    publish(site, build)


def test_a_build_in_another_process_is_kept_until_it_ends(tmp_path: Path) -> None:
    site = tmp_path / "site"
    ctx = multiprocessing.get_context("fork")
    started, release = ctx.Event(), ctx.Event()
    child = ctx.Process(target=_publish_then_wait, args=(site, started, release))
    child.start()
    try:
        assert started.wait(60)
        (in_progress,) = [p for p in builds_dir(site).iterdir() if p.is_dir()]
        publish(site, write({"index.html": "parent"}))
        assert snapshot(in_progress) == {"index.html": b"child"}
    finally:
        release.set()
        child.join(60)
    assert child.exitcode == 0
    assert snapshot(site) == {"index.html": b"child"}
    assert build_names(site) == [in_progress.name]


def test_a_killed_build_is_removed_by_the_next_one(tmp_path: Path) -> None:
    site = tmp_path / "site"
    publish(site, write({"index.html": "good"}))
    child = multiprocessing.get_context("fork").Process(target=_publish_then_die, args=(site,))
    child.start()
    child.join(60)
    assert child.exitcode == -signal.SIGKILL
    assert snapshot(site) == {"index.html": b"good"}
    assert len(build_names(site)) == 3  # the good build, the dead one and its lock
    last = publish(site, write({"index.html": "next"}))
    assert build_names(site) == [last.name]


@pytest.mark.parametrize(
    ("code", "reason"), [(errno.ENOSPC, "No space left on device"), (errno.EROFS, "Read-only")]
)
def test_a_full_or_read_only_disk_is_one_line_and_leaves_nothing(
    tmp_path: Path, code: int, reason: str
) -> None:
    site = tmp_path / "site"
    publish(site, write({"index.html": "good"}))
    files_before = tree(tmp_path)

    def fails(target: Path) -> None:
        write({"index.html": "half"})(target)
        raise OSError(code, os.strerror(code))

    with pytest.raises(PublishError) as caught:
        publish(site, fails)
    assert str(caught.value) == f"{site}: cannot write the site: {os.strerror(code)}"
    assert reason in str(caught.value)
    assert snapshot(site) == {"index.html": b"good"}
    assert tree(tmp_path) == files_before


def test_a_first_build_that_cannot_write_leaves_no_build_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr("tempfile.mkstemp", read_only)
    with pytest.raises(PublishError) as caught:
        publish(tmp_path / "site", write({"index.html": "new"}))
    assert str(caught.value) == (
        f"{tmp_path}/site: cannot make a build folder: Read-only file system"
    )
    assert tree(tmp_path) == []


@pytest.fixture()
def small_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    entry = tmp_path / "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
    entry.parent.mkdir(parents=True)
    entry.write_text(entry_yaml())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_build_into_a_file_says_so_in_one_line(
    small_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (small_repo / "out").write_text("a file")
    files_before = tree(small_repo)
    assert main(["build", "--site-dir", "out"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        "trainwreck: out: not a folder; pass another --site-dir; out was left as it was\n",
    )
    assert tree(small_repo) == files_before


def _full_disk() -> None:
    # Writes past 20 kB fail with EFBIG, as they would with ENOSPC on a full disk.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))


def test_a_real_build_that_runs_out_of_space_is_one_line_and_leaves_nothing(
    small_repo: Path,
) -> None:
    files_before = tree(small_repo)
    done = subprocess.run(
        [sys.executable, "-m", "generator.cli", "build", "--site-dir", "out/site"],
        cwd=small_repo,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=_full_disk,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "trainwreck: out/site: cannot write the site: File too large; "
        "out/site was left as it was\n",
    )
    assert tree(small_repo) == files_before
