"""The command layer: parse arguments, call one function, print, map results to exit codes.

Exit codes: 0 success; 1 the entries have problems (validate, build), or `diagnose
--fail-on-match` found a known failure; 2 bad usage, input that cannot be read, or standard
output that is closed or cannot be written (see main()).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from generator.model.invisible import printable
from generator.problems import FORMATS, Problem, format_problems, has_errors

if TYPE_CHECKING:
    from generator.diagnose.engine import LogBytes
    from generator.diagnose.index import IndexFile, SignatureIndex
    from generator.model.categories import CategoryInfo
    from generator.model.entry import Entry
    from generator.scaffold import Draft
    from generator.validation import SourceFile

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
BENIGN_DIR = "corpus/benign"
PROGRESS_MIN_BYTES = 64 << 20
ENTRIES_HELP = "a catalog folder; repeat to add your own to the public one (default: entries/)"


def _say(message: str, prefix: str = "trainwreck: ") -> None:
    """One line on stderr. Paths and file text in it are shown through printable(), so a file
    name holding ESC or a line break cannot drive the terminal or forge a second line."""
    print(prefix + printable(message), file=sys.stderr)


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


def _named_twice(folders: object) -> str | None:
    """One line when two --entries name one folder: each entry would be its own duplicate."""
    if not isinstance(folders, list):
        return None
    seen: dict[str, str] = {}
    for folder in folders:
        real = os.path.realpath(folder)
        if real in seen:
            first = seen[real]
            same = "twice" if first == folder else f"twice ({first} and {folder} are one folder)"
            return f"{folder}: --entries names this folder {same}; name it once"
        seen[real] = folder
    return None


def _folders(args: argparse.Namespace) -> list[str]:
    """The catalog folders of validate, build, serve and export: each --entries, or entries/."""
    return list(args.entries or ["entries"])


def _missing(folders: Sequence[str]) -> bool:
    """Say so when a catalog folder that build or serve needs is not there."""
    gone = [f for f in folders if not Path(f).is_dir()]
    for folder in gone:
        print(f"trainwreck: {folder}: no such folder", file=sys.stderr)
    return bool(gone)


def _catalog(
    folders: Sequence[str],
) -> tuple[list[SourceFile], tuple[CategoryInfo, ...], list[Problem]]:
    """Every entry file of the folders (a folder outside this one is its own boundary for
    links), their categories, and the problems of the files that are not read."""
    from generator.loading.discovery import (
        containing,
        find_entry_files,
        read_categories,
        read_sources,
    )

    base = Path.cwd()
    categories, problems = read_categories([Path(f) for f in folders], base)
    sources: list[SourceFile] = []
    for folder in map(Path, folders):
        if folder.is_dir():
            inside = containing(folder, base)
            found, unreadable = read_sources(find_entry_files(folder), base, inside=inside)
            sources.extend(found)
            problems.extend(unreadable)
    return sources, categories, problems


def _validate(args: argparse.Namespace) -> int:
    from generator.loading.discovery import find_entry_files, read_sources, relative_name
    from generator.validation import validate_sources

    base = Path.cwd()
    folders = _folders(args)
    requested: list[Path] = []
    for raw in args.paths or folders:
        path = Path(raw)
        if not path.exists():
            _say(f"{raw}: no such file or directory")
            return EXIT_USAGE
        requested.extend(find_entry_files(path))
    sources, categories, unreadable = _catalog(folders)
    # Files named on the command line outside every catalog folder are read too.
    known = {s.path for s in sources} | {p.path for p in unreadable}
    extra = [p for p in requested if relative_name(p, base) not in known]
    more, more_unreadable = read_sources(sorted({p.absolute() for p in extra}), base)
    sources, unreadable = [*sources, *more], [*unreadable, *more_unreadable]
    wanted = {relative_name(p, base) for p in requested}
    try:
        benign, benign_problems = _benign_corpus(args.benign)
    except _Usage as exc:
        _say(str(exc))
        return EXIT_USAGE
    result = validate_sources(sources, report_for=wanted, benign=benign, categories=categories)
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


@contextmanager
def _use_folders(folders: Sequence[str]) -> Iterator[None]:
    """Hand the catalog folders to the MkDocs plugin (which MkDocs creates itself) for as
    long as the build or preview runs."""
    from generator.mkdocs_glue import ENTRIES_ENV

    before = os.environ.get(ENTRIES_ENV)
    os.environ[ENTRIES_ENV] = os.pathsep.join(str(Path(f).absolute()) for f in folders)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENTRIES_ENV, None)
        else:
            os.environ[ENTRIES_ENV] = before


def _build(args: argparse.Namespace) -> int:
    from generator.mkdocs_glue import build_site
    from generator.publish import PublishError, publish
    from generator.validation import validate_sources

    # Validate first, so a bad entry is reported as file:line:col and no build is attempted.
    folders = _folders(args)
    if _missing(folders):
        return EXIT_USAGE
    sources, categories, unreadable = _catalog(folders)
    try:
        benign, benign_problems = _benign_corpus(args.benign)
    except _Usage as exc:
        _say(str(exc))
        return EXIT_USAGE
    result = validate_sources(sources, benign=benign, categories=categories)
    problems = [*unreadable, *benign_problems, *result.problems]
    if problems:
        print(format_problems(problems, args.format))
    if has_errors(problems):
        print("build stopped: fix the problems above; site/ was left as it was", file=sys.stderr)
        return EXIT_PROBLEMS
    config = Path(args.config)
    validated = ([Path(f) for f in folders], categories, result)
    try:
        with _use_folders(folders):
            target = publish(Path(args.site_dir), lambda out: build_site(config, out, validated))
    except PublishError as exc:
        _say(f"{exc}; {args.site_dir} was left as it was")
        return EXIT_USAGE
    _say(f"built {args.site_dir}/ ({target.name})", prefix="")
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    from generator.mkdocs_glue import serve_site

    folders = _folders(args)
    if _missing(folders):
        return EXIT_USAGE
    with _use_folders(folders):
        serve_site(Path(args.config), [*map(Path, folders), Path("templates")], args.dev_addr)
    return EXIT_OK


def _checks(args: argparse.Namespace) -> int:
    from generator.checks import REGISTRY

    for check_id, cls in sorted(REGISTRY.items()):
        summary = (cls.__doc__ or "").strip().splitlines()[0]
        print(f"{check_id:26} {summary}")
    return EXIT_OK


def _loaded_entries(folders: Sequence[str]) -> tuple[list[Entry], list[str]]:
    """The entries that load in `folders` (ids first come, first kept), and a note per folder
    saying how many files did not."""
    from generator.loading.discovery import containing, find_entry_files, read_sources
    from generator.validation import loadable_entries

    entries: dict[str, Entry] = {}
    notes: list[str] = []
    for folder in folders:
        if not Path(folder).is_dir():
            raise _Usage(
                f"{folder}: no catalog here; run from the repository root, "
                "or pass --entries DIR or --index FILE"
            )
        inside = containing(Path(folder), Path.cwd())
        sources, unreadable = read_sources(find_entry_files(Path(folder)), Path.cwd(), inside)
        loaded, left_out = loadable_entries(sources)
        skipped = len(unreadable) + left_out
        for entry in loaded:
            if entry.id in entries:
                skipped += 1
            else:
                entries[entry.id] = entry
        if skipped:
            notes.append(
                f"{skipped} entry file(s) in {folder} do not load and were left out; "
                "`trainwreck validate` says why"
            )
    return list(entries.values()), notes


def _compile_folders(folders: Sequence[str]) -> tuple[IndexFile, list[str]]:
    """The index of the entries that load in `folders`; notes."""
    from generator.diagnose.index import build_index

    entries, notes = _loaded_entries(folders)
    return build_index(entries), notes


def _bundled() -> IndexFile:
    from generator.bundled import INDEX_FILE
    from generator.diagnose.index import index_from_data

    return index_from_data(json.loads(INDEX_FILE.read_bytes()))


def _signature_index(args: argparse.Namespace) -> tuple[SignatureIndex, list[str]]:
    """The index from --index FILE, compiled from --entries folders (with --public, on top of
    the bundled public catalog), from entries/ when it is here, or else the bundled one."""
    from generator.diagnose.index import (
        MAX_INDEX_BYTES,
        IndexFormatError,
        SignatureIndex,
        load_bundled_index,
        load_index,
        merge_indexes,
    )

    if args.public and not args.entries:
        raise _Usage("--public adds the public catalog to your own: name them with --entries DIR")
    if args.index is not None:
        # Here, not above: discovery imports the validator, which a start with the bundled
        # index must not pay for (tests/test_bundled_index.py).
        from generator.loading.discovery import Refused, read_regular

        try:
            # A regular file only, read up to the cap: never a FIFO or /dev/zero.
            raw = read_regular(Path(args.index), None, MAX_INDEX_BYTES)
        except Refused as exc:
            raise _Usage(f"{args.index}: {exc.message}") from None
        try:
            return load_index(raw), []
        except IndexFormatError as exc:
            raise _Usage(f"{args.index}: not a usable signature index: {exc}") from None
    folders = args.entries or (["entries"] if Path("entries").is_dir() else [])
    try:
        if not folders:
            # Outside a checkout: the public catalog that came with the package.
            from generator.bundled import INDEX_FILE

            return load_bundled_index(INDEX_FILE.read_bytes()), []
        data, notes = _compile_folders(folders)
        if args.public:
            data = merge_indexes(_bundled(), data)
    except (OSError, IndexFormatError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise _Usage(
            f"the public catalog bundled with trainwreck cannot be read ({why}); "
            "reinstall it, or pass --entries DIR or --index FILE"
        ) from None
    except ValueError as exc:
        raise _Usage(f"{' '.join(folders)}: {exc}") from None
    index = SignatureIndex(data)
    if not index.signatures:
        raise _Usage(f"{' '.join(folders)}: the catalog has no signatures to match")
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


def _terminal(stream: TextIO) -> bool:
    """Whether rich's Console takes `stream` for a terminal and draws styles on it
    (rich.console.Console.is_terminal): TTY_COMPATIBLE=0 or 1 says so, then a non-empty
    FORCE_COLOR, then the stream's isatty()."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False


