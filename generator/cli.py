"""The command layer: parse arguments, call one function, print, map results to exit codes.

Exit codes: 0 success; 1 the entries have problems (validate, build); 2 bad usage or input
that cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from generator.problems import FORMATS, format_problems, has_errors

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


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
    result = validate_sources(sources, report_for=wanted)
    problems = [*unreadable, *result.problems]
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
    from generator.publish import publish
    from generator.validation import validate_sources

    # Validate first, so a bad entry is reported as file:line:col and no build is attempted.
    sources, unreadable = read_sources(find_entry_files(Path(args.entries)), Path.cwd())
    problems = [*unreadable, *validate_sources(sources).problems]
    if problems:
        print(format_problems(problems, args.format))
    if has_errors(problems):
        print("build stopped: fix the problems above; site/ was left as it was", file=sys.stderr)
        return EXIT_PROBLEMS
    config = Path(args.config)
    target = publish(Path(args.site_dir), lambda out: build_site(config, out))
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


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="trainwreck", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True)

    validate = sub.add_parser("validate", help="check entries and report every problem")
    validate.add_argument("paths", nargs="*", help="files or folders (default: entries/)")
    validate.add_argument(
        "--entries", default="entries", help="the catalog, for cross-entry checks"
    )
    validate.add_argument("--format", choices=FORMATS, default="text")
    validate.set_defaults(run=_validate)

    build = sub.add_parser("build", help="validate, then build the site into site/ atomically")
    build.add_argument("--entries", default="entries")
    build.add_argument("--config", default="mkdocs.yml")
    build.add_argument("--site-dir", default="site")
    build.add_argument("--format", choices=FORMATS, default="text")
    build.set_defaults(run=_build)

    serve = sub.add_parser("serve", help="preview the site with live reload")
    serve.add_argument("--entries", default="entries")
    serve.add_argument("--config", default="mkdocs.yml")
    serve.add_argument("--dev-addr", default="127.0.0.1:8000")
    serve.set_defaults(run=_serve)

    checks = sub.add_parser("checks", help="list every check id and what it enforces")
    checks.set_defaults(run=_checks)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
