"""The analysis engine: from source files to diagnostics.

``analyze`` is the one entry point the library API (``api.py``) calls. It decides which files
can take part in a dispatch flow, parses those once, runs the data-flow analysis and the rules,
and returns diagnostics and per-file errors. (The data-flow part is being built: issue 3.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dispatch_lint.analyzer.diagnostics import Diagnostic, FileError
from dispatch_lint.analyzer.parse import check_syntax
from dispatch_lint.catalog import rule

__all__ = ["SourceFile", "SinkSpec", "AnalysisSettings", "AnalysisResult", "analyze"]


@dataclass(frozen=True)
class SourceFile:
    """One file to check: ``path`` as the user should see it, its raw bytes, and its dotted
    module name relative to its import root (``pkg.sub.mod``), or None when unknown."""

    path: str
    source: bytes
    module: str | None = None


@dataclass(frozen=True)
class SinkSpec:
    """A user-declared sink: calling ``name`` with a capture value as argument ``arg`` (an
    index, or a keyword name) is a finding of ``rule``."""

    name: str
    arg: int | str
    rule: str


@dataclass(frozen=True)
class AnalysisSettings:
    """The user-extensible model (``[tool.dispatch-lint]`` sources, sinks, sanitizers), by
    qualified name."""

    sources: tuple[str, ...] = ()
    sinks: tuple[SinkSpec, ...] = ()
    sanitizers: tuple[str, ...] = ()


@dataclass(frozen=True)
class AnalysisResult:
    diagnostics: tuple[Diagnostic, ...]
    errors: tuple[FileError, ...] = ()
    #: Per-file remarks that are neither findings nor errors (e.g. valid syntax libcst lacks).
    notes: tuple[FileError, ...] = field(default=())


def syntax_diagnostic(file: SourceFile) -> Diagnostic | None:
    """DL000 for ``file`` when CPython cannot compile it."""
    problem = check_syntax(file.source, file.path)
    if problem is None:
        return None
    spec = rule("DL000")
    return Diagnostic(
        path=file.path,
        line=problem.line,
        column=problem.column,
        rule=spec.id,
        name=spec.name,
        severity=spec.severity,
        message=f"{spec.message}: {problem.reason}",
        end_line=problem.line,
        end_column=problem.column,
    )


def analyze(files: Sequence[SourceFile], settings: AnalysisSettings | None = None) -> AnalysisResult:
    """Check ``files`` together (they may import each other) and return what was found."""
    diagnostics = [d for f in files if (d := syntax_diagnostic(f)) is not None]
    return AnalysisResult(diagnostics=tuple(sorted(diagnostics)))