def _diagnose(args: argparse.Namespace) -> int:
    from generator.diagnose.context import END_BYTES, TAIL_BYTES, Tail, read_lines
    from generator.diagnose.ending import with_ending
    from generator.diagnose.engine import LinesOf, with_culprit
    from generator.diagnose.exception_line import with_exception_line
    from generator.diagnose.inputs import InputError, NotALog, OpenLog, rereadable, resolve_inputs
    from generator.diagnose.lineinfo import rank_from_path
    from generator.diagnose.prefilter_cache import cached_prefilter
    from generator.diagnose.progress import ProgressReader
    from generator.diagnose.report import (
        human_report,
        json_report,
        markdown_report,
        plain_report,
        report_lines,
        stats_notes,
        text_notes,
    )
    from generator.diagnose.scan import (
        LogReadError,
        Scanner,
        ScanProblem,
        ScanStats,
        Settled,
        scan_literals,
    )
    from generator.diagnose.trend_findings import trends_in, with_trends
    from generator.diagnose.triage import Tally, triage

    try:
        index, notes = _signature_index(args)
        inputs = resolve_inputs(args.paths)
    except (_Usage, InputError) as exc:
        _say(str(exc))
        return EXIT_USAGE
    scanner = Scanner(index, cached_prefilter(scan_literals(index)))
    _collect(scanning=True)  # the start is done: see main()
    tally, stats, settled = Tally(index), ScanStats(), Settled()
    problems: list[ScanProblem] = []
    tails: dict[int, Tail] = {}  # each log's end: the line it ends with, and a pipe's lines
    readers: list[ProgressReader] = []  # each log's progress lines (trends.py)
    rereadables: set[int] = set()  # the logs the culprit's lines are read again from
    total = sum(log.size or 0 for log in inputs)
    show = not args.no_progress and total >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
    with _progress(total, show) as advance:
        done = 0
        for number, log in enumerate(inputs):
            try:
                # None when standard input was closed: `-` is then an error.
                opened = OpenLog(log, sys.stdin.buffer if sys.stdin is not None else None)
            except LogReadError as exc:
                # A checkpoint or an archive among the logs is skipped like a binary file.
                binary = isinstance(exc, NotALog)
                problems.append(ScanProblem(log.name, str(exc), "binary" if binary else "read"))
                continue
            with opened:
                # Standard input or a pipe cannot be read again: it keeps a longer end, for
                # the culprit.
                again = rereadable(log)
                tail = Tail(opened.read, END_BYTES if again else TAIL_BYTES)
                if again:
                    rereadables.add(number)
                tails[number] = tail
                file_rank = rank_from_path(log.name)
                progress = ProgressReader(tail, log.name, number, file_rank)
                readers.append(progress)
                tally.add_all(
                    scanner.scan(
                        progress.read,
                        log.name,
                        number,
                        stats,
                        problems,
                        file_rank=file_rank,
                        tick=lambda: advance(done + opened.position()),  # noqa: B023
                        settled=settled,
                    ),
                    settled,
                )
                tally.add_settled(settled)
            done += log.size or 0

    def reopen(number: int) -> LinesOf | None:
        log = inputs[number]
        if number not in rereadables:
            return tails[number].lines

        def lines_of(wanted: set[int], max_bytes: int) -> dict[int, bytes]:
            try:
                with OpenLog(log) as again:
                    return read_lines(again.read, wanted, max_bytes)
            except (LogReadError, OSError):
                return {}  # gone since it was read: the culprit goes unnamed

        return lines_of

    endings = [(n, inputs[n].name, tail.last_line()) for n, tail in tails.items()]
    diagnosis = with_trends(triage(tally), trends_in(readers, endings), index)
    diagnosis = with_exception_line(with_ending(diagnosis, endings), reopen)
    diagnosis = with_culprit(diagnosis, reopen)
    explicit = {log.name for log in inputs if log.explicit}
    errors = [p for p in problems if p.kind == "read" or p.file in explicit]
    notes += [f"{p.file}: {p.message}; skipped" for p in problems if p not in errors]
    if stats.files == 0 and not errors:
        errors.append(ScanProblem(" ".join(args.paths), "no text logs to diagnose", "read"))
    notes += stats_notes(stats, index.max_line_bytes)
    notes += text_notes(diagnosis)
    base_url = (
        args.base_url if args.base_url is not None else os.environ.get("TRAINWRECK_SITE_URL", "")
    )
    # A reader that goes away (`| head`) is not an error of the diagnosis: see _Stdout.
    if args.format == "json":
        sys.stdout.write(json_report(diagnosis, {"catalog": index.data.catalog}))
        for note in notes:
            _say(f"note: {note}")
    elif args.format == "markdown":
        sys.stdout.write(markdown_report(diagnosis, stats, base_url, notes))
    else:
        lines = report_lines(diagnosis, stats, base_url, notes)
        plain = None if _terminal(sys.stdout) else plain_report(lines)
        if plain is not None:
            # What rich prints here, without the import (bench/startup.py).
            sys.stdout.write(plain)
        else:
            from rich.console import Console

            Console(highlight=False, soft_wrap=True).print(human_report(lines))
    sys.stdout.flush()
    for problem in errors:
        _say(f"{problem.file}: {problem.message}")
    if errors:
        return EXIT_USAGE
    if args.fail_on_match and (diagnosis.root_causes or diagnosis.collateral):
        return EXIT_PROBLEMS
    return EXIT_OK


