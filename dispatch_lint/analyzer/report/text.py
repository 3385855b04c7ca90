"""The human format: each finding with its source line, a caret and its trace, then a summary.

```
train.py:4:1: DL001 Capture tensors do not support autodiff: ...
 4 | x.backward()
   | ^^^^^^^^^^^^
  1. train.py:3:5: a capture tensor is created here
  2. train.py:4:1: it reaches .backward()
Found 1 error in 1 file (3 files checked).
```

Colour comes from rich and only when the output is a terminal (rich honours ``NO_COLOR`` and
``FORCE_COLOR``). A run without findings never imports rich: the summary is plain text.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from dispatch_lint.analyzer.diagnostics import Diagnostic, Report
from dispatch_lint.analyzer.suppressions import UnusedSuppression
from dispatch_lint.catalog import RULES_BY_ID

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

__all__ = ["source_lines", "summary_line", "write_statistics", "write_text"]

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


def summary_line(report: Report, unused: int = 0) -> str:
    """``Found 3 errors in 2 files (12 files checked).`` or ``All checks passed (...)``."""
    checked = f"({_plural(report.files, 'file')} checked)"
    warnings = sum(1 for d in report.diagnostics if d.severity == "warning")
    errors = len(report.diagnostics) - warnings
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
        files = len({d.path for d in report.diagnostics})
        where = f" in {_plural(files, 'file')}" if files else ""
        problems = (
            parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
        )
        line = f"Found {problems}{where} {checked}."
    elif report.errors:
        line = f"No findings, but {_plural(len(report.errors), 'path')} could not be checked {checked}."
    else:
        line = f"All checks passed {checked}."
    return line


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


def _header(diagnostic: Diagnostic) -> Line:
    style = "bold yellow" if diagnostic.severity == "warning" else "bold red"
    return [
        (f"{diagnostic.path}:{diagnostic.line}:{diagnostic.column}:", "bold"),
        (" ", None),
        (diagnostic.rule, style),
        (f" {diagnostic.message}", None),
    ]


def _excerpt(diagnostic: Diagnostic, lines: Sequence[str]) -> list[Line]:
    if not 1 <= diagnostic.line <= len(lines):
        return []
    # One character in, one character out, so that the caret stays under the column: tabs
    # become spaces and control characters (NUL, stray binary) a replacement character.
    line = "".join(
        " " if c == "\t" else c if c.isprintable() else "\ufffd"
        for c in lines[diagnostic.line - 1]
    )
    if not line.strip():
        return []
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
    number = str(diagnostic.line)
    gutter = " " * len(number)
    return [
        [(f" {number} | {line}", "blue")],
        [
            (f" {gutter} | ", "blue"),
            (" " * (start - 1) + "^" * max(width, 1), "bold red"),
        ],
    ]


def write_text(
    report: Report,
    out: TextIO,
    sources: Mapping[str, bytes],
    unused: Sequence[UnusedSuppression] = (),
) -> None:
    """Write every finding (with its source excerpt and numbered trace), every unused
    suppression, and the summary line to ``out``."""
    if report.diagnostics or unused:
        emit = _emitter(out)
        decoded: dict[str, list[str]] = {}
        for diagnostic in report.diagnostics:
            emit(_header(diagnostic))
            source = sources.get(diagnostic.path)
            if source is not None:
                lines = decoded.setdefault(diagnostic.path, source_lines(source))
                for line in _excerpt(diagnostic, lines):
                    emit(line)
            for number, step in enumerate(diagnostic.trace, start=1):
                emit(
                    f"  {number}. {step.path}:{step.line}:{step.column}: {step.message}"
                )
            for note in diagnostic.notes:
                emit(f"  note: {note}")
        for suppression in unused:
            emit(
                f"{suppression.path}:{suppression.line}:{suppression.column}: "
                f"warning: {suppression.message}"
            )
        # Where to read about each rule that fired, once per rule rather than per finding.
        for rule_id in sorted(
            {d.rule for d in report.diagnostics} & RULES_BY_ID.keys()
        ):
            spec = RULES_BY_ID[rule_id]
            emit(f"{spec.id} {spec.name}: {spec.url}")
    out.write(summary_line(report, len(unused)) + "\n")


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


def write_statistics(report: Report, out: TextIO) -> None:
    """One line per rule that fired: count, id, name; the most frequent first."""
    counts = Counter((d.rule, d.name) for d in report.diagnostics)
    out.writelines(
        f"{count:>5}  {rule_id}  {name}\n"
        for (rule_id, name), count in sorted(
            counts.items(), key=lambda item: (-item[1], item[0])
        )
    )
    out.write(summary_line(report) + "\n")
