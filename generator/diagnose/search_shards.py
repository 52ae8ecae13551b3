"""The signature index cut into shards for the site's search box (search-signatures.js).

The box runs the signature matcher on what a reader typed or pasted, so that an error line
finds its entry first. Loading the whole /signatures.json for that costs every first search
about 0.3 KB gzipped per entry (3 MB at 10,000 entries, docs/benchmarks.md); the shards let a
query fetch only the signatures that could match it.

Every signature is filed under one **key**: a word (a maximal run of ASCII letters, digits and
`_`) that lies strictly inside one of the pattern's literals, with a non-word character of the
literal on each side. Every line the pattern matches contains each of its literals, so it
contains the key as a whole word. The box splits the query into its words (`query_words`),
hashes each (`word_hash`, 32-bit FNV-1a, the same in search-signatures.js) and fetches the
shard `hash % shards` of each word whose bit `hash % bits` is set in the filter (a one-hash
Bloom filter of the keys: it spares the fetch for most words that key nothing). Signatures
with no such word (`CUDA_ERROR_ILLEGAL_INSTRUCTION` is its pattern whole) are in the head
file, which every search loads. So the signatures loaded for a query include every signature
that matches any of its lines, and the matcher's answer over them is the same as over the
whole index (tests/diagnose/test_search_shards.py).

Of a signature's words the key is the one fewest signatures could take (then the longest), so
that a word many signatures share (`error`, `PCI`) does not gather them all into one shard that
every query with that word fetches: the Xid signatures are filed under their codes (`79`).

    signatures/search/index.json   {"version": 1, "catalog", "max_line_bytes", "shards": N,
                                    "filter": base64 of the filter's bits (bit i is byte
                                    i >> 3, bit i & 7), "entries", "signatures"}
    signatures/search/<n>.json     {"entries", "signatures"}, n from 0 to N - 1

`signatures` are `{"n", "entry", "pattern", "role"}`, `n` the signature's position in
/signatures.json, which orders the merged list as the whole index orders it; `entries` are
the entries those signatures name, with the title and path the box shows. The shard count and
the filter's size are powers of two, so the shard of a word is also its filter bit modulo N.
"""

from __future__ import annotations

import base64
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from generator.diagnose.index import IndexFile
from generator.diagnose.pattern import literals, parse

SHARDS_VERSION = 1
FOLDER = "signatures/search"
HEAD = f"{FOLDER}/index.json"
# Signatures per shard aimed at; a shard of 64 is about 3-5 KB gzipped.
SIGNATURES_PER_SHARD = 64
# Filter bits per key: with one hash, the share of bits set (a word that keys nothing still
# fetching a shard) is at most 1 / BITS_PER_KEY.
BITS_PER_KEY = 8
_WORD = re.compile(r"[A-Za-z0-9_]+")


def query_words(text: str) -> set[str]:
    """The words of a query, as the search box takes them (search-signatures.js `shardsFor`)."""
    return set(_WORD.findall(text))


def word_hash(word: str) -> int:
    """32-bit FNV-1a over the word's UTF-8 bytes (keys and query words are ASCII)."""
    h = 0x811C9DC5
    for byte in word.encode():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def key_words(pattern: str) -> set[str]:
    """The words every line matching `pattern` holds whole: inside a literal, bounded by
    non-word characters of that literal on both sides."""
    found: set[str] = set()
    for text in literals(parse(pattern)):
        for m in _WORD.finditer(text):
            if m.start() > 0 and m.end() < len(text):
                found.add(m.group())
    return found


def choose_keys(patterns: list[str]) -> list[str | None]:
    """Each pattern's key, or None when it has no key word."""
    candidates = [key_words(p) for p in patterns]
    taken = Counter(w for words in candidates for w in words)
    return [
        min(words, key=lambda w: (taken[w], -len(w), w)) if words else None for words in candidates
    ]


def _pow2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


@dataclass(frozen=True)
class Layout:
    shards: int
    bits: int
    filter: bytes
    keys: tuple[str | None, ...]

    def shard_of(self, word: str) -> int | None:
        """The shard the box fetches for a query word, or None when the filter spares it."""
        h = word_hash(word)
        bit = h % self.bits
        if not self.filter[bit >> 3] >> (bit & 7) & 1:
            return None
        return h % self.shards

    def shards_for(self, text: str) -> set[int]:
        found = (self.shard_of(w) for w in query_words(text))
        return {n for n in found if n is not None}


def layout(index: IndexFile) -> Layout:
    keys = tuple(choose_keys([s.pattern for s in index.signatures]))
    distinct = {k for k in keys if k is not None}
    shards = _pow2(-(-sum(k is not None for k in keys) // SIGNATURES_PER_SHARD))
    bits = max(64, shards, _pow2(len(distinct) * BITS_PER_KEY))
    filter_ = bytearray(bits // 8)
    for key in distinct:
        bit = word_hash(key) % bits
        filter_[bit >> 3] |= 1 << (bit & 7)
    return Layout(shards, bits, bytes(filter_), keys)


def _part(index: IndexFile, numbers: list[int]) -> dict[str, Any]:
    signatures = [index.signatures[n] for n in numbers]
    ids = sorted({s.entry for s in signatures})
    return {
        "entries": {
            i: {"title": index.entries[i].title, "path": index.entries[i].path} for i in ids
        },
        "signatures": [
            {"n": n, "entry": s.entry, "pattern": s.pattern, "role": s.role}
            for n, s in zip(numbers, signatures, strict=True)
        ],
    }


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def shard_files(index: IndexFile) -> dict[str, str]:
    """The head file and every shard, by their path under the site."""
    plan = layout(index)
    by_shard: list[list[int]] = [[] for _ in range(plan.shards)]
    unkeyed: list[int] = []
    for n, key in enumerate(plan.keys):
        if key is None:
            unkeyed.append(n)
        else:
            by_shard[word_hash(key) % plan.shards].append(n)
    head = {
        "version": SHARDS_VERSION,
        "catalog": index.catalog,
        "max_line_bytes": index.max_line_bytes,
        "shards": plan.shards,
        "filter": base64.b64encode(plan.filter).decode("ascii"),
        **_part(index, unkeyed),
    }
    files = {HEAD: _dump(head)}
    for n, numbers in enumerate(by_shard):
        files[f"{FOLDER}/{n}.json"] = _dump(_part(index, numbers))
    return files
