"""The public catalog's compiled signature index, shipped inside the package.

`signatures.json` here is the file the site publishes at /signatures.json, written by
`trainwreck bundle` and committed, so that a wheel, an sdist and an editable install all carry
it with no build step; tests/test_bundled_index.py fails when it no longer matches entries/.
`trainwreck diagnose` reads it when no catalog is named and there is no entries/ folder here.
"""

from __future__ import annotations

from pathlib import Path

INDEX_FILE = Path(__file__).with_name("signatures.json")
