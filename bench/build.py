"""Benchmark the build as the catalog grows: validate, render, full build, memory, size.

    python bench/build.py                       # 1k and 2k synthetic entries
    python bench/build.py --sizes 1000 2000 5000 10000

For each size, bench/synth.py writes a catalog of whole copies of the real entries to a
scratch project, and each step runs there in a child process of its own:

- validate: `trainwreck validate` (every check, the benign corpus included);
- render: loading, validating and rendering every page and data file in one process, with
  the render step's CPU time taken on its own (the `render` column): with the fleet extra
  installed, that includes converting the rules for the pages' "Monitor it" sections and
  /api/rules/, as the build does;
- build: `trainwreck build`, which validates, renders, runs MkDocs and publishes site/;
- baseline: the very same pages, written out beforehand as static Markdown (each page's
  finished HTML under front matter with its title and description, plus the same static
  files), built by plain Material for MkDocs with the same theme, overrides and search plugin.

Times are CPU seconds (user + system, the child's own children included), with wall seconds
beside them: on a shared machine wall time measures the neighbours as much as the work.
`overhead` is build / baseline - 1 in CPU time (target: at most 10%); per-entry figures are
divided by the number of entries (target: flat from 1k to 10k). Peak RSS is each child's
own VmHWM, polled every 5 ms. Also printed: the size of site/, the theme's full-text index
and signatures.json (raw and gzipped), and the size of Pagefind's sharded index, of which a
search fetches a few files (bench/search_browser.py measures which).
Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import yaml  # noqa: E402
from diagnose import peak_rss  # noqa: E402
from synth import write_catalog  # noqa: E402


def measure(cmd: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds, peak RSS (bytes) and stdout of one child; exits on failure.

    CPU time is the child's user + system time with its own children (Pagefind), from wait4:
    on a shared machine wall time mostly measures the neighbours, CPU time the work.
    """
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err)
        peak = 0
        while True:
            peak = max(peak, peak_rss(child.pid))
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.005)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed in {cwd}:\n{err.read().decode()[-3000:]}")
        return wall, usage.ru_utime + usage.ru_stime, peak, out.read().decode()


def render_step(project: Path) -> None:
    """In a child: validate and render in-process, time the render, write the baseline.

    Prints {"render": seconds}. The baseline project goes to <project>/baseline/.
    """
    from mkdocs.config import load_config

    from generator.catalog import Catalog
    from generator.diagnose.index import build_index, index_json
    from generator.fleet import site as fleet_site
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.render.data_files import data_files
    from generator.render.pages import Renderer
    from generator.render.redirects import redirect_files
    from generator.validation import validate_sources

    os.chdir(project)
    sources, _ = read_sources(find_entry_files(Path("entries")), project)
    entries = validate_sources(sources).entries
    site_url = load_config("mkdocs.yml").site_url or ""
    started = time.process_time()
    catalog = Catalog.of(entries)
    # As the plugin does: with the fleet extra, the pages' "Monitor it" sections and
    # /api/rules/ come from one conversion of the catalog.
    rules = fleet_site.site_rules(entries, site_url) if fleet_site.available() else None
    monitor = rules.monitor if rules is not None else None
    pages = Renderer(project / "templates", site_url=site_url, monitor=monitor).all_pages(catalog)
    extra = {
        "signatures.json": index_json(build_index(entries)),
        **redirect_files(catalog),
        **data_files(catalog, site_url),
        **(rules.files if rules is not None else {}),
    }
    render = time.process_time() - started

    base = project / "baseline"
    shutil.rmtree(base, ignore_errors=True)
    shutil.copytree(project / "templates" / "static", base / "docs")
    for page in pages:
        meta: dict[str, Any] = {
            "title": html.escape(page.title),
            "description": html.escape(page.description),
        }
        if not page.searchable:
            meta["search"] = {"exclude": True}
        path = base / "docs" / page.src_uri
        path.parent.mkdir(parents=True, exist_ok=True)
        front = yaml.safe_dump(meta, allow_unicode=True, width=10_000)
        path.write_text(f"---\n{front}---\n\n{page.html}\n")
    for name, content in extra.items():
        path = base / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    config = (project / "mkdocs.yml").read_text()
    config = config.replace("docs_dir: templates/static", "docs_dir: baseline/docs")
    start, end = config.index("  - trainwreck:"), config.index("markdown_extensions:")
    (project / "mkdocs-baseline.yml").write_text(config[:start] + config[end:])
    print(json.dumps({"render": render, "pages": len(pages)}))


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _gz(path: Path) -> tuple[int, int]:
    if not path.exists():
        return 0, 0
    data = path.read_bytes()
    return len(data), len(gzip.compress(data, 6))


