"""Lighthouse scores of the built site's page kinds, mobile, with simulated throttling.

    npm install --no-save --no-package-lock --prefix .bench-node lighthouse@12   # once
    python bench/lighthouse.py                     # builds the real catalog into a scratch dir
    python bench/lighthouse.py --site site         # an existing build

Serves the site on loopback and runs Lighthouse (.bench-node's, or $LIGHTHOUSE; `make bench`)
against Debian's chromium (CHROME_PATH=/usr/bin/chromium, the flags of tests/chromium.py plus
headless) on the home, an entry, a category, /xid/ and /diagnose/ pages. Prints performance,
accessibility, best practices and SEO, and the largest contentful paint. Lighthouse's
simulated throttling makes its scores depend little on this machine's load; each page runs
--runs times and the median performance run counts. Target (issue 18): performance >= 95.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

PAGES = {
    "home": "/",
    "entry": "/failures/xid-79-gpu-fallen-off-bus/",
    "category": "/categories/gpu-hardware/",
    "xid": "/xid/",
    "diagnose": "/diagnose/",
}
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]


def lighthouse_bin() -> str:
    found = os.environ.get("LIGHTHOUSE") or shutil.which(
        "lighthouse", path=str(REPO / ".bench-node" / "node_modules" / ".bin")
    )
    if not found:
        raise SystemExit("lighthouse not found: make bench installs it (.bench-node/)")
    return found


def run(url: str, out: Path) -> dict[str, float]:
    flags = " ".join(["--headless=new", *CHROMIUM_ARGS])
    cmd = [
        lighthouse_bin(),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        f"--chrome-flags={flags}",
        "--only-categories=" + ",".join(CATEGORIES),
        "--form-factor=mobile",
        "--throttling-method=simulate",
    ]
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    for _ in range(3):
        # On a loaded machine Chromium sometimes misses Lighthouse's start-up deadline.
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode == 0:
            break
    else:
        raise SystemExit(f"lighthouse failed on {url}: {done.stderr.strip()[-500:]}")
    report = json.loads(out.read_text())
    scores = {c: 100 * (report["categories"][c]["score"] or 0) for c in CATEGORIES}
    audits = report["audits"]
    scores["lcp"] = audits["largest-contentful-paint"]["numericValue"] / 1000
    scores["fcp"] = audits["first-contentful-paint"]["numericValue"] / 1000
    scores["tbt"] = audits["total-blocking-time"]["numericValue"]
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build entries/)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from tests.browser.conftest import serve_dir

    with tempfile.TemporaryDirectory(prefix="tw-lighthouse-") as tmp:
        site = args.site.resolve() if args.site else Path(tmp) / "site"
        if not args.site:
            from generator.mkdocs_glue import build_site

            build_site(REPO / "mkdocs.yml", site)
        server, url = serve_dir(site)
        print(
            "| page | performance | accessibility | best practices | SEO | FCP s | LCP s | TBT ms |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, path in PAGES.items():
            runs = [run(url + path, Path(tmp) / f"{name}-{i}.json") for i in range(args.runs)]
            perf = statistics.median(r["performance"] for r in runs)
            r = next(r for r in runs if r["performance"] == perf)
            print(
                f"| {name} | {r['performance']:.0f} | {r['accessibility']:.0f} "
                f"| {r['best-practices']:.0f} | {r['seo']:.0f} | {r['fcp']:.1f} "
                f"| {r['lcp']:.1f} | {r['tbt']:.0f} |",
                flush=True,
            )
        server.shutdown()


if __name__ == "__main__":
    main()
