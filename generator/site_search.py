"""The site's full-text search index: Pagefind, run over the finished HTML.

Material's lunr index is one file that every page downloads whole (about 4 KB gzipped per
entry); Pagefind writes a sharded index under /pagefind/, and a search fetches only the
shards and fragments its words need (docs/architecture.md, Search; docs/benchmarks.md). It
indexes what the pages mark with `data-pagefind-body` (templates/overrides/main.html) and
skips `data-pagefind-ignore` (the lists of links to other entries) and EXCLUDE_SELECTORS.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

OUTPUT_SUBDIR = "pagefind"
# Ten times the longest indexing measured (10k entries): a wedged indexer must not hang a build.
TIMEOUT_SECONDS = 1800
# Text a reader never searches for, left out of the index and of each page's fragment (from
# which Pagefind cuts the excerpts): the "Monitor it" queries (the signatures again, as
# LogQL, Lucene and SPL, whose regex syntax filled excerpts and the index with words such as
# x09 and rawCondition2), and the line only the printed page shows ("Runbook from <URL>"),
# whose URL repeated the page's words and was the excerpt of many results.
EXCLUDE_SELECTORS = ".tw-monitor, .tw-print-only"


class SearchIndexError(RuntimeError):
    pass


def index_site(site_dir: Path) -> None:
    """Write the Pagefind index into `site_dir`/pagefind/, or raise SearchIndexError."""
    command = [
        sys.executable,
        "-m",
        "pagefind",
        "--site",
        str(site_dir),
        "--output-subdir",
        OUTPUT_SUBDIR,
        "--force-language",
        "en",
        "--exclude-selectors",
        EXCLUDE_SELECTORS,
        "--silent",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired as exc:
        raise SearchIndexError(f"pagefind did not finish in {TIMEOUT_SECONDS} s") from exc
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        last = detail[-1] if detail else f"exit code {done.returncode}"
        hint = " (is the pagefind[bin] package installed?)" if "No module" in last else ""
        raise SearchIndexError(f"pagefind failed: {last}{hint}")