def _draft(path: str) -> Draft:
    """The error line of a log that the catalog may lack, as the diagnosis's fallback finds it
    with no catalog at all (docs/diagnose.md), and the log's lines around it. The log is
    streamed twice, as `diagnose` streams it: no log, however large, is held in memory."""
    from generator.diagnose.context import read_lines, wanted_lines
    from generator.diagnose.engine import diagnose_reads
    from generator.diagnose.evidence import body_of
    from generator.diagnose.index import SignatureIndex, build_index
    from generator.diagnose.inputs import LogInput, OpenLog, rereadable
    from generator.diagnose.lineinfo import read_line_body
    from generator.diagnose.scan import LogReadError
    from generator.scaffold import CONTEXT_AFTER, CONTEXT_BEFORE, Draft

    name = Path(path).as_posix()
    log = LogInput(name, path, True, None)
    if os.path.exists(path) and not os.path.isdir(path) and not rereadable(log):
        # The draft reads the log twice: a FIFO's second open would wait for a writer forever.
        raise ValueError("not a regular file (a pipe is read only once); save the log to a file")
    try:
        with OpenLog(log) as opened:
            run = diagnose_reads(SignatureIndex(build_index([])), [(name, opened.read)])
        if run.problems:
            raise ValueError(run.problems[0].message)
        if not run.diagnosis.unrecognized:
            raise ValueError(
                "no line in it states an error (no traceback, signal, Xid or error line)"
            )
        found = run.diagnosis.unrecognized[0]
        with OpenLog(log) as opened:
            lines = read_lines(
                opened.read, wanted_lines([found.hit.line], CONTEXT_BEFORE, CONTEXT_AFTER)
            )
    except LogReadError as exc:
        raise ValueError(str(exc)) from None
    around = [lines[n].decode("utf-8", "replace").rstrip("\r") for n in sorted(lines)]
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
        _say(f"{taken[0].as_posix()} already exists")
        return EXIT_USAGE
    text = skeleton(args.id, args.category, dt.date.today())
    if args.from_log is not None:
        try:
            draft = _draft(args.from_log)
        except (OSError, ValueError) as exc:
            _say(f"{args.from_log}: {exc}")
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
            _say(f"{raw}: no such file or directory")
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
            _say(f"{path.as_posix()}:1:1: error [fmt] cannot read: {exc}", prefix="")
            failed = True
            continue
        except FormatError as exc:
            print(printable(f"{path.as_posix()}:{exc.line}:{exc.col}: error [fmt] {exc.message}"))
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
        print(printable(f"{name}: {'would reformat' if args.check else 'reformatted'}"))
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


