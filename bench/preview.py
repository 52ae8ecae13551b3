"""Benchmark the preview loop: seconds from saving an entry to the rebuilt page being served.

    python bench/preview.py                     # a generated catalog of 1,000 entries
    python bench/preview.py --entries 200
    python bench/preview.py --shape crowded     # every entry on the same listing pages

Generates a catalog of N valid entries (each with its own signature and example, so the
two-sided checks pass), starts `trainwreck serve` on a free loopback port, waits for the first
build, then times three kinds of save, each --edits times:

- an edit: one entry's title changes; timed until its served page shows the new title;
- a broken save: the entry gets an invalid severity; timed until the preview's problem list
  (what the page's error banner shows) names it;
- the fix: the entry is valid again; timed until its page shows the fixed title.

Every time runs from the write to the moment the server hands out the new content, so it
includes the file watcher's polling. As a baseline measured in the same run, it also times a
full `trainwreck build` of the same catalog, and prints each median as a ratio of it.

Shapes: `spread` (the default) scales up the real catalog: entries across every category,
two tags each from a pool of 300, Xid codes on the GPU-hardware entries (several entries per
code, as in the real catalog), and two related entries each. `crowded` is the worst case for
an edit: one category, the same two tags and a distinct Xid code on every entry, so each
title edit re-renders listing pages of all N entries.

Target (issue 6): under 1 s from save to page with 1,000 entries.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from entry_factory import entry_yaml  # noqa: E402
from serving import fetch, serving  # noqa: E402

from generator.model.categories import Category  # noqa: E402

CATEGORIES = list(Category)


def entry_id(n: int) -> str:
    return f"synthetic-failure-{n:04d}"


def category(n: int, shape: str) -> str:
    return "gpu-hardware" if shape == "crowded" else CATEGORIES[n % len(CATEGORIES)].value


def make_entry(n: int, count: int, shape: str, title: str = "") -> str:
    text = entry_yaml(entry_id(n))
    replacements = {
        '"NVRM: Xid (PCI:{pci}): 79, "': f'"Synthetic failure number {n:04d} on GPU"',
        "[ 123.456] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.": (
            f"[ 123.456] Synthetic failure number {n:04d} on GPU 3"
        ),
        'title: "Xid 79: GPU has fallen off the bus"': f'title: "{title or f"Synthetic {n:04d}"}"',
    }
    # Each synthetic code keeps the factory's row (identical rows for one code agree).
    row = "    - code: 79\n      meaning: GPU has fallen off the bus\n      action: reboot\n"
    if shape == "crowded":
        code = 1 + n % 900
        replacements["  xid: [79]"] = f"  xid: [{code}]"
        replacements[row] = row.replace("code: 79", f"code: {code}")
    else:
        cat = category(n, shape)
        code = 1 + n % 160
        xid = f"[{code}]" if cat == "gpu-hardware" else "[]"
        replacements["  xid_actions:\n" + row] = (
            "  xid_actions:\n" + row.replace("code: 79", f"code: {code}")
            if cat == "gpu-hardware"
            else ""
        )
        related = ", ".join(entry_id((n + step) % count) for step in (1, 2) if step < count)
        replacements |= {
            "category: gpu-hardware": f"category: {cat}",
            "tags: [xid, pcie]": f"tags: [tag-{n % 300:03d}, tag-{(n * 7 + 1) % 300:03d}]",
            "  xid: [79]": f"  xid: {xid}",
            "related: []": f"related: [{related}]",
        }
    for old, new in replacements.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


def fetch_or_nothing(url: str) -> str:
    try:
        return fetch(url)
    except OSError:
        return ""


def wait_for(url: str, needle: str, limit: float = 600) -> float:
    start = time.monotonic()
    while needle not in fetch_or_nothing(url):
        if time.monotonic() - start > limit:
            raise SystemExit(f"gave up waiting for {needle!r} at {url}")
        time.sleep(0.02)
    return time.monotonic() - start


def median_line(name: str, times: list[float], baseline: float) -> str:
    median = statistics.median(times)
    return (
        f"{name}: median {median:.2f} s over {len(times)} "
        f"({', '.join(f'{t:.2f}' for t in times)}); ratio to a full build {median / baseline:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--shape", choices=["spread", "crowded"], default="spread")
    args = parser.parse_args()
    count, shape = args.entries, args.shape

    with tempfile.TemporaryDirectory(prefix="tw-preview-") as tmp:
        repo = Path(tmp)
        shutil.copy(REPO / "mkdocs.yml", repo / "mkdocs.yml")
        shutil.copytree(REPO / "templates", repo / "templates")
        for n in range(count):
            path = repo / "entries" / category(n, shape) / f"{entry_id(n)}.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(make_entry(n, count, shape))
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        cli = [sys.executable, "-m", "generator.cli"]

        start = time.monotonic()
        subprocess.run([*cli, "build"], cwd=repo, env=env, check=True, capture_output=True)
        full_build = time.monotonic() - start

        edited = 7 % count
        target = repo / "entries" / category(edited, shape) / f"{entry_id(edited)}.yaml"
        timings: dict[str, list[float]] = {"edit": [], "broken save": [], "fix": []}

        def save(kind: str, text: str, url: str, needle: str) -> None:
            target.write_text(text)
            timings[kind].append(wait_for(url, needle))

        def entry(title: str) -> str:
            return make_entry(edited, count, shape, title)

        with serving(repo) as base:
            page = f"{base}/failures/{entry_id(edited)}/"
            problems = f"{base}/_trainwreck/problems.json"
            first = wait_for(page, f"Synthetic {edited:04d}")
            for edit in range(args.edits):
                title = f"Synthetic {edited:04d} edit {edit}"
                save("edit", entry(title), page, title)
                broken = entry(title).replace("severity: critical", "severity: dire")
                save("broken save", broken, problems, "severity: Input should be")
                fixed = f"Synthetic {edited:04d} fixed {edit}"
                save("fix", entry(fixed), page, fixed)

    print(f"catalog: {count} entries, shape {shape}")
    print(f"full build (baseline, same run): {full_build:.2f} s")
    print(f"first preview build: {first:.2f} s")
    for kind, times in timings.items():
        print(median_line(f"save to served {kind}", times, full_build))
    worst = max(statistics.median(times) for times in timings.values())
    print(f"target under 1 s: {'met' if worst < 1 else 'not met'} (slowest median {worst:.2f} s)")


if __name__ == "__main__":
    main()
