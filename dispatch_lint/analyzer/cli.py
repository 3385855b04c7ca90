"""``dispatch-lint [PATHS...]``: the command line, a thin layer over :mod:`.api`;
``dispatch-lint server`` is the language server (:mod:`.server`).

Exit status: 0 no findings, 1 findings, 2 a usage or configuration error or a file that could
not be checked (reported one line each on stderr; the other files are still checked). With
``--diff``: 1 when there is something to fix.

``--fix`` is the one time the linter writes a checked file: it applies the fixes
(:mod:`.fixes`), lints again and reports what remains.

``-`` (or ``--stdin-filename PATH``) checks standard input, as ruff does: reported as PATH
(``-`` without it), imports and configuration found from PATH's place, which need not exist;
``--fix`` then writes the fixed source to standard output and the report to standard error.

Only the standard library is imported up front: ``--version`` and a run over a folder without
Python files never load libcst, rich or numpy.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import RenderableType
    from rich.live import Live

    from dispatch_lint.analyzer.api import LintRun
    from dispatch_lint.analyzer.config import Config
    from dispatch_lint.analyzer.diagnostics import Diagnostic
    from dispatch_lint.analyzer.trips import Trip

__all__ = ["build_parser", "main"]

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS = ("text", "concise", "json", "sarif", "github")
#: The formats ``--statistics`` can be written in (text and concise print the same table).
_STATISTICS_FORMATS = ("text", "concise", "json")
#: ``--fix`` lints again after fixing; fixes that overlapped wait for the next round.
_FIX_ROUNDS = 10
#: Above this many files, a terminal shows what the run is doing while it works.
_STATUS_THRESHOLD = 200
#: Seconds between two redraws of the progress display.
_STATUS_INTERVAL = 0.1


class _UsageError(Exception):
    """A command line the linter refuses; ``str()`` is the one line shown."""


def _selectors(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer, got {value!r}"
        ) from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``dispatch-lint`` (exposed for docs and shell completion)."""
    from dispatch_lint import __version__

    parser = argparse.ArgumentParser(
        prog="dispatch-lint",
        description="Find capture tensors that reach autodiff, leave their capture device, "
        "or have their data read; and other dispatch misuse.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files and folders (default: .); - reads one file from standard input; "
        "'dispatch-lint server' starts the language server (LSP over stdio)",
    )
    parser.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="check standard input as the file PATH (need not exist): reported as PATH, "
        "its imports and configuration found from PATH's place; with --fix, the fixed "
        "source is written to standard output",
    )
    selection = parser.add_argument_group(
        "rule selection (ids or prefixes, comma-separated)"
    )
    selection.add_argument(
        "--select",
        type=_selectors,
        action="extend",
        metavar="RULES",
        help="check only these rules (replaces the configuration's select, ignore and "
        "extend-select)",
    )
    selection.add_argument(
        "--ignore",
        type=_selectors,
        action="extend",
        default=[],
        metavar="RULES",
        help="do not report these rules",
    )
    selection.add_argument(
        "--extend-select",
        type=_selectors,
        action="extend",
        default=[],
        metavar="RULES",
        help="check these rules as well",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--output-format",
        "--format",
        dest="output_format",
        choices=FORMATS,
        default="text",
        help="output format (default: text, framed findings; concise: one line each)",
    )
    output.add_argument(
        "--statistics",
        action="store_true",
        help="print how often each rule fired instead of each finding (text, concise or "
        "json)",
    )
    output.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    output.add_argument(
        "--verbose",
        action="store_true",
        help="name each function where the analysis dropped precision at one of its bounds "
        "(values there became unknown, so a finding may be missed); otherwise one line "
        "counts them",
    )
    output.add_argument(
        "--warn-unused-suppressions",
        action="store_true",
        help="report noqa / disable comments that suppress nothing (exit 1)",
    )
    output.add_argument(
        "--include-suppressed",
        action="store_true",
        help="SARIF: include suppressed findings, marked as suppressed",
    )
    fixing = parser.add_argument_group("fixes")
    fixing.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe fixes to the files (the only time the linter writes them), "
        "then report what remains",
    )
    fixing.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff, apply the unsafe fixes too (they may change what the "
        "code does)",
    )
    fixing.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes as a unified diff instead of writing them (exit 1 when there "
        "is something to fix)",
    )
    run = parser.add_argument_group("run")
    run.add_argument(
        "--config",
        metavar="FILE",
        help="configuration file (default: the nearest pyproject.toml with "
        "[tool.dispatch-lint] above the first path)",
    )
    run.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply the configuration's exclude to files named on the command line too "
        "(for pre-commit, which names every changed file)",
    )
    run.add_argument(
        "--trips",
        metavar="FILE",
        help="runtime trips recorded with DISPATCH_LINT_TRIPS=FILE: confirm "
        "findings and report what only the run saw",
    )
    run.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the results cache (.dispatch_lint_cache/ beside the "
        "configuration, or in the current folder)",
    )
    run.add_argument(
        "--follow-imports",
        choices=("normal", "skip"),
        help="normal (default): also read the project modules the checked files import, "
        "as Python would find them: from the folder above each file's top package, then "
        "from the roots in the configuration's src (default: its folder and its src/); "
        "findings that start or pass through a checked file are reported there. The "
        "standard library and installed packages are never read. skip: the checked files "
        "only (default: the configuration's follow-imports)",
    )
    run.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help="number of worker processes for the analysis (default: all cores; small runs "
        "use one)",
    )
    info = parser.add_argument_group("information")
    info.add_argument(
        "--explain", metavar="RULE", help="print the documentation of a rule and exit"
    )
    info.add_argument(
        "--list-rules", action="store_true", help="print every rule and exit"
    )
    info.add_argument(
        "--version", action="version", version=f"dispatch-lint {__version__}"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the linter with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["server"]:
        args = argparse.Namespace(server=argv[1:])
    else:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exit_:  # --help, --version, or a usage error (already printed)
            return int(exit_.code or 0) if isinstance(exit_.code, int) else EXIT_ERROR
    try:
        if hasattr(args, "server"):
            return _server(args.server)
        if args.list_rules:
            return _list_rules(sys.stdout)
        if args.explain is not None:
            return _explain(args.explain, sys.stdout)
        return _lint(args)
    except _UsageError as error:
        _error_line(str(error))
        return EXIT_ERROR
    except KeyboardInterrupt:
        _error_line("interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (`dispatch-lint | head`): point stdout at /dev/null so the
        # interpreter's final flush does not complain, and stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FINDINGS
    except Exception as error:  # the last line of defence: one line, exit 2
        # Failures inside the analysis of a file are per-file errors already; reaching here
        # is a bug of the linter itself, and it still must not bury the user in a traceback.
        # DISPATCH_LINT_DEBUG=1 shows the traceback for a bug report.
        if os.environ.get("DISPATCH_LINT_DEBUG"):
            raise
        reason = str(error).splitlines()[0] if str(error) else ""
        _error_line(
            f"internal error: {type(error).__name__}"
            + (f": {reason}" if reason else "")
        )
        return EXIT_ERROR


def _server(argv: list[str]) -> int:
    """``dispatch-lint server [--stdio]``: the language server on stdin and stdout (a
    folder named ``server`` is linted as ``dispatch-lint ./server``)."""
    parser = argparse.ArgumentParser(
        prog="dispatch-lint server",
        description="The dispatch-lint language server: LSP over standard input and output.",
    )
    # Editors' LSP clients often pass --stdio; it is the only transport anyway.
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    try:
        parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) if isinstance(exit_.code, int) else EXIT_ERROR
    try:
        from dispatch_lint.analyzer.server import serve
    except ImportError as error:
        _error_line(f"the language server needs pygls and lsprotocol: {error}")
        return EXIT_ERROR
    return serve()


def _error_line(message: str) -> None:
    sys.stderr.write(f"dispatch-lint: error: {message}\n")


def _list_rules(out: TextIO) -> int:
    from dispatch_lint.catalog import RULES

    width = max(len(spec.name) for spec in RULES)
    out.writelines(
        f"{spec.id}  {spec.name:<{width}}  {spec.severity:<7}  {spec.summary}\n"
        for spec in RULES
    )
    return EXIT_OK


def _explain(key: str, out: TextIO) -> int:
    from dispatch_lint.analyzer.report.rule_docs import lookup_rule, rule_doc
    from dispatch_lint.catalog import RULES_BY_ID

    spec = lookup_rule(key)
    if spec is None:
        raise _UsageError(
            f"--explain: unknown rule {key!r}; known rules: {', '.join(RULES_BY_ID)} "
            "(or their names, see --list-rules)"
        )
    doc = rule_doc(spec)
    out.write(f"{spec.id} {spec.name} ({spec.severity})\n\n{doc.explanation}\n\n")
    out.write(f"Runtime error: {spec.runtime_error}\nDocumentation: {spec.url}\n")
    return EXIT_OK


def _lint(args: argparse.Namespace) -> int:
    from dispatch_lint.analyzer.api import config_for_file
    from dispatch_lint.analyzer.config import ConfigError, config_for_paths

    if args.statistics and args.output_format not in _STATISTICS_FORMATS:
        raise _UsageError(
            f"--statistics is written as text or json, not {args.output_format}: use "
            "--output-format text or --output-format json"
        )
    stdin = _read_stdin(args)
    paths = [stdin[0]] if stdin else args.paths or ["."]
    try:
        config = (
            config_for_file(stdin[0], args.config)
            if stdin
            else config_for_paths(paths, args.config)
        ).with_overrides(
            select=args.select, ignore=args.ignore, extend_select=args.extend_select
        )
    except ConfigError as error:
        raise _UsageError(str(error)) from None
    # Standard input stands in for the file at its name, for this run only.
    overlays = dict([stdin]) if stdin else None

    trips: tuple[Trip, ...] = ()
    if args.trips is not None:
        from pathlib import Path

        from dispatch_lint.analyzer.trips import TripsError, read_trips

        try:
            trips, malformed = read_trips(Path(args.trips))
        except TripsError as error:
            raise _UsageError(str(error)) from None
        if malformed:
            _warning(f"{args.trips}: skipped {malformed} malformed line(s)")

    run = _run(paths, config, trips, args, overlays)
    if args.diff:
        return _diff(run, args)
    fixed: list[Diagnostic] = []
    out = sys.stdout
    if args.fix:
        run, fixed = _fix(run, paths, config, trips, args, overlays)
        if stdin:
            # As ruff does: the (fixed) source on stdout, for the editor that piped it in.
            sys.stdout.buffer.write(overlays[stdin[0]])  # type: ignore[index]
            sys.stdout.flush()
            out = sys.stderr

    for error in run.report.errors:
        sys.stderr.write(f"{error.path}: error: {error.message}\n")
    _notes_to_stderr(run, args.verbose)
    if not run.report.files and not run.report.errors and not stdin:
        _warning(f"No Python files found under {', '.join(paths)}")
    _write_report(run, args, out, fixed)

    if run.report.errors:
        return EXIT_ERROR
    if (run.report.diagnostics or run.unused_suppressions) and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_OK


def _notes_to_stderr(run: LintRun, verbose: bool) -> None:
    """Each note, one line each; where the analysis dropped precision at a bound, one note
    per function with ``--verbose``, else one line counting them."""
    from dispatch_lint.analyzer.diagnostics import is_precision_note

    reduced = 0
    for note in run.notes:
        if verbose or not is_precision_note(note):
            sys.stderr.write(f"{note.path}: note: {note.message}\n")
        else:
            reduced += 1
    if reduced:
        where = "1 function" if reduced == 1 else f"{reduced} functions"
        sys.stderr.write(f"dispatch-lint: note: precision reduced in {where} at the "
                         "analysis' bounds, where a finding may be missed (use --verbose)\n")


def _warning(message: str) -> None:
    sys.stderr.write(f"dispatch-lint: warning: {message}\n")


def _read_stdin(args: argparse.Namespace) -> tuple[str, bytes] | None:
    """(name, bytes) of standard input when the command line asks for it (``-`` or
    ``--stdin-filename``), as ruff does: other paths are then ignored, with a warning."""
    if args.stdin_filename is None and "-" not in args.paths:
        return None
    if args.stdin_filename is not None:
        if not args.stdin_filename.strip():
            raise _UsageError("--stdin-filename needs the path of the file standard input "
                              "stands for")
        if os.path.isdir(args.stdin_filename):
            raise _UsageError(f"--stdin-filename {args.stdin_filename} is a folder: give the "
                              "path of the file standard input stands for")
    for path in args.paths:
        if path != "-":
            _warning(f"Ignoring file {path} in favor of standard input.")
    return args.stdin_filename or "-", sys.stdin.buffer.read()


def _fix(
    run: LintRun,
    paths: list[str],
    config: Config,
    trips: Sequence[Trip],
    args: argparse.Namespace,
    overlays: dict[str, bytes] | None = None,
) -> tuple[LintRun, list[Diagnostic]]:
    """Apply the enabled fixes and lint again, until no fix is left to apply (fixes that
    overlapped another wait for the next round); the last run and the findings fixed. A
    file in ``overlays`` (standard input) is fixed there, not on disk."""
    from pathlib import Path

    from dispatch_lint.analyzer.fixes import fix_files

    fixed: list[Diagnostic] = []
    for _ in range(_FIX_ROUNDS):
        changes, refused = fix_files(run.report.diagnostics, run.sources, args.unsafe_fixes)
        for path, reason in refused:
            _warning(f"{path}: {reason}")
        written = 0
        for change in changes:
            if overlays is not None and change.path in overlays:
                overlays[change.path] = change.after
                fixed.extend(change.fixed)
                written += 1
                continue
            target = Path(change.path)
            try:
                if target.read_bytes() != change.before:
                    _warning(f"{change.path}: changed while it was being checked; not fixed")
                    continue
                target.write_bytes(change.after)
            except OSError as error:
                _warning(f"{change.path}: cannot write the fixes: {error.strerror or error}")
                continue
            fixed.extend(change.fixed)
            written += 1
        if not written:
            break
        run = _run(paths, config, trips, args, overlays)
    else:
        _warning(f"the fixes did not settle after {_FIX_ROUNDS} rounds; run --fix again")
    return run, fixed


def _diff(run: LintRun, args: argparse.Namespace) -> int:
    """``--diff``: the fixes as a unified diff on stdout, a count on stderr; nothing written."""
    from dispatch_lint.analyzer.fixes import fix_files, unified_diff
    from dispatch_lint.analyzer.report.text import fix_hint

    for error in run.report.errors:
        sys.stderr.write(f"{error.path}: error: {error.message}\n")
    changes, refused = fix_files(run.report.diagnostics, run.sources, args.unsafe_fixes)
    for path, reason in refused:
        _warning(f"{path}: {reason}")
    for change in changes:
        sys.stdout.write(unified_diff(change))
    sys.stdout.flush()
    count = sum(len(change.fixed) for change in changes)
    hint = fix_hint(run.report.diagnostics, args.unsafe_fixes, fixing=True)
    if count:
        sys.stderr.write(f"Would fix {count} {'error' if count == 1 else 'errors'}.\n")
    elif hint is None:
        sys.stderr.write("No fixes available.\n")
    if hint is not None:
        sys.stderr.write(hint + "\n")
    if run.report.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if changes else EXIT_OK


def _run(
    paths: list[str],
    config: Config,
    trips: Sequence[Trip],
    args: argparse.Namespace,
    overlays: dict[str, bytes] | None = None,
) -> LintRun:
    from dispatch_lint.analyzer.api import check_paths
    from dispatch_lint.analyzer.parallel import default_jobs

    def lint(status: Callable[[str, int], None] | None = None) -> LintRun:
        return check_paths(
            paths,
            config,
            warn_unused=args.warn_unused_suppressions,
            trips=trips,
            force_exclude=args.force_exclude,
            status=status,
            jobs=args.jobs or default_jobs(),
            # Standard input is not cached, as ruff does not: it is a buffer, not a file.
            cache=not args.no_cache and not overlays,
            follow_imports=args.follow_imports,
            overlays=overlays,
        )

    if not (sys.stderr.isatty() and os.environ.get("TERM") != "dumb"):
        return lint()

    # On a terminal, long runs show what they are doing; rich is imported only once a run
    # turns out to be long. The display is redrawn only when told (no refresh thread): the
    # analysis forks worker processes, and a fork must not copy a lock a thread holds.
    display: Live | None = None
    total = 0
    shown = 0.0

    def status(phase: str, count: int) -> None:
        nonlocal display, total, shown
        done = 0
        if phase == "checked":
            if time.monotonic() - shown < _STATUS_INTERVAL and count < total:
                return  # progress arrives per group of files: a redraw each would cost
            message, done = f"checked {count}/{total} files", count
        else:
            message, total = f"{phase} {count} files", count
        if display is None and count >= _STATUS_THRESHOLD and phase != "checked":
            from rich.console import Console
            from rich.live import Live

            display = Live(
                _progress(message, done, total),
                console=Console(stderr=True),
                auto_refresh=False,
                transient=True,
            )
            display.start(refresh=True)
        elif display is not None:
            display.update(_progress(message, done, total), refresh=True)
        shown = time.monotonic()

    try:
        return lint(status)
    finally:
        if display is not None:
            display.stop()


def _progress(message: str, done: int, total: int) -> RenderableType:
    """A spinner, a bar of the files checked so far, and what the run is doing."""
    from rich.progress_bar import ProgressBar
    from rich.spinner import Spinner
    from rich.table import Table

    row = Table.grid(padding=(0, 1))
    row.add_row(Spinner("dots"), ProgressBar(total=max(total, 1), completed=done, width=40),
                message)
    return row


def _write_report(
    run: LintRun, args: argparse.Namespace, out: TextIO, fixed: Sequence[Diagnostic] = ()
) -> None:
    report = run.report
    fmt = args.output_format
    if fmt == "json" and args.statistics:
        from dispatch_lint.analyzer.report.json import dumps_indented
        from dispatch_lint.analyzer.report.text import statistics

        out.write(dumps_indented(statistics(report)) + "\n")
        _unused_to_stderr(run)
    elif fmt == "json":
        from dispatch_lint.analyzer.report.json import to_json

        out.write(to_json(report) + "\n")
        _unused_to_stderr(run)
    elif fmt == "sarif":
        from dispatch_lint import __version__
        from dispatch_lint.analyzer.report.sarif import to_sarif

        suppressed = run.suppressed if args.include_suppressed else ()
        out.write(to_sarif(report, __version__, suppressed) + "\n")
        _unused_to_stderr(run)
    elif fmt == "github":
        from dispatch_lint.analyzer.report.github import to_github

        out.write(to_github(report.diagnostics, (), run.unused_suppressions))
    elif args.statistics:
        from dispatch_lint.analyzer.report.text import write_statistics

        write_statistics(report, out, fixed)
    else:
        from dispatch_lint.analyzer.report.text import write_concise, write_text

        unsafe, fixing = args.unsafe_fixes, args.fix
        if fmt == "concise":
            write_concise(
                report, out, run.unused_suppressions, fixed=fixed, unsafe=unsafe, fixing=fixing
            )
        else:
            write_text(
                report, out, run.sources, run.unused_suppressions,
                fixed=fixed, unsafe=unsafe, fixing=fixing,
            )
    out.flush()


def _unused_to_stderr(run: LintRun) -> None:
    # Machine formats keep their documents exactly to schema; unused suppressions go beside.
    for unused in run.unused_suppressions:
        sys.stderr.write(
            f"{unused.path}:{unused.line}:{unused.column}: warning: {unused.message}\n"
        )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
