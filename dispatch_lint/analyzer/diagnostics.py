"""What the analysis hands to the reporters: diagnostics with their traces, and per-file errors.

Plain frozen dataclasses: the engine builds them, suppressions and selection filter them, the
emitters only format them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TraceStep", "Diagnostic", "FileError", "Report"]


@dataclass(frozen=True, order=True)
class TraceStep:
    """One step of the path a value took: its birth, an assignment, a call, a return, the sink.

    Lines and columns are 1-based; ``path`` is the file as given on the command line.
    """

    path: str
    line: int
    column: int
    message: str


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding. Ordering (path, line, column, rule, ...) is the output order."""

    path: str
    line: int
    column: int
    rule: str
    name: str
    severity: str
    message: str
    end_line: int
    end_column: int
    trace: tuple[TraceStep, ...] = field(default=(), compare=False)
    #: Extra notes for reporters (e.g. "confirmed at run time"); not part of identity.
    notes: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, order=True)
class FileError:
    """A file the linter could not check for a reason that is not a syntax error in it
    (unreadable, an internal error of the analysis): reported, and exit code 2."""

    path: str
    message: str


@dataclass(frozen=True)
class Report:
    """The result of linting a set of paths."""

    diagnostics: tuple[Diagnostic, ...]
    files: int
    errors: tuple[FileError, ...] = ()
