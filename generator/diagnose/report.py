"""A diagnosis as JSON for tools, Markdown for issues, and a text report: drawn by rich on a
terminal, written as plain text (without importing rich) to a pipe or a file.

The JSON shape is a contract (tools depend on it) and carries nothing else:

    {"findings": [{"id", "title", "role": "root-cause" | "collateral" | "not-the-cause",
                   "count", "ranks",
                   "first": {"file", "line", "rank", "time", "text"}}],
     "first_failed_rank": int | null,
     "unrecognized": [{"file", "line", "rank", "time", "text", "kind": evidence.KINDS}],
     "culprit": null | {"file", "line", "package", "raised_in": frame | null,
                        "called_from": frame | null, "names": [{"kind", "value"}],
                        "versions": [{"package", "version"}]},
     "launcher": [{"launcher": "torchrun" | "srun" | "mpirun" | "deepspeed" | "spawn" | "shell",
                   "rank", "local",
                   "exitcode", "signal", "meaning", "root", "file", "line", "time", "text"}]}

Log text is never markup here: rich output is built from Text objects, control characters are
replaced before they reach a terminal, and Markdown code is fenced longer than any backtick
run inside it. File names and the index's text (titles, fixes, ids, paths) may come from anyone
too: every one is printed through `printable`, so ESC, OSC, BEL or a line break in a file name
shows as `[U+001B]` and cannot drive the terminal, forge a heading or add a link.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from generator.diagnose.culprit import Culprit, Frame
from generator.diagnose.index import IndexEntry, entry_path
from generator.diagnose.launcher import SIGNALS
from generator.diagnose.scan import ScanStats
from generator.diagnose.trend_words import KIND_TITLES, sparkline, trend_data, trend_says
from generator.diagnose.trends import Trend
from generator.diagnose.triage import TEXT_CHARS, UNRECOGNIZED, Diagnosis, Finding, Hit, Witness
from generator.model.invisible import printable

if TYPE_CHECKING:
    from rich.console import Group

SHOWN_CHARS = 400
_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def _text(hit: Hit) -> str:
    """A kept line's text; one cut to its first TEXT_CHARS characters ends in `…`."""
    return hit.text + "\u2026" if hit.cut else hit.text


def _place(hit: Hit) -> dict[str, Any]:
    return {
        "file": hit.file,
        "line": hit.line,
        "rank": hit.rank,
        "time": hit.time.text if hit.time else None,
        "text": _text(hit),
    }


def _signal_name(w: Witness) -> str | None:
    number = w.signal if w.signal is not None else (-w.code if w.code and w.code < 0 else None)
    if number is None and w.code is not None and w.code - 128 in SIGNALS:
        number = w.code - 128
    return SIGNALS.get(number, (f"signal {number}", ""))[0] if number is not None else None


def to_json(diagnosis: Diagnosis) -> dict[str, Any]:
    return {
        "findings": [
            {
                "id": f.id,
                "title": f.entry.title,
                "role": f.role,
                "count": f.count,
                "ranks": list(f.ranks),
                "first": {
                    "file": f.first.file,
                    "line": f.first.line,
                    "rank": f.first.rank,
                    "time": f.first.time.text if f.first.time else None,
                    "text": _text(f.first),
                },
            }
            for f in diagnosis.findings
        ],
        "first_failed_rank": diagnosis.first_failed_rank,
        "unrecognized": [{**_place(u.hit), "kind": u.kind} for u in diagnosis.unrecognized],
        "culprit": culprit_data(diagnosis),
        "launcher": [
            {
                "launcher": w.launcher,
                "rank": w.rank,
                "local": w.local,
                "exitcode": w.code,
                "signal": _signal_name(w),
                "meaning": w.meaning,
                "root": w.root,
                # The report's own rank above, not the rank prefix of the line it is on.
                **{k: v for k, v in _place(w.hit).items() if k != "rank"},
            }
            for w in diagnosis.witnesses
        ],
        # Only where the progress lines show something: most logs have no trend to report.
        **(
            {"trends": [trend_data(t, t.entry) for t in diagnosis.trends]}
            if diagnosis.trends
            else {}
        ),
    }


def json_report(diagnosis: Diagnosis, header: dict[str, Any] | None = None) -> str:
    """The JSON report; `header` (the CLI's catalog version) comes before the findings."""
    return _indented({**(header or {}), **to_json(diagnosis)}) + "\n"


