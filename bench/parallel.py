"""Would validation and rendering pay for a second process? Serial against two, same results.

    python bench/parallel.py                      # 1k and 2k synthetic entries
    python bench/parallel.py --sizes 1000 2000 5000

For each size, bench/synth.py writes a catalog, and one process times, in CPU seconds (its
own and its children's) and wall seconds:

- files: the per-file half of validation (loading each file, then every per-entry check),
  serial, then split in two halves with the second half in a forked child whose results
  (the loaded entries and their problems) come back pickled;
- validate: the whole of validate_sources, serial, for scale;
- render: every page (`Renderer.all_pages`), serial, then the second half of the pages in
  a forked child (pages come back pickled).

Each split is checked against the serial result (the same entries and problem lists in the
same order, the same pages) and the size of what a child sends back is printed. The
cross-entry and signature checks are not split: they need every entry.
Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import pickle
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from synth import write_catalog  # noqa: E402


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _timed(f: Callable[[], Any]) -> tuple[Any, float, float]:
    cpu, wall = _cpu(), time.perf_counter()
    result = f()
    return result, _cpu() - cpu, time.perf_counter() - wall


_WORK: Callable[[int, int], list[Any]] | None = None


def _child(a: int, b: int) -> list[Any]:
    assert _WORK is not None
    return _WORK(a, b)


def _split(work: Callable[[int, int], list[Any]], n: int) -> list[Any]:
    """work(0, n), with its second half done in a forked child (which inherits `work`)."""
    global _WORK
    _WORK = work
    half = n // 2
    with mp.get_context("fork").Pool(1) as pool:
        later = pool.apply_async(_child, (half, n))
        first = work(0, half)
        return first + later.get()


def measure(project: Path) -> dict[str, Any]:
    from generator import validation
    from generator.catalog import Catalog
    from generator.checks import markdown
    from generator.fleet import site as fleet_site
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.render.pages import Renderer

    os.chdir(project)
    sources, _ = read_sources(find_entry_files(Path("entries")), project)
    checks = validation.entry_checks()

    def per_file(a: int, b: int) -> list[Any]:
        out = []
        for source in sources[a:b]:
            doc, found = validation.load_doc(source)
            if doc is not None:
                for check in checks:
                    found.extend(check.validate(doc))
            out.append((doc, found))
        return out

    # Each run starts from empty memos: the loader's and the markdown lint's. (The copies of
    # a synthetic entry share most of their prose, which the lint's memo parses once.)
    clear = (validation._load_doc.cache_clear, markdown._lint.cache_clear)
    for c in clear:
        c()
    row: dict[str, Any] = {"entries": len(sources)}
    serial, row["files_cpu"], row["files_wall"] = _timed(lambda: per_file(0, len(sources)))
    row["files_sent"] = len(pickle.dumps(serial[len(serial) // 2 :], protocol=5))
    for c in clear:
        c()
    split, row["files2_cpu"], row["files2_wall"] = _timed(lambda: _split(per_file, len(sources)))

    def key(results: list[Any]) -> list[Any]:
        return [(doc.entry if doc else None, found) for doc, found in results]

    row["files_same"] = key(split) == key(serial)
    for c in clear:
        c()
    result, row["validate_cpu"], row["validate_wall"] = _timed(
        lambda: validation.validate_sources(sources)
    )
    entries = result.entries
    site_url = "https://example.org/"
    rules = fleet_site.site_rules(entries, site_url) if fleet_site.available() else None
    catalog = Catalog.of(entries)
    renderer = Renderer(
        project / "templates", site_url=site_url, monitor=rules.monitor if rules else None
    )
    renderer.all_pages(catalog)  # compiles the templates in the parent, before any fork
    plan = renderer.plan(catalog)

    def render(a: int, b: int) -> list[Any]:
        return [page.render() for page in plan[a:b]]

    pages, row["render_cpu"], row["render_wall"] = _timed(lambda: render(0, len(plan)))
    row["render_sent"] = len(pickle.dumps(pages[len(pages) // 2 :], protocol=5))
    split_pages, row["render2_cpu"], row["render2_wall"] = _timed(lambda: _split(render, len(plan)))
    row["render_same"] = split_pages == pages
    row["load"] = os.getloadavg()[0]
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| entries | step | serial CPU s (wall) | 2 processes CPU s (wall) | extra CPU | sent MB "
        "| same result | load avg |",
        "|---:|---|---:|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        for step, name in (("files", "load + per-entry checks"), ("render", "render pages")):
            cpu, wall = r[f"{step}_cpu"], r[f"{step}_wall"]
            cpu2, wall2 = r[f"{step}2_cpu"], r[f"{step}2_wall"]
            lines.append(
                f"| {r['entries']:,} | {name} | {cpu:.1f} ({wall:.1f}) | {cpu2:.1f} ({wall2:.1f}) "
                f"| {cpu2 / cpu - 1:+.0%} | {r[f'{step}_sent'] / 1e6:.0f} "
                f"| {r[f'{step}_same']} | {r['load']:.1f} |"
            )
        lines.append(
            f"| {r['entries']:,} | (all of validate_sources) | {r['validate_cpu']:.1f} "
            f"({r['validate_wall']:.1f}) | | | | | |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000])
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tw-parallel-bench-"))
    rows = []
    try:
        for count in args.sizes:
            project = work / f"catalog-{count}"
            write_catalog(project, count)
            rows.append(measure(project))
            print(rows[-1], file=sys.stderr, flush=True)
    finally:
        os.chdir(REPO)
        shutil.rmtree(work, ignore_errors=True)
    print(table(rows))


if __name__ == "__main__":
    main()
