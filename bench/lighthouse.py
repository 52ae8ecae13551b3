"""Lighthouse scores of the built site's page kinds, mobile, with simulated throttling.

    npm install --no-save --no-package-lock --prefix .bench-node lighthouse@12   # once
    python bench/lighthouse.py                     # builds the real catalog into a scratch dir
    python bench/lighthouse.py --site site         # an existing build

Serves the site on loopback and runs Lighthouse (.bench-node's, or $LIGHTHOUSE; `make bench`)
against Debian's chromium (CHROME_PATH=/usr/bin/chromium, the flags of tests/chromium.py plus
headless) on the home, an entry, a category, /xid/ and /diagnose/ pages. Prints performance,
accessibility, best practices and SEO, the paints and the total blocking time of the median
run, every run's performance score, and Lighthouse's CPU benchmark index. Simulated
throttling replays the network, but it multiplies the CPU time it observed by 4, so a loaded
machine still lowers the blocking time's score: each page runs --runs times and the median
performance run counts. Target (issue 18): performance >= 95.

The site is served as a static host serves it (HTTP/1.1 keep-alive, gzip); --plain-server
uses Python's file server instead, which has neither.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import ClassVar

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
# What a static host (GitHub Pages, Netlify, nginx with gzip on) compresses.
COMPRESSIBLE = (".html", ".css", ".js", ".json", ".xml", ".svg", ".txt", ".map")


class HostHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site the way a static host does: HTTP/1.1 keep-alive, and gzip for text.

    Python's plain file server speaks HTTP/1.0 (a new connection per file) and never
    compresses; Lighthouse would then score the server, not the pages (docs/benchmarks.md).
    """

    protocol_version = "HTTP/1.1"
    cache: ClassVar[dict[str, bytes]] = {}
    lock: ClassVar[threading.Lock] = threading.Lock()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in COMPRESSIBLE):
            super().do_GET()
            return
        with self.lock:
            body = self.cache.get(str(path))
            if body is None:
                body = self.cache[str(path)] = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(root: Path, plain: bool) -> tuple[http.server.ThreadingHTTPServer, str]:
    if plain:
        from tests.browser.conftest import serve_dir

        return serve_dir(root)
    handler = functools.partial(HostHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


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
    # Lighthouse's own measure of this machine's CPU at the start of the run; below 1000 it
    # warns that the 4x simulated slowdown lands on a slower CPU than it is calibrated for.
    scores["cpu"] = report["environment"]["benchmarkIndex"]
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build entries/)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reports", type=Path, help="keep each run's JSON report in this folder")
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), default=list(PAGES))
    parser.add_argument(
        "--plain-server",
        action="store_true",
        help="Python's file server (HTTP/1.0, no compression) instead of a host-like one",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tw-lighthouse-") as tmp:
        site = args.site.resolve() if args.site else Path(tmp) / "site"
        if not args.site:
            from generator.mkdocs_glue import build_site

            build_site(REPO / "mkdocs.yml", site)
        server, url = serve(site, args.plain_server)
        print(
            "| page | performance | accessibility | best practices | SEO | FCP s | LCP s | TBT ms "
            "| every run | CPU index |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
        reports = args.reports.resolve() if args.reports else Path(tmp)
        reports.mkdir(parents=True, exist_ok=True)
        for name in args.pages:
            path = PAGES[name]
            runs = [run(url + path, reports / f"{name}-{i}.json") for i in range(args.runs)]
            perf = statistics.median_low(r["performance"] for r in runs)
            r = next(r for r in runs if r["performance"] == perf)
            every = " ".join(f"{x['performance']:.0f}" for x in runs)
            cpu = statistics.median(x["cpu"] for x in runs)
            print(
                f"| {name} | {r['performance']:.0f} | {r['accessibility']:.0f} "
                f"| {r['best-practices']:.0f} | {r['seo']:.0f} | {r['fcp']:.1f} "
                f"| {r['lcp']:.1f} | {r['tbt']:.0f} | {every} | {cpu:.0f} |",
                flush=True,
            )
        server.shutdown()


if __name__ == "__main__":
    main()
