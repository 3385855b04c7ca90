"""The formats for people: ``text`` (framed like ruff's), ``concise`` (one line a finding) and
the ``--statistics`` table, each ending with the summary line.

```
DL001 Capture tensors do not support autodiff: `.backward()` is called on a value that ...
 --> train.py:4:1
  |
4 | x.backward()
  | ^^^^^^^^^^^^
  |
  1. train.py:3:5: born from `dispatch.placeholder((3,))`
  2. train.py:4:1: `x.backward()` is called
help: replay the captured program first (dispatch.replay / Program.run) and ...

Found 1 error in 1 file (3 files checked).
```

``concise`` is ``train.py:4:1: DL001 <the whole message>``, a line per finding. ``[*]`` after
the rule id marks a finding ``--fix`` would fix. Colour comes from rich and only when the output
is a terminal (rich honours ``NO_COLOR`` and ``FORCE_COLOR``): errors red, warnings yellow, the
rule id a link to its documentation, the trace dimmed. A run without findings never imports
rich: the summary is plain text.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from dispatch_lint.analyzer.diagnostics import Diagnostic, Report, is_enabled
from dispatch_lint.analyzer.suppressions import UnusedSuppression
from dispatch_lint.catalog import RULES_BY_ID

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

__all__ = [
    "fix_hint",
    "source_lines",
    "statistics",
    "summary_line",
    "write_concise",
    "write_statistics",
    "write_text",
]

# CPython's line ends; str.splitlines() would also split on form feeds and other separators.
_LINE_END = re.compile(r"\r\n|\r|\n")
#: Source lines longer than this are shown as a window of this many characters.
_EXCERPT_WIDTH = 120


def source_lines(source: bytes) -> list[str]:
    """``source`` decoded as CPython would (coding cookie, BOM), undecodable bytes replaced."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except (SyntaxError, LookupError):
        encoding = "utf-8"
    try:
        text = source.decode(encoding, errors="replace")
    except LookupError:
        text = source.decode("utf-8", errors="replace")
    return _LINE_END.split(text.lstrip("\ufeff"))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(
    report: Report, unused: int = 0, fixed: Sequence[Diagnostic] = ()
) -> str:
    """``Found 3 errors in 2 files (12 files checked).``, ``All checks passed (...)``, or
    after ``--fix``: ``Found 3 errors (2 fixed, 1 remaining) in 2 files (...)``."""
    checked = f"({_plural(report.files, 'file')} checked)"
    found = (*report.diagnostics, *fixed)
    warnings = sum(1 for d in found if d.severity == "warning")
    errors = len(found) - warnings
    parts = [
        _plural(count, word)
        for count, word in (
            (errors, "error"),
            (warnings, "warning"),
            (unused, "unused suppression"),
        )
        if count
    ]
    if parts:
        files = len({d.path for d in found})
        where = f" in {_plural(files, 'file')}" if files else ""
        problems = (
            parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
        )
        if fixed:
            problems += f" ({len(fixed)} fixed, {len(report.diagnostics)} remaining)"
        line = f"Found {problems}{where} {checked}."
    elif report.errors:
        line = f"No findings, but {_plural(len(report.errors), 'path')} could not be checked {checked}."
    else:
        line = f"All checks passed {checked}."
    return line


def fix_hint(
    diagnostics: Sequence[Diagnostic], unsafe: bool = False, fixing: bool = False
) -> str | None:
    """What ``--fix`` (and ``--unsafe-fixes``) would do for ``diagnostics``, as ruff says it:
    ``[*] 2 fixable with the `--fix` option (1 hidden fix can be enabled with the
    `--unsafe-fixes` option).`` None when there is nothing to say. After ``--fix``
    (``fixing``), only the hidden fixes are worth a word."""
    fixable = 0 if fixing else sum(1 for d in diagnostics if is_enabled(d.fix, unsafe))
    hidden = sum(1 for d in diagnostics if d.fix is not None and not is_enabled(d.fix, unsafe))
    aside = (
        f"{hidden} hidden fix{'' if hidden == 1 else 'es'} can be enabled with the "
        "`--unsafe-fixes` option"
        if hidden
        else ""
    )
    if fixable:
        return f"[*] {fixable} fixable with the `--fix` option" + (
            f" ({aside})." if aside else "."
        )
    if aside:
        return f"No fixes available ({aside})."
    return None