def _indented(value: Any, depth: int = 0) -> str:
    """`json.dumps(value, indent=2)`, but a list of numbers stands on one line: a finding's
    ranks, which are 512 lines of a report on a 512-rank job that way, and which the
    indenting encoder, written in Python, writes one call per rank (60 ms at 200,000)."""
    if isinstance(value, dict) and value:
        inner = "\n" + "  " * (depth + 1)
        items = (f"{json.dumps(k)}: {_indented(v, depth + 1)}" for k, v in value.items())
        return "{" + inner + ("," + inner).join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list) and value:
        if all(type(v) is int for v in value):
            return json.dumps(value)
        inner = "\n" + "  " * (depth + 1)
        return (
            "[" + inner + ("," + inner).join(_indented(v, depth + 1) for v in value)
            + "\n" + "  " * depth + "]"
        )  # fmt: skip
    return json.dumps(value)


def entry_url(entry: IndexEntry, base_url: str) -> str:
    return f"{base_url.rstrip('/')}/{entry.path}" if base_url else entry.path


def _md_url(url: str) -> str:
    """A link target that stays one target: spaces, parentheses, angle brackets, controls and
    non-ASCII percent-encoded (an index's `path` is text from a file)."""
    return quote(url, safe=":/?#[]@!$&'*+,;=%~")


def _at(hit: Hit) -> str:
    return f"{printable(hit.file)}:{hit.line}"