def _bundle(args: argparse.Namespace) -> int:
    from generator.bundled import INDEX_FILE
    from generator.diagnose.index import build_index, index_json
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.validation import validate_sources

    # The same entries and the same file as the site's /signatures.json (mkdocs_glue.py).
    sources, unreadable = read_sources(find_entry_files(Path(args.entries)), Path.cwd())
    result = validate_sources(sources)
    problems = [*unreadable, *result.problems]
    if has_errors(problems):
        print(format_problems(problems, "text"))
        print("bundle stopped: fix the problems above", file=sys.stderr)
        return EXIT_PROBLEMS
    text = index_json(build_index(result.entries))
    current = INDEX_FILE.read_text(encoding="utf-8") if INDEX_FILE.is_file() else None
    if args.check:
        if current != text:
            print(
                f"{INDEX_FILE.as_posix()} is out of date: run `trainwreck bundle`", file=sys.stderr
            )
            return EXIT_PROBLEMS
        return EXIT_OK
    if current != text:
        INDEX_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {INDEX_FILE.as_posix()}", file=sys.stderr)
    return EXIT_OK


class _Version(argparse.Action):
    """`--version`: the program's version and the catalog it carries, read only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            mine = version("trainwreck")
        except PackageNotFoundError:
            mine = "(not installed)"
        try:
            data = _bundled()
            catalog = f"catalog {data.catalog} ({len(data.entries)} entries)"
        except (OSError, ValueError, KeyError):
            catalog = "no bundled catalog"
        print(f"trainwreck {mine}, {catalog}")
        parser.exit()


def _completion(args: argparse.Namespace) -> int:
    from generator.completion import completion_script

    sys.stdout.write(completion_script(parser(), args.shell))
    return EXIT_OK


# Shown under each command's --help: a command line worth copying.
EXAMPLES = {
    "validate": "trainwreck validate entries/memory/\n"
    "  trainwreck validate --entries ours/ --entries entries/   # your catalog on ours",
    "build": "trainwreck build\n  trainwreck build --entries entries/ --entries ../ours/",
    "serve": "trainwreck serve --dev-addr 127.0.0.1:8000",
    "checks": "trainwreck checks | grep signature",
    "diagnose": "trainwreck diagnose logs/                  # rank0.log, rank1.log, ...\n"
    "  trainwreck diagnose job.log.gz --json\n"
    "  trainwreck diagnose --entries ours/ --public logs/   # private entries too",
    "new": "trainwreck new host-oom-killer --category memory --from-log job.log",
    "fmt": "trainwreck fmt --check",
    "schema": "trainwreck schema --check",
    "bundle": "trainwreck bundle --check",
    "completion": 'eval "$(trainwreck completion bash)"     # in ~/.bashrc\n'
    "  trainwreck completion fish | source",
    "export": "trainwreck export loki --out rules/      # rules/loki/rules.yaml for the ruler\n"
    "  trainwreck export sigma --entries ours/ --entries entries/   # your entries too",
    "fleet": "trainwreck fleet scan s3a://logs/2026-12-01/ --out triage/ --format json",
}


class _TopHelp(argparse.RawDescriptionHelpFormatter):
    """`trainwreck --help`: every command and its summary on one line."""

    def __init__(self, prog: str) -> None:
        width = max(100, shutil.get_terminal_size().columns)
        super().__init__(prog, max_help_position=18, width=width)
        # Room for the longest command name ("completion"), which argparse measures too short.
        self._action_max_length = 16


FLEET_EXTRA = "needs the fleet extra: pip install 'trainwreck[fleet]'"


def _site_url(args: argparse.Namespace) -> str:
    from generator.render.data_files import check_site_url

    url = args.base_url or os.environ.get("TRAINWRECK_SITE_URL") or "http://127.0.0.1:8000/"
    try:
        return check_site_url(url)
    except ValueError as exc:
        raise _Usage(str(exc)) from None


def _export(args: argparse.Namespace) -> int:
    from generator.fleet.export import export

    try:
        site_url = _site_url(args)
        folders = _folders(args)
        for folder in folders:
            if not Path(folder).is_dir():
                raise _Usage(f"{folder}: no catalog here; pass --entries DIR")
        entries, notes = _loaded_entries(folders)
        done = export(entries, site_url, args.target, Path(args.out))
    except _Usage as exc:
        print(f"trainwreck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:
        print(f"trainwreck: export {args.target} {FLEET_EXTRA} ({exc})", file=sys.stderr)
        return EXIT_USAGE
    for note in notes:
        print(f"trainwreck: note: {note}", file=sys.stderr)
    for skip in done.skipped:
        print(f"trainwreck: skipped {skip.entry}: {skip.reason}", file=sys.stderr)
    for entry, note in done.entry_notes:
        print(f"trainwreck: note: {entry}: {note}", file=sys.stderr)
    if done.note:
        print(f"trainwreck: note: {done.note}", file=sys.stderr)
    print(
        f"{done.rules} rule(s), {len(done.skipped)} entr(ies) skipped; wrote "
        f"{len(done.files)} file(s) under {Path(args.out, args.target).as_posix()}/",
        file=sys.stderr,
    )
    return EXIT_OK


def _fleet_scan(args: argparse.Namespace) -> int:
    try:
        index, notes = _signature_index(args)
        from generator.fleet.spark import scan_fleet
    except _Usage as exc:
        print(f"trainwreck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:
        print(f"trainwreck: fleet scan {FLEET_EXTRA} ({exc})", file=sys.stderr)
        return EXIT_USAGE
    for note in notes:
        print(f"trainwreck: note: {note}", file=sys.stderr)
    result = scan_fleet(index, args.input, args.out, args.format, args.master)
    print(
        f"{result.jobs} job(s), {result.failed} with a root cause; wrote {args.out}/jobs and "
        f"{args.out}/summary ({args.format})",
        file=sys.stderr,
    )
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="trainwreck",
        description="An encyclopedia of ML training failures: check its entries, build its "
        "site, and name the failure in your logs.",
        epilog="example:\n  trainwreck diagnose logs/\n\n`trainwreck COMMAND --help` says more.",
        formatter_class=_TopHelp,
    )
    top.add_argument(
        "--version", action=_Version, nargs=0, help="print the version and the bundled catalog's"
    )
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")

    validate = sub.add_parser("validate", help="check entries and report every problem")
    validate.add_argument("paths", nargs="*", help="files or folders (default: entries/)")
    validate.add_argument("--entries", action="append", metavar="DIR", help=ENTRIES_HELP)
    validate.add_argument("--format", choices=FORMATS, default="text")
    validate.add_argument(
        "--benign", help=f"healthy logs no signature may match (default: {BENIGN_DIR}/)"
    )
    validate.set_defaults(run=_validate)

    build = sub.add_parser("build", help="validate, then build the site into site/ atomically")
    build.add_argument("--entries", action="append", metavar="DIR", help=ENTRIES_HELP)
    build.add_argument("--config", default="mkdocs.yml")
    build.add_argument("--site-dir", default="site")
    build.add_argument("--format", choices=FORMATS, default="text")
    build.add_argument("--benign", help=f"healthy logs (default: {BENIGN_DIR}/)")
    build.set_defaults(run=_build)

    serve = sub.add_parser("serve", help="preview the site with live reload")
    serve.add_argument("--entries", action="append", metavar="DIR", help=ENTRIES_HELP)
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
    source.add_argument(
        "--entries",
        action="append",
        metavar="DIR",
        help="a catalog folder to compile; repeat for several (default: entries/ when it is "
        "here, else the public catalog bundled with trainwreck)",
    )
    source.add_argument("--index", help="a compiled signature index (signatures.json)")
    diagnose.add_argument(
        "--public",
        action="store_true",
        help="with --entries: add the bundled public catalog under your own entries",
    )
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

    bundle = sub.add_parser(
        "bundle", help="write the public catalog's signature index into the package"
    )
    bundle.add_argument("--entries", default="entries")
    bundle.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    bundle.set_defaults(run=_bundle)

    completion = sub.add_parser("completion", help="print a shell completion script")
    completion.add_argument("shell", choices=("bash", "zsh", "fish"))
    completion.set_defaults(run=_completion)

    export_cmd = sub.add_parser(
        "export", help="the signatures as Sigma rules, or as queries for a log engine"
    )
    export_cmd.add_argument(
        "target", choices=("sigma", "loki", "elasticsearch", "splunk", "sqlite", "duckdb", "spark")
    )
    export_cmd.add_argument("--out", default="export", help="folder (default: export/)")
    export_cmd.add_argument("--entries", action="append", metavar="DIR", help=ENTRIES_HELP)
    export_cmd.add_argument(
        "--base-url", help="site root for entry links (default: $TRAINWRECK_SITE_URL)"
    )
    export_cmd.set_defaults(run=_export)

    fleet = sub.add_parser("fleet", help="diagnose every job of a fleet on Spark")
    fleet_sub = fleet.add_subparsers(dest="fleet_command", required=True)
    scan = fleet_sub.add_parser("scan", help="one diagnosis per job directory")
    scan.add_argument("input", help="folder or object-store prefix, one directory per job")
    scan.add_argument("--out", required=True, help="output folder: jobs/ and summary/")
    scan.add_argument("--format", choices=("parquet", "json"), default="parquet")
    scan.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
    fleet_source = scan.add_mutually_exclusive_group()
    fleet_source.add_argument(
        "--entries", action="append", metavar="DIR", help="catalog folder to compile (repeatable)"
    )
    fleet_source.add_argument("--index", help="a compiled signature index (signatures.json)")
    # The same catalog choice as diagnose: entries/ when it is here, else the bundled index.
    scan.set_defaults(run=_fleet_scan, public=False)

    for name, command in sub.choices.items():
        command.epilog = f"example:\n  {EXAMPLES[name]}"
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return top


class _OutputError(Exception):
    """Standard output could not be written: a full disk, an I/O error."""


class _Stdout:
    """sys.stdout while a command runs. A reader that went away (`| head`) is not an error of
    the command: the rest of the output goes to /dev/null. Any other write failure is an
    _OutputError, which main() reports in one line instead of a traceback."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            self._failed(exc)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        # Whatever is still buffered then goes nowhere, so that the interpreter's own flush at
        # exit cannot fail again.
        with suppress(OSError, ValueError):  # a stream with no descriptor (a test's capture)
            target = self._stream.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, target)
            os.close(null)
        if not isinstance(exc, BrokenPipeError):
            raise _OutputError(exc.strerror or str(exc)) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