#: A line as pieces of text, each with its rich style (None: unstyled).
Line = list[tuple[str, str | None]]


def _console(out: TextIO) -> Console:
    from rich.console import Console

    # soft_wrap: never re-flow a line, so paths stay clickable and pipes stay greppable.
    return Console(file=out, highlight=False, soft_wrap=True, emoji=False, markup=False)


def _never_coloured(out: TextIO) -> bool:
    """Whether rich would write ``out`` without colour, decided without importing rich: the
    output is not a terminal and neither ``TTY_COMPATIBLE`` nor ``FORCE_COLOR`` says
    otherwise. (When this says False, rich's own console decides.)"""
    if os.environ.get("TTY_COMPATIBLE") or os.environ.get("FORCE_COLOR") is not None:
        return False
    isatty = getattr(out, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:  # a closed file
        return True


def _severity_style(diagnostic: Diagnostic) -> str:
    return "bold yellow" if diagnostic.severity == "warning" else "bold red"


def _rule_id(diagnostic: Diagnostic, unsafe: bool) -> Line:
    """The rule id (a link to its documentation), and ``[*]`` when ``--fix`` fixes it."""
    style = _severity_style(diagnostic)
    spec = RULES_BY_ID.get(diagnostic.rule)
    if spec is not None:
        style += f" link {spec.url}"
    line: Line = [(diagnostic.rule, style)]
    if is_enabled(diagnostic.fix, unsafe):
        line.append((" [*]", "bold cyan"))
    return line


def _excerpt(
    diagnostic: Diagnostic, lines: Sequence[str]
) -> tuple[str, str, int, int] | None:
    """The flagged line as shown (line number, text, caret start 1-based, caret width)."""
    if not 1 <= diagnostic.line <= len(lines):
        return None
    # One character in, one character out, so that the caret stays under the column: tabs
    # become spaces and control characters (NUL, stray binary) a replacement character.
    line = "".join(
        " " if c == "\t" else c if c.isprintable() else "\ufffd"
        for c in lines[diagnostic.line - 1]
    )
    if not line.strip():
        return None
    start = min(max(diagnostic.column, 1), len(line) + 1)
    if diagnostic.end_line == diagnostic.line and diagnostic.end_column > start:
        width = min(diagnostic.end_column, len(line) + 1) - start
    else:
        width = 1
    if len(line) > _EXCERPT_WIDTH:
        # A very long line (generated code, a 50,000-term expression) is shown as a window
        # around the column.
        left = max(0, min(start - 1 - _EXCERPT_WIDTH // 2, len(line) - _EXCERPT_WIDTH))
        prefix = "..." if left > 0 else ""
        suffix = "..." if left + _EXCERPT_WIDTH < len(line) else ""
        line = prefix + line[left : left + _EXCERPT_WIDTH] + suffix
        start = start - left + len(prefix)
        width = max(1, min(width, _EXCERPT_WIDTH - (start - len(prefix) - 1)))
    return str(diagnostic.line), line, start, max(width, 1)


def _framed(diagnostic: Diagnostic, lines: Sequence[str] | None, unsafe: bool) -> list[Line]:
    """One finding framed like ruff's: headline, ``-->`` place, source and caret, the trace
    as numbered dimmed steps, notes, then ``help:``; a blank line after it."""
    out: list[Line] = [[*_rule_id(diagnostic, unsafe), (f" {diagnostic.short_message}", "bold")]]
    excerpt = _excerpt(diagnostic, lines) if lines is not None else None
    gutter = " " * (len(excerpt[0]) if excerpt else 1)
    out.append(
        [
            (f"{gutter}--> ", "bold blue"),
            (f"{diagnostic.path}:{diagnostic.line}:{diagnostic.column}", None),
        ]
    )
    if excerpt is not None:
        number, text, start, width = excerpt
        bar = f"{gutter} |"
        out += [
            [(bar, "bold blue")],
            [(f"{number} | ", "bold blue"), (text, None)],
            [
                (f"{bar} ", "bold blue"),
                (" " * (start - 1) + "^" * width, _severity_style(diagnostic)),
            ],
            [(bar, "bold blue")],
        ]
    for number, step in enumerate(diagnostic.trace, start=1):
        out.append(
            [(f"  {number}. {step.path}:{step.line}:{step.column}: {step.message}", "dim")]
        )
    for note in diagnostic.notes:
        out.append([("note", "bold"), (f": {note}", None)])
    spec = RULES_BY_ID.get(diagnostic.rule)
    advice = (
        diagnostic.fix.title
        if diagnostic.fix is not None
        else diagnostic.help or (spec.fix if spec is not None else "")
    )
    if advice:
        out.append([("help", "bold cyan"), (f": {advice}", None)])
    out.append([])
    return out


def _unused(suppression: UnusedSuppression) -> str:
    return (
        f"{suppression.path}:{suppression.line}:{suppression.column}: "
        f"warning: {suppression.message}"
    )


def write_text(
    report: Report,
    out: TextIO,
    sources: Mapping[str, bytes],
    unused: Sequence[UnusedSuppression] = (),
    *,
    fixed: Sequence[Diagnostic] = (),
    unsafe: bool = False,
    fixing: bool = False,
) -> None:
    """Write every finding framed (source excerpt, numbered trace, help), a blank line after
    each, every unused suppression, the summary line and what ``--fix`` could do.
    ``fixed`` are the findings ``--fix`` fixed (counted, not shown)."""
    if report.diagnostics or unused:
        emit = _emitter(out)
        decoded: dict[str, list[str]] = {}
        for diagnostic in report.diagnostics:
            source = sources.get(diagnostic.path)
            lines = (
                decoded.setdefault(diagnostic.path, source_lines(source))
                if source is not None
                else None
            )
            for line in _framed(diagnostic, lines, unsafe):
                emit(line)
        for suppression in unused:
            emit(_unused(suppression))
        if unused:
            emit([])
    _write_summary(report, out, len(unused), fixed, unsafe, fixing)


def write_concise(
    report: Report,
    out: TextIO,
    unused: Sequence[UnusedSuppression] = (),
    *,
    fixed: Sequence[Diagnostic] = (),
    unsafe: bool = False,
    fixing: bool = False,
) -> None:
    """Write ``path:line:col: DL001 message`` for every finding (the whole message: what
    happened, where the value came from, the fix), every unused suppression, the summary."""
    if report.diagnostics or unused:
        emit = _emitter(out)
        for d in report.diagnostics:
            emit(
                [
                    (f"{d.path}:{d.line}:{d.column}:", "bold"),
                    (" ", None),
                    *_rule_id(d, unsafe),
                    (f" {d.message}", None),
                ]
            )
        for suppression in unused:
            emit(_unused(suppression))
    _write_summary(report, out, len(unused), fixed, unsafe, fixing)


def _write_summary(
    report: Report,
    out: TextIO,
    unused: int,
    fixed: Sequence[Diagnostic],
    unsafe: bool,
    fixing: bool,
) -> None:
    out.write(summary_line(report, unused, fixed) + "\n")
    hint = fix_hint(report.diagnostics, unsafe, fixing)
    if hint is not None:
        out.write(hint + "\n")


def _emitter(out: TextIO) -> Callable[[str | Line], None]:
    """Writes one line, plain or styled, to ``out``: through rich when it colours the
    output, else as plain text (rich's per-line rendering, and even importing it, costs
    more than a cached run's analysis when there are many findings)."""
    if not _never_coloured(out):
        console = _console(out)
        if console.color_system is not None:
            from rich.text import Text

            def styled(line: str | Line) -> None:
                console.print(line if isinstance(line, str) else Text.assemble(*line))

            return styled

    def plain(line: str | Line) -> None:
        text = line if isinstance(line, str) else "".join(piece for piece, _ in line)
        out.write(f"{text}\n")

    return plain


def statistics(report: Report) -> list[dict[str, object]]:
    """How often each rule fired, the most frequent first: ``{"code", "name", "count"}``
    (the objects ruff's ``--statistics --output-format json`` prints)."""
    counts = Counter((d.rule, d.name) for d in report.diagnostics)
    return [
        {"code": rule_id, "name": name, "count": count}
        for (rule_id, name), count in sorted(
            counts.items(), key=lambda item: (-item[1], item[0])
        )
    ]


def write_statistics(
    report: Report, out: TextIO, fixed: Sequence[Diagnostic] = ()
) -> None:
    """One line per rule that fired: count, id, name; the most frequent first."""
    out.writelines(
        f"{row['count']:>5}  {row['code']}  {row['name']}\n" for row in statistics(report)
    )
    out.write(summary_line(report, fixed=fixed) + "\n")
