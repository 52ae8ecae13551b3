"""The diagnosis engine: name the failures in a log, the first failed rank, and the collateral.

pattern.py   the signature dialect and its linear-time matcher
index.py     the versioned signature index (the site's /signatures.json) and its loader
prefilter.py every signature anchor found in one pass over a block (Hyperscan)
scan.py      streaming, line rules, and the matched lines with what they say
lineinfo.py  ranks, timestamps and hosts read from a line or a file's path
triage.py    root cause or collateral, earliest first, and the first failed rank
report.py    JSON, Markdown and rich reports
engine.py    the engine on logs held in memory (validation, tests)
inputs.py    files, folders, stdin and decompression: the only file-system access

Nothing here imports the renderer or the site engine. See docs/diagnose.md.
"""