# Young passes before a full pass while a log is scanned (Python's default is 10). What a scan
# keeps grows with the streams it meets (each rank's first line, its last time and host) and
# holds no garbage cycles, yet each full pass walks all of it: 20 passes over a log of 200,000
# one-line ranks were 2.4 s of its 7.2 s (bench/diagnose.py). Young passes still run as usual.
SCAN_FULL_PASS_AFTER = 1000


def _collect(scanning: bool = False) -> None:
    """Let the garbage collector run again, over what is made from here on (see main())."""
    if _Start.deferred:
        _Start.deferred = False
        gc.freeze()  # what the start made lives to the end: no pass need walk it again
        _Start.frozen = True
        gc.enable()
    if scanning and _Start.thresholds is None:
        _Start.thresholds = gc.get_threshold()
        young, middle, _ = _Start.thresholds
        gc.set_threshold(young, middle, SCAN_FULL_PASS_AFTER)


class _Start:
    deferred = False  # main() turned the collector off until the command's work begins
    frozen = False  # and _collect() froze what was made before it
    thresholds: tuple[int, int, int] | None = None  # the collector's, before a scan raised one


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stdout is None:
        # Started with standard output closed (`>&-`): there is nowhere to put the result.
        if sys.stderr is not None:
            _say("standard output is closed; nothing was run (send it to a file or /dev/null)")
        return EXIT_USAGE
    # A closed standard input or error is given /dev/null, so that no file opened later takes
    # its number (C code writing to fd 2 would write into that file).
    for fd in (0, 2):
        if _closed(fd):
            os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one
    saved = sys.stdout, sys.stderr
    sys.stdout = cast(TextIO, _Stdout(sys.stdout))
    if sys.stderr is None:
        sys.stderr = sys.stdout  # messages follow the report on standard output
    # A command's start (its modules, the parser; diagnose's compiled index) makes many
    # objects that live to its end and no garbage cycles: the collector's passes over them
    # were a few ms of diagnose's start (bench/startup.py). It waits until the work begins:
    # the scan of diagnose (_collect), every other command's run.
    _Start.deferred = gc.isenabled()
    gc.disable()
    try:
        args = parser().parse_args(argv)
        twice = _named_twice(getattr(args, "entries", None))
        if twice is not None:
            _say(twice)
            return EXIT_USAGE
        if args.run is not _diagnose:
            _collect()
        code = int(args.run(args))
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        return 130
    except _OutputError as exc:
        if saved[1] is not None:
            sys.stderr = saved[1]
            _say(f"cannot write to standard output: {exc}")
        return EXIT_USAGE
    finally:
        sys.stdout, sys.stderr = saved
        _collect()  # when the command stopped before its work (--help, bad usage)
        if _Start.frozen:
            _Start.frozen = False
            gc.unfreeze()
        if _Start.thresholds is not None:
            gc.set_threshold(*_Start.thresholds)
            _Start.thresholds = None


if __name__ == "__main__":
    sys.exit(main())
