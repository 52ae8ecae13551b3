"""Hyperscan databases kept between runs, so that `diagnose` starts without compiling one.

Compiling the prefilter for the public catalog's ~700 anchors is the largest single cost of a
cold start (tens of milliseconds); loading the serialized database takes microseconds. This is
the one module of diagnose/ that touches files besides the CLI: a cache folder owned by the
user ($TRAINWRECK_CACHE_DIR, else $XDG_CACHE_HOME/trainwreck, else ~/.cache/trainwreck; an
empty TRAINWRECK_CACHE_DIR turns it off). A file is named by a digest of the literals, the
Hyperscan version and the machine, and holds the digest of its own body, so a truncated or
foreign file is compiled over instead of loaded. Any error here falls back to compiling.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from generator.diagnose.prefilter import HyperscanPrefilter, Prefilter, make_prefilter

MAGIC = b"trainwreck-prefilter-1\n"
MAX_BYTES = 64 << 20
_DIGEST = 32


def cache_dir() -> Path | None:
    chosen = os.environ.get("TRAINWRECK_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trainwreck"


def _key(literals: Sequence[bytes], version: str) -> str:
    digest = hashlib.sha256()
    for part in (MAGIC, version.encode(), os.uname().machine.encode()):
        digest.update(part + b"\0")
    for literal in literals:
        digest.update(len(literal).to_bytes(4, "big") + literal)
    return digest.hexdigest()[:40]


def cached_prefilter(literals: Sequence[bytes]) -> Prefilter:
    """make_prefilter(literals), loaded from the cache when a good copy is there."""
    folder = cache_dir()
    if folder is None or not literals:
        return make_prefilter(literals)
    try:
        import hyperscan
    except ImportError:
        return make_prefilter(literals)
    version = str(getattr(hyperscan, "__version__", ""))
    path = folder / f"prefilter-{_key(literals, version)}.hsdb"
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
        head, body = raw[: len(MAGIC) + _DIGEST], raw[len(MAGIC) + _DIGEST :]
        if head == MAGIC + hashlib.sha256(body).digest():
            return HyperscanPrefilter(literals, serialized=body)
    except (OSError, hyperscan.HyperscanError):
        pass  # a missing or bad cache file is compiled over
    made = make_prefilter(literals)
    if isinstance(made, HyperscanPrefilter):
        try:
            body = made.serialized()
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(MAGIC + hashlib.sha256(body).digest() + body)
            os.replace(tmp, path)
        except (OSError, hyperscan.HyperscanError):
            pass  # a cache that cannot be written is no cache
    return made