def shown(text: str) -> str:
    """Log text made safe and short for a terminal or a Markdown code block."""
    text = _CONTROLS.sub("\ufffd", text.rstrip())
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _ranges(ranks: Sequence[int]) -> str:
    parts: list[str] = []
    start = prev = ranks[0]
    for r in [*ranks[1:], None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if r is not None:
            start = prev = r
    return ", ".join(parts)


def rank_summary(rank_counts: Sequence[tuple[int | None, int]]) -> str:
    """`ranks 0-2, 4 (1 line each), rank 3 (4 lines), no rank (2 lines)`."""
    groups: dict[int, list[int]] = {}
    for rank, count in rank_counts:
        if rank is not None:
            groups.setdefault(count, []).append(rank)
    parts = []
    for count, ranks in sorted(groups.items(), key=lambda g: g[1][0]):
        word = "rank" if len(ranks) == 1 else "ranks"
        each = " each" if len(ranks) > 1 else ""
        parts.append(f"{word} {_ranges(ranks)} ({_plural(count, 'line')}{each})")
    unranked = [c for r, c in rank_counts if r is None]
    if unranked:
        parts.append(f"no rank ({_plural(unranked[0], 'line')})")
    return ", ".join(parts)


def _where(hit: Hit) -> str:
    bits = [f"rank {hit.rank}" if hit.rank is not None else "no rank"]
    if hit.host:
        bits.append(f"host {hit.host}")
    if hit.time:
        bits.append(hit.time.text)
    return printable(", ".join(bits))


def _confidence(f: Finding) -> str:
    if f.from_trend:
        return "medium (read from progress lines or stack dumps; no line states an error)"
    if f.context_lines:
        return f"high (with {_plural(f.context_lines, 'supporting line')})"
    return "medium (defining lines only)"


def stats_line(stats: ScanStats) -> str:
    return f"{_plural(stats.files, 'file')}, {_plural(stats.lines, 'line')} read"


def stats_notes(stats: ScanStats, max_line_bytes: int) -> list[str]:
    if not stats.long_lines:
        return []
    return [
        f"{_plural(stats.long_lines, 'line')} longer than {max_line_bytes:,} bytes "
        f"matched on their first {max_line_bytes:,} bytes "
        f"({_plural(stats.skipped_bytes, 'byte')} not matched)"
    ]


def text_notes(diagnosis: Diagnosis) -> list[str]:
    """What the report says of the lines it shows cut (see triage.TEXT_CHARS)."""
    hits = [f.first for f in diagnosis.findings]
    hits += [u.hit for u in diagnosis.unrecognized]
    hits += [w.hit for w in diagnosis.witnesses]
    cut = {id(h): h for h in hits if h.cut}
    if not cut:
        return []
    n = len(cut)
    return [
        f"{_plural(n, 'reported line')} {'is' if n == 1 else 'are'} longer than "
        f"{TEXT_CHARS:,} characters; the report keeps the first {TEXT_CHARS:,} of "
        f"{'it' if n == 1 else 'each'} ({_plural(sum(h.cut for h in cut.values()), 'character')}"
        " left off; in the JSON such a text ends in …)"
    ]


def _causes(caused_by: Sequence[str]) -> str:
    return ", ".join(
        "an error the catalog lacks (see above)" if c == UNRECOGNIZED else printable(c)
        for c in caused_by
    )


# --- text, for terminals (rich) and for pipes and files (plain) ----------------------------

# One line of the text report: its text and style, then more text, each with its own style
# (drawn over the line's). rich draws it on a terminal; elsewhere the styles draw nothing and
# the line is its text, which plain_report writes without importing rich.
Line = tuple[str, str, list[tuple[str, str]]]
# What rich's Text does to a string before printing it: it drops these controls
# (rich.control.strip_control_codes) and expands tabs to its columns. plain_report leaves a
# report with any of them to rich, so that its output is rich's byte for byte.
_RICH_CHANGES = re.compile("[\x07\x08\x0b\x0c\r\t]")


def report_lines(
    diagnosis: Diagnosis, stats: ScanStats, base_url: str, notes: Sequence[str] = ()
) -> list[Line]:
    out: list[Line] = [(f"trainwreck diagnose: {stats_line(stats)}", "dim", [])]
    first = diagnosis.first_failure
    if first is not None:
        when = f", at {first.time.text}" if first.time else ""
        out.append(
            (
                "First failed rank: ",
                "bold",
                [(str(diagnosis.first_failed_rank), "bold red"), (f"{when} ({_at(first)})", "")],
            )
        )
    witness = diagnosis.first_witness
    if witness is not None:
        out.append(_label("exit", f"{witness_says(witness)}", "red"))
    if not diagnosis.root_causes:
        out.append(_BLANK)
        out.append(("No known failure matched.", "bold", []))
        for u in diagnosis.unrecognized:
            out.append(("UNRECOGNISED  ", "bold red", [(KIND_WORDS[u.kind], "bold")]))
            out.append(_label("first", f"{_at(u.hit)} ({_where(u.hit)})"))
            out.append(_label("line", shown(u.hit.text), "cyan"))
            if diagnosis.culprit is not None and u.hit is diagnosis.explained:
                out.append(_label("who", culprit_says(diagnosis.culprit)))
        for step in unrecognized_steps(diagnosis):
            out.append((step, "", []))
    for f in diagnosis.findings:
        out.append(_BLANK)
        culprit = diagnosis.culprit if f.first is diagnosis.explained else None
        out.extend(_finding_lines(f, base_url, culprit))
    for t in diagnosis.trends:
        out.append(_BLANK)
        out.extend(_trend_lines(t, diagnosis, base_url))
    for note in notes:
        out.append(_BLANK)
        out.append((f"note: {printable(note)}", "dim", []))
    return out


def human_report(lines: Sequence[Line]) -> Group:
    """The text report (report_lines) as rich draws it on a terminal."""
    # rich is imported here, not at the top: the other reports start without it.
    from rich.console import Group
    from rich.text import Text

    texts = []
    for text, style, more in lines:
        line = Text(text, style=style)
        for part, part_style in more:
            line.append(part, style=part_style)
        texts.append(line)
    return Group(*texts)


def plain_report(lines: Sequence[Line]) -> str | None:
    """The text report as rich prints it where it does not draw styles (not a terminal), or
    None when rich would change its text (see _RICH_CHANGES)."""
    text = "".join("".join([line, *(part for part, _ in more)]) + "\n" for line, _, more in lines)
    return None if _RICH_CHANGES.search(text) else text


_BLANK: Line = ("", "", [])

KIND_WORDS = {
    "python-exception": "a Python exception",
    "cpp-exception": "a C++ exception",
    "fatal": "a failed internal check",
    "usage": "a command-line usage error",
    "shell": "a program the shell could not find",
    "signal": "a fatal signal",
    "scheduler": "a Slurm error",
    "xid": "a GPU Xid error",
    "nccl-warn": "an NCCL warning",
    "error-line": "an error line",
    "final-line": "the line the log ends with, which reads as an error",
}


def _frame(frame: Frame, parts: int) -> str:
    """`trainer.py:140 in train`, the path's last `parts` parts (0: all of it)."""
    path = frame.path
    if parts:
        path = "/".join(re.split(r"[/\\]", path)[-parts:])
    return f"{path}:{frame.line} in {frame.function}"


def culprit_says(c: Culprit) -> str:
    """`transformers raised it (transformers/trainer.py:2474 in train), called from
    train.py:140 in main; argument gamma; transformers 4.46.0`."""
    said = []
    if c.package is not None and c.raised_in is not None:
        said.append(f"{c.package} raised it ({_frame(c.raised_in, 2)})")
    elif c.package is not None:
        said.append(f"in {c.package}")
    if c.called_from is not None:
        said.append(f"called from {_frame(c.called_from, 0)}")
    head = ", ".join(said)
    tail = [f"{kind} {value}" for kind, value in c.names]
    tail += [f"{package} {version}" for package, version in c.versions]
    return printable("; ".join(part for part in (head, *tail) if part))


def culprit_data(diagnosis: Diagnosis) -> dict[str, Any] | None:
    c, hit = diagnosis.culprit, diagnosis.explained
    if c is None or hit is None:
        return None
    return {
        "file": hit.file,
        "line": hit.line,
        "package": c.package,
        "raised_in": asdict(c.raised_in) if c.raised_in is not None else None,
        "called_from": asdict(c.called_from) if c.called_from is not None else None,
        "names": [{"kind": kind, "value": value} for kind, value in c.names],
        "versions": [{"package": p, "version": v} for p, v in c.versions],
    }


def witness_says(w: Witness) -> str:
    """`torchrun reports rank 2 (local rank) failed: exit code -11: SIGSEGV, ...`."""
    if w.rank is None:
        return f"{w.launcher} reports the process failed: {w.meaning}"
    local = " (a local rank)" if w.local else ""
    return f"{w.launcher} reports rank {w.rank}{local} failed: {w.meaning}"


def unrecognized_steps(diagnosis: Diagnosis) -> list[str]:
    """What to say when the catalog has no entry: plainly that, and how to add one."""
    if not diagnosis.unrecognized:
        return [
            "If this log shows a failure the catalog lacks, add an entry (docs/entry-format.md)."
        ]
    u = diagnosis.unrecognized[0]
    return [
        "The catalog has no entry for this error. To add one:",
        # Quoted for a shell, so a file name cannot add a command to the one suggested here.
        f"  1. trainwreck new <id> --category <category> --from-log "
        f"{printable(shlex.quote(u.hit.file))}",
        "  2. write the prose, check the drafted signature against the upstream source,",
        "     and run trainwreck validate until it reports nothing",
        "  (docs/entry-format.md describes every field)",
    ]


def _label(label: str, value: str, style: str = "") -> Line:
    return (f"  {label:<6}", "dim", [(value, style)])


_HEADS = {
    "root-cause": ("ROOT CAUSE  ", "bold red"),
    "collateral": ("COLLATERAL  ", "yellow"),
    "not-the-cause": ("NOT THE CAUSE  ", "dim"),
}


def _finding_lines(f: Finding, base_url: str, culprit: Culprit | None = None) -> list[Line]:
    root = f.role == "root-cause"
    label, style = _HEADS[f.role]
    head: Line = (
        label,
        style,
        [
            (printable(f.entry.title), "bold"),
            (printable(f"  {f.id} · severity {f.entry.severity}"), "dim"),
        ],
    )
    lines = [head]
    if f.caused_by:
        lines.append(_label("cause", "collateral of " + _causes(f.caused_by)))
    lines.append(_label("first", f"{_at(f.first)} ({_where(f.first)})"))
    lines.append(_label("line", shown(f.first.text), "cyan"))
    if culprit is not None:
        lines.append(_label("who", culprit_says(culprit)))
    lines.append(_label("seen", f"{_plural(f.count, 'line')}: {rank_summary(f.rank_counts)}"))
    if root:
        lines.append(_label("sure", _confidence(f)))
        lines.append(_label("fix", printable(f.entry.quick_fix), "green"))
    elif f.role == "not-the-cause":
        lines.append(_label("why", "a harmless line that is often blamed; look elsewhere"))
    lines.append(_label("page", printable(entry_url(f.entry, base_url)), "blue underline"))
    return lines


def _trend_lines(t: Trend, diagnosis: Diagnosis, base_url: str) -> list[Line]:
    lines: list[Line] = [
        ("PROGRESS  ", "bold magenta", [(KIND_TITLES[t.kind], "bold")]),
        _label("what", trend_says(t)),
        _label("first", f"{t.file}:{t.point.line} ({_trend_where(t)})"),
        _label("line", shown(t.point.text), "cyan"),
    ]
    curve = sparkline(t)
    if curve:
        lines.append(_label("curve", curve, "magenta"))
    if t.entry is not None:
        path = entry_path(t.entry)
        url = f"{base_url.rstrip('/')}/{path}" if base_url else path
        lines.append(_label("page", printable(url), "blue underline"))
    return lines


def _trend_where(t: Trend) -> str:
    rank = f"rank {t.rank}" if t.rank is not None else "no rank"
    return f"{rank}, {t.point.time.text}" if t.point.time else rank


# --- Markdown, for pasting into an issue -----------------------------------------------------


def _code_span(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _code_block(text: str, indent: str = "") -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{indent}{fence}text", f"{indent}{text}", f"{indent}{fence}"]


def _md_text(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>|#])", r"\\\1", printable(text))


def _md_code(text: str) -> str:
    return _code_span(printable(text))


def _md_link(entry: IndexEntry, base_url: str) -> str:
    return f"[{_md_text(entry.title)}]({_md_url(entry_url(entry, base_url))})"


def _md_causes(caused_by: Sequence[str]) -> str:
    return ", ".join(
        "an unrecognised error" if c == UNRECOGNIZED else _md_code(c) for c in caused_by
    )


def markdown_report(
    diagnosis: Diagnosis, stats: ScanStats, base_url: str, notes: Sequence[str] = ()
) -> str:
    out = ["## Trainwreck diagnosis", ""]
    first = diagnosis.first_failure
    if first is not None:
        when = f" at {first.time.text}" if first.time else ""
        out.append(
            f"**First failed rank: {diagnosis.first_failed_rank}**{when} ({_code_span(_at(first))})"
        )
        out.append("")
    if diagnosis.first_witness is not None:
        out.append(f"Launcher: {_md_text(witness_says(diagnosis.first_witness))}.")
        out.append("")
    if not diagnosis.root_causes:
        out.append("No known failure matched.")
        out.append("")
        for u in diagnosis.unrecognized:
            out.append(f"### Unrecognised: {KIND_WORDS[u.kind]}")
            out.append("")
            out.append(f"- First seen: {_code_span(_at(u.hit))} ({_md_text(_where(u.hit))})")
            out.extend(_code_block(shown(u.hit.text), "  "))
            if diagnosis.culprit is not None and u.hit is diagnosis.explained:
                out.append(f"- Culprit: {_md_text(culprit_says(diagnosis.culprit))}")
            out.append("")
        if diagnosis.unrecognized:
            out.extend(_md_text(step) for step in unrecognized_steps(diagnosis))
            out.append("")
    for f in diagnosis.root_causes:
        link = _md_link(f.entry, base_url)
        out.append(f"### Root cause: {link}")
        out.append("")
        out.append(f"- Entry: {_md_code(f.id)}, severity {_md_text(f.entry.severity)}")
        out.append(f"- First seen: {_code_span(_at(f.first))} ({_md_text(_where(f.first))})")
        out.extend(_code_block(shown(f.first.text), "  "))
        if diagnosis.culprit is not None and f.first is diagnosis.explained:
            out.append(f"- Culprit: {_md_text(culprit_says(diagnosis.culprit))}")
        out.append(f"- Seen: {_plural(f.count, 'line')}: {rank_summary(f.rank_counts)}")
        out.append(f"- Confidence: {_confidence(f)}")
        out.append(f"- Fix: {_md_text(f.entry.quick_fix)}")
        out.append("")
    if diagnosis.collateral:
        out.append("### Collateral")
        out.append("")
        out.append("| failure | caused by | lines | first seen |")
        out.append("| --- | --- | --- | --- |")
        for f in diagnosis.collateral:
            link = _md_link(f.entry, base_url)
            out.append(
                f"| {link} {_md_code(f.id)} | {_md_causes(f.caused_by)} "
                f"| {_plural(f.count, 'line')}: {rank_summary(f.rank_counts)} "
                f"| {_code_span(_at(f.first))} ({_md_text(_where(f.first))}) |"
            )
        out.append("")
    if diagnosis.not_the_cause:
        out.append("### Not the cause")
        out.append("")
        out.append("Harmless lines that are often blamed for a failure; look elsewhere.")
        out.append("")
        for f in diagnosis.not_the_cause:
            link = _md_link(f.entry, base_url)
            out.append(
                f"- {link} {_md_code(f.id)}: {_plural(f.count, 'line')}, first "
                f"{_code_span(_at(f.first))}"
            )
        out.append("")
    if diagnosis.trends:
        out.append("### What the progress lines show")
        out.append("")
        for t in diagnosis.trends:
            where = f"{t.file}:{t.point.line}"
            out.append(
                f"- {_md_text(KIND_TITLES[t.kind].capitalize())}: {_md_text(trend_says(t))} "
                f"({_code_span(where)}, {_md_text(_trend_where(t))})"
            )
            out.extend(_code_block(shown(t.point.text), "  "))
        out.append("")
    out.append(f"_{stats_line(stats)}._")
    out.extend(f"_Note: {_md_text(note)}._" for note in notes)
    return "\n".join(out) + "\n"
