"""The command layer: parse arguments, call one function, print, map results to exit codes.

Exit codes: 0 success; 1 the entries have problems (validate, build), or `diagnose
--fail-on-match` found a known failure; 2 bad usage or input that cannot be read.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from generator.problems import FORMATS, Problem, format_problems, has_errors

if TYPE_CHECKING:
    from generator.diagnose.engine import LogBytes
    from generator.diagnose.index import SignatureIndex
    from generator.scaffold import Draft

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
BENIGN_DIR = "corpus/benign"
PROGRESS_MIN_BYTES = 64 << 20


class _Usage(Exception):
    """Bad usage or input that cannot be read: printed as one line, exit code 2."""


def _benign_corpus(option: str | None) -> tuple[list[LogBytes] | None, list[Problem]]:
    """The healthy logs the signature checks match against: *.log under the corpus folder,
    and the problems of the files there that are not read (not regular, too large).

    Without --benign, corpus/benign/ is used when it exists and the check is skipped when not.
    """
    from generator.loading.discovery import read_benign

    folder = Path(option or BENIGN_DIR)
    if not folder.is_dir():
        if option is not None:
            raise _Usage(f"{option}: no such directory")
        return None, []
    return read_benign(folder, Path.cwd())


def _validate(args: argparse.Namespace) -> int:
    from generator.loading.discovery import find_entry_files, read_sources, relative_name
    from generator.validation import validate_sources

    base = Path.cwd()
    requested: list[Path] = []
    for raw in args.paths or [args.entries]:
        path = Path(raw)
        if not path.exists():
            print(f"trainwreck: {raw}: no such file or directory", file=sys.stderr)
            return EXIT_USAGE
        requested.extend(find_entry_files(path))
    catalog_files = find_entry_files(Path(args.entries)) if Path(args.entries).is_dir() else []
    everything = sorted({p.absolute() for p in [*requested, *catalog_files]})
    sources, unreadable = read_sources(everything, base)
    wanted = {relative_name(p, base) for p in requested}
    try:
        benign, benign_problems = _benign_corpus(args.benign)
    except _Usage as exc:
        print(f"trainwreck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    result = validate_sources(sources, report_for=wanted, benign=benign)
    problems = [*unreadable, *benign_problems, *result.problems]
    if problems:
        print(format_problems(problems, args.format))
    elif args.format == "json":
        print("[]")
    if args.format == "text":
        status = (
            f"{len(problems)} problem(s) in {len(wanted)} file(s)"
            if problems
            else f"{len(wanted)} file(s) OK"
        )
        print(status, file=sys.stderr)
    return EXIT_PROBLEMS if has_errors(problems) else EXIT_OK


def _build(args: argparse.Namespace) -> int:
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.mkdocs_glue import build_site
    from generator.publish import PublishError, publish
    from generator.validation import validate_sources

    # Validate first, so a bad entry is reported as file:line:col and no build is attempted.
    sources, unreadable = read_sources(find_entry_files(Path(args.entries)), Path.cwd())
    try:
        benign, benign_problems = _benign_corpus(args.benign)
    except _Usage as exc:
        print(f"trainwreck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    result = validate_sources(sources, benign=benign)
    problems = [*unreadable, *benign_problems, *result.problems]
    if problems:
        print(format_problems(problems, args.format))
    if has_errors(problems):
        print("build stopped: fix the problems above; site/ was left as it was", file=sys.stderr)
        return EXIT_PROBLEMS
    config = Path(args.config)
    validated = (Path(args.entries), result)
    try:
        target = publish(Path(args.site_dir), lambda out: build_site(config, out, validated))
    except PublishError as exc:
        print(f"trainwreck: {exc}; {args.site_dir} was left as it was", file=sys.stderr)
        return EXIT_USAGE
    print(f"built {args.site_dir}/ ({target.name})", file=sys.stderr)
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    from generator.mkdocs_glue import serve_site

    serve_site(Path(args.config), [Path(args.entries), Path("templates")], args.dev_addr)
    return EXIT_OK


def _checks(args: argparse.Namespace) -> int:
    from generator.checks import REGISTRY

    for check_id, cls in sorted(REGISTRY.items()):
        summary = (cls.__doc__ or "").strip().splitlines()[0]
        print(f"{check_id:26} {summary}")
    return EXIT_OK


def _signature_index(args: argparse.Namespace) -> tuple[SignatureIndex, list[str]]:
    """The index from --index FILE, or compiled from the catalog; notes for stderr."""
    from generator.diagnose.index import IndexFormatError, SignatureIndex, build_index, load_index
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.validation import load_doc

    if args.index is not None:
        try:
            raw = Path(args.index).read_bytes()
        except OSError as exc:
            raise _Usage(f"{args.index}: {exc.strerror or exc}") from None
        try:
            return load_index(raw), []
        except IndexFormatError as exc:
            raise _Usage(f"{args.index}: not a usable signature index: {exc}") from None
    folder = Path(args.entries)
    if not folder.is_dir():
        raise _Usage(
            f"{args.entries}: no catalog here; run from the repository root, "
            "or pass --entries DIR or --index FILE"
        )
    sources, unreadable = read_sources(find_entry_files(folder), Path.cwd())
    entries, skipped = {}, len(unreadable)
    for source in sources:
        doc, _ = load_doc(source)
        if doc is None or doc.entry.id in entries:
            skipped += 1
        else:
            entries[doc.entry.id] = doc.entry
    index = SignatureIndex(build_index(entries.values()))
    if not index.signatures:
        raise _Usage(f"{args.entries}: the catalog has no signatures to match")
    notes = []
    if skipped:
        notes.append(
            f"{skipped} entry file(s) in {args.entries} do not load and were left out; "
            "`trainwreck validate` says why"
        )
    return index, notes


@contextmanager
def _progress(total: int, show: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr for large inputs; `advance(done_bytes)` moves it."""
    if not show:
        yield lambda done: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns = (BarColumn(), DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("scanning", total=total)
        yield lambda done: bar.update(task, completed=done)


def _diagnose(args: argparse.Namespace) -> int:
    from rich.console import Console

    from generator.diagnose.inputs import InputError, OpenLog, resolve_inputs
    from generator.diagnose.lineinfo import rank_from_path
    from generator.diagnose.report import (
        human_report,
        json_report,
        markdown_report,
        stats_notes,
    )
    from generator.diagnose.scan import LogReadError, Scanner, ScanProblem, ScanStats
    from generator.diagnose.triage import Tally, triage

    try:
        index, notes = _signature_index(args)
        inputs = resolve_inputs(args.paths)
    except (_Usage, InputError) as exc:
        print(f"trainwreck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    scanner, tally, stats = Scanner(index), Tally(index), ScanStats()
    problems: list[ScanProblem] = []
    total = sum(log.size or 0 for log in inputs)
    show = not args.no_progress and total >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
    with _progress(total, show) as advance:
        done = 0
        for number, log in enumerate(inputs):
            try:
                opened = OpenLog(log, sys.stdin.buffer)
            except LogReadError as exc:
                problems.append(ScanProblem(log.name, str(exc), "read"))
                continue
            with opened:
                tally.add_all(
                    scanner.scan(
                        opened.read,
                        log.name,
                        number,
                        stats,
                        problems,
                        file_rank=rank_from_path(log.name),
                        tick=lambda: advance(done + opened.position()),  # noqa: B023
                    )
                )
            done += log.size or 0
    diagnosis = triage(tally)
    explicit = {log.name for log in inputs if log.explicit}
    errors = [p for p in problems if p.kind == "read" or p.file in explicit]
    notes += [f"{p.file}: {p.message}; skipped" for p in problems if p not in errors]
    if stats.files == 0 and not errors:
        errors.append(ScanProblem(" ".join(args.paths), "no text logs to diagnose", "read"))
    notes += stats_notes(stats, index.max_line_bytes)
    base_url = (
        args.base_url if args.base_url is not None else os.environ.get("TRAINWRECK_SITE_URL", "")
    )
    try:
        if args.format == "json":
            sys.stdout.write(json_report(diagnosis))
            for note in notes:
                print(f"trainwreck: note: {note}", file=sys.stderr)
        elif args.format == "markdown":
            sys.stdout.write(markdown_report(diagnosis, stats, base_url, notes))
        else:
            Console(highlight=False, soft_wrap=True).print(
                human_report(diagnosis, stats, base_url, notes)
            )
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (`| head`) went away; that is not an error of the diagnosis.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    for problem in errors:
        print(f"trainwreck: {problem.file}: {problem.message}", file=sys.stderr)
    if errors:
        return EXIT_USAGE
    if args.fail_on_match and (diagnosis.root_causes or diagnosis.collateral):
        return EXIT_PROBLEMS
    return EXIT_OK


def _draft(path: str) -> Draft:
    """The error line of a log that the catalog may lack, as the diagnosis's fallback finds it
    with no catalog at all (docs/diagnose.md), and the log's lines around it."""
    from generator.diagnose.engine import LogBytes, diagnose_logs
    from generator.diagnose.evidence import body_of
    from generator.diagnose.index import SignatureIndex, build_index
    from generator.diagnose.inputs import LogInput, OpenLog
    from generator.diagnose.lineinfo import read_line_body
    from generator.diagnose.scan import LogReadError
    from generator.scaffold import CONTEXT_AFTER, CONTEXT_BEFORE, Draft

    name = Path(path).as_posix()
    try:
        with OpenLog(LogInput(name, path, True, None)) as opened:
            parts = []
            while chunk := opened.read(1 << 20):
                parts.append(chunk)
    except LogReadError as exc:
        raise ValueError(str(exc)) from None
    raw = b"".join(parts)
    run = diagnose_logs(SignatureIndex(build_index([])), [LogBytes(name, raw)])
    if not run.diagnosis.unrecognized:
        raise ValueError("no line in it states an error (no traceback, signal, Xid or error line)")
    found = run.diagnosis.unrecognized[0]
    lines = raw.decode("utf-8", "replace").split("\n")
    first = max(0, found.hit.line - 1 - CONTEXT_BEFORE)
    around = [line.rstrip("\r") for line in lines[first : found.hit.line + CONTEXT_AFTER]]
    while around and not around[-1].strip():
        around.pop()
    return Draft(
        name,
        found.hit.line,
        found.kind,
        body_of(read_line_body(found.hit.text)[1]),
        tuple(around),
    )


def _new(args: argparse.Namespace) -> int:
    import datetime as dt
    import re

    from generator.model.categories import CATEGORY_IDS
    from generator.model.entry import ID_RE
    from generator.scaffold import draft_from_log, skeleton

    if args.category not in CATEGORY_IDS:
        print(
            f"trainwreck: unknown category {args.category!r}; one of: {', '.join(CATEGORY_IDS)}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not re.match(ID_RE, args.id):
        print(
            f"trainwreck: {args.id!r} is not a kebab-case id (e.g. nccl-watchdog-timeout)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    root = Path(args.entries)
    taken = [p for p in root.rglob(f"{args.id}.y*ml")] if root.is_dir() else []
    if taken:
        print(f"trainwreck: {taken[0].as_posix()} already exists", file=sys.stderr)
        return EXIT_USAGE
    text = skeleton(args.id, args.category, dt.date.today())
    if args.from_log is not None:
        try:
            draft = _draft(args.from_log)
        except (OSError, ValueError) as exc:
            print(f"trainwreck: {args.from_log}: {exc}", file=sys.stderr)
            return EXIT_USAGE
        text = draft_from_log(args.id, args.category, dt.date.today(), draft)
    target = root / args.category / f"{args.id}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("x", encoding="utf-8") as handle:
        handle.write(text)
    print(target.as_posix())
    print(f"next: fill it in, then `trainwreck validate {target.as_posix()}`", file=sys.stderr)
    return EXIT_OK


def _fmt(args: argparse.Namespace) -> int:
    from generator.loading.discovery import Refused, find_entry_files, read_regular
    from generator.loading.fmt import FormatError, format_text
    from generator.loading.yaml_source import MAX_FILE_BYTES

    paths: list[Path] = []
    for raw in args.paths or [args.entries]:
        if not Path(raw).exists():
            print(f"trainwreck: {raw}: no such file or directory", file=sys.stderr)
            return EXIT_USAGE
        paths.extend(find_entry_files(Path(raw)))
    changed: list[str] = []
    failed = False
    for path in paths:
        try:
            raw = read_regular(path, Path.cwd(), MAX_FILE_BYTES)
            if len(raw) > MAX_FILE_BYTES:
                raise Refused("fmt", "file is larger than the limit for an entry")
            # Universal newlines, as read_text gave: CRLF files come out with LF.
            text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
            formatted = format_text(text)
        except (Refused, UnicodeDecodeError) as exc:
            print(f"{path.as_posix()}:1:1: error [fmt] cannot read: {exc}", file=sys.stderr)
            failed = True
            continue
        except FormatError as exc:
            print(f"{path.as_posix()}:{exc.line}:{exc.col}: error [fmt] {exc.message}")
            failed = True
            continue
        if formatted == text:
            continue
        changed.append(path.as_posix())
        if not args.check:
            # Write beside and rename, so an interrupted fmt never leaves half a file; a
            # linked entry is formatted where it lives (inside the repository), and stays a link.
            real = Path(os.path.realpath(path))
            tmp = real.with_name(f".{real.name}.fmt-tmp")
            tmp.write_text(formatted, encoding="utf-8")
            os.replace(tmp, real)
    for name in changed:
        print(f"{name}: {'would reformat' if args.check else 'reformatted'}")
    if failed:
        return EXIT_PROBLEMS
    return EXIT_PROBLEMS if (args.check and changed) else EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from generator.model.json_schema import SCHEMA_PATH, editor_schema_text

    target = Path(args.output or SCHEMA_PATH)
    text = editor_schema_text()
    current = target.read_text(encoding="utf-8") if target.is_file() else None
    if args.check:
        if current != text:
            print(f"{target.as_posix()} is out of date: run `trainwreck schema`", file=sys.stderr)
            return EXIT_PROBLEMS
        return EXIT_OK
    target.parent.mkdir(parents=True, exist_ok=True)
    if current != text:
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target.as_posix()}", file=sys.stderr)
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="trainwreck", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True)

    validate = sub.add_parser("validate", help="check entries and report every problem")
    validate.add_argument("paths", nargs="*", help="files or folders (default: entries/)")
    validate.add_argument(
        "--entries", default="entries", help="the catalog, for cross-entry checks"
    )
    validate.add_argument("--format", choices=FORMATS, default="text")
    validate.add_argument(
        "--benign", help=f"healthy logs no signature may match (default: {BENIGN_DIR}/)"
    )
    validate.set_defaults(run=_validate)

    build = sub.add_parser("build", help="validate, then build the site into site/ atomically")
    build.add_argument("--entries", default="entries")
    build.add_argument("--config", default="mkdocs.yml")
    build.add_argument("--site-dir", default="site")
    build.add_argument("--format", choices=FORMATS, default="text")
    build.add_argument("--benign", help=f"healthy logs (default: {BENIGN_DIR}/)")
    build.set_defaults(run=_build)

    serve = sub.add_parser("serve", help="preview the site with live reload")
    serve.add_argument("--entries", default="entries")
    serve.add_argument("--config", default="mkdocs.yml")
    serve.add_argument("--dev-addr", default="127.0.0.1:8000")
    serve.set_defaults(run=_serve)

    checks = sub.add_parser("checks", help="list every check id and what it enforces")
    checks.set_defaults(run=_checks)

    diagnose = sub.add_parser(
        "diagnose",
        help="name the failures in logs, the first failed rank, and the collateral",
        description="Exit codes: 0 ran; 1 with --fail-on-match, a known failure was found; "
        "2 bad usage or input that could not be read (what was read is still diagnosed).",
    )
    diagnose.add_argument(
        "paths", nargs="+", metavar="PATH", help="log files (.gz, .bz2, .xz too), folders, or -"
    )
    source = diagnose.add_mutually_exclusive_group()
    source.add_argument("--entries", default="entries", help="catalog to compile (default)")
    source.add_argument("--index", help="a compiled signature index (signatures.json)")
    diagnose.add_argument(
        "--format", choices=("text", "markdown", "json"), default="text", help="report format"
    )
    diagnose.add_argument(
        "--json", dest="format", action="store_const", const="json", help="same as --format json"
    )
    diagnose.add_argument(
        "--base-url", help="site root for entry links (default: $TRAINWRECK_SITE_URL)"
    )
    diagnose.add_argument(
        "--fail-on-match", action="store_true", help="exit 1 when a known failure is found"
    )
    diagnose.add_argument("--no-progress", action="store_true", help="no progress bar")
    diagnose.set_defaults(run=_diagnose)

    new = sub.add_parser("new", help="write the skeleton of a new entry")
    new.add_argument("id", help="kebab-case id, e.g. host-oom-killer")
    new.add_argument("--category", required=True, help="the entry's category (its folder)")
    new.add_argument("--entries", default="entries")
    new.add_argument(
        "--from-log",
        metavar="FILE",
        help="draft observed, one signature and one example from the error line of this log",
    )
    new.set_defaults(run=_new)

    fmt = sub.add_parser("fmt", help="rewrite entries in the canonical layout, keeping comments")
    fmt.add_argument("paths", nargs="*", help="files or folders (default: entries/)")
    fmt.add_argument("--entries", default="entries")
    fmt.add_argument("--check", action="store_true", help="change nothing; exit 1 if any would")
    fmt.set_defaults(run=_fmt)

    schema = sub.add_parser("schema", help="write the JSON Schema for editors")
    schema.add_argument("--output", help="default: schema/entry.schema.json")
    schema.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    schema.set_defaults(run=_schema)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
