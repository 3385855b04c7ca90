"""What the analysis hands to the reporters: diagnostics with their traces, and per-file errors.

Plain frozen dataclasses: the engine builds them, suppressions and selection filter them, the
emitters only format them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "PRECISION_REDUCED",
    "SAFE",
    "UNSAFE",
    "Diagnostic",
    "Edit",
    "FileError",
    "Fix",
    "Report",
    "TraceStep",
    "is_enabled",
    "is_precision_note",
]

#: How a note saying that the analysis dropped precision at a bound begins: "precision
#: reduced in `pkg.mod.f()`: <which bound>". Front ends show these only when asked.
PRECISION_REDUCED = "precision reduced in"

#: A fix that keeps what the code means on every path it runs: ``--fix`` applies it.
SAFE = "safe"
#: A fix that may change what the code does (it drops autodiff, or edits a call whose callee
#: other callers share): applied only with ``--unsafe-fixes``.
UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class TraceStep:
    """One step of the path a value took: its birth, an assignment, a call, a return, the sink.

    Lines and columns are 1-based; ``path`` is the file as given on the command line.
    """

    path: str
    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Edit:
    """Replace the text from ``line``:``column`` up to ``end_line``:``end_column`` (1-based,
    the end exclusive, columns in characters) with ``content``; an empty range inserts."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    """An automatic fix of one finding: the edits to its file, what they do (``title``, shown
    as the finding's ``help:``), and whether ``--fix`` applies them (``SAFE``) or only
    ``--unsafe-fixes`` (``UNSAFE``)."""

    title: str
    applicability: str
    edits: tuple[Edit, ...]


def is_enabled(fix: Fix | None, unsafe: bool) -> bool:
    """Whether ``fix`` is applied: every safe fix, the unsafe ones only when asked."""
    return fix is not None and (fix.applicability == SAFE or unsafe)


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
    #: ``message`` in parts, for the framed text format and editors: what happened (the
    #: rule's sentence and this finding's words, without where the value came from or the
    #: fix) and the advice; empty when the finding was made without them (``message`` then
    #: says it all).
    headline: str = field(default="", compare=False)
    help: str = field(default="", compare=False)
    #: The automatic fix, if the rule has one for this finding.
    fix: Fix | None = field(default=None, compare=False)

    @property
    def short_message(self) -> str:
        """What happened, in one sentence: ``headline``, or the whole ``message``."""
        return self.headline or self.message


@dataclass(frozen=True, order=True)
class FileError:
    """A file the linter could not check for a reason that is not a syntax error in it
    (unreadable, an internal error of the analysis): reported, and exit code 2."""

    path: str
    message: str


def is_precision_note(note: FileError) -> bool:
    """Whether ``note`` says that the analysis of a function dropped precision at a bound of
    the analysis (values there became unknown: a finding may be missed, none is made up)."""
    return note.message.startswith(PRECISION_REDUCED + " ")


@dataclass(frozen=True)
class Report:
    """The result of linting a set of paths."""

    diagnostics: tuple[Diagnostic, ...]
    files: int
    errors: tuple[FileError, ...] = ()