def bench_size(count: int, work: Path) -> dict[str, Any]:
    project = work / f"catalog-{count}"
    made = write_catalog(project, count)
    py = sys.executable
    cli = [py, "-m", "generator.cli"]
    validate_wall, validate, validate_rss, _ = measure([*cli, "validate"], project)
    _, _, render_rss, printed = measure([py, __file__, "--render-step", str(project)], project)
    rendered = json.loads(printed)
    build_wall, build, build_rss, _ = measure([*cli, "build"], project)
    out = project / "baseline-site"
    baseline_cmd = [py, "-m", "mkdocs", "build", "-q", "-f", "mkdocs-baseline.yml", "-d", str(out)]
    baseline_wall, baseline, baseline_rss, _ = measure(baseline_cmd, project)
    site = (project / "site").resolve()
    return {
        "entries": made,
        "pages": rendered["pages"],
        "validate": validate,
        "validate_wall": validate_wall,
        "build_wall": build_wall,
        "baseline_wall": baseline_wall,
        "validate_rss": validate_rss,
        "render": rendered["render"],
        "render_rss": render_rss,
        "build": build,
        "build_rss": build_rss,
        "baseline": baseline,
        "baseline_rss": baseline_rss,
        "site_bytes": _du(site),
        "baseline_site_bytes": _du(out),
        "search_index": _gz(site / "search" / "search_index.json"),
        "signatures": _gz(site / "signatures.json"),
        "pagefind": _du(site / "pagefind"),
    }


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f}"


def tables(rows: list[dict[str, Any]]) -> str:
    lines = [
        "CPU seconds (wall seconds on this shared machine in brackets)",
        "",
        "| entries | pages | validate s | render s | build s | baseline s | overhead "
        "| build ms/entry | validate MB | build MB | baseline MB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['entries']:,} | {r['pages']:,} | {r['validate']:.1f} ({r['validate_wall']:.0f}) "
            f"| {r['render']:.1f} | {r['build']:.1f} ({r['build_wall']:.0f}) "
            f"| {r['baseline']:.1f} ({r['baseline_wall']:.0f}) "
            f"| {r['build'] / r['baseline'] - 1:+.0%} "
            f"| {1000 * r['build'] / r['entries']:.1f} | {_mb(r['validate_rss'])} "
            f"| {_mb(r['build_rss'])} | {_mb(r['baseline_rss'])} |"
        )
    lines += [
        "",
        "| entries | site/ MB | baseline site MB | KB/entry | search index KB (gz) "
        "| signatures.json KB (gz) | pagefind/ MB |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        s_raw, s_gz = r["search_index"]
        g_raw, g_gz = r["signatures"]
        lines.append(
            f"| {r['entries']:,} | {_mb(r['site_bytes'])} | {_mb(r['baseline_site_bytes'])} "
            f"| {r['site_bytes'] / r['entries'] / 1000:.0f} | {s_raw // 1000:,} ({s_gz // 1000:,}) "
            f"| {g_raw // 1000:,} ({g_gz // 1000:,}) | {_mb(r['pagefind'])} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--render-step", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.render_step:
        render_step(args.render_step)
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="tw-build-bench-"))
    rows = []
    try:
        for count in args.sizes:
            rows.append(bench_size(count, work))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(tables(rows))


if __name__ == "__main__":
    main()
