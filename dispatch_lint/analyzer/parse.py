"""Parsing checked files: CPython decides what is a syntax error (DL000), libcst builds the tree.

CPython's ``compile()`` is cheap (about a tenth of a libcst parse) and is the authority on
what a syntax error is, so every file goes through it and gets CPython's own reason. Only
files that compile and can take part in a dispatch flow are then parsed by libcst, once.
Nothing here imports or runs the checked code: ``compile()`` builds a code object and drops it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dispatch_lint.analyzer.diagnostics import Diagnostic
from dispatch_lint.catalog import rule

if TYPE_CHECKING:  # pragma: no cover
    import libcst

__all__ = [
    "ParseFailure",
    "SyntaxProblem",
    "check_syntax",
    "nodes_unvalidated",
    "parse_module",
    "syntax_diagnostic",
]


@dataclass(frozen=True)
class SyntaxProblem:
    """Why CPython refuses a file: becomes one DL000 finding. Line and column are 1-based."""

    line: int
    column: int
    reason: str


class ParseFailure(Exception):
    """libcst could not parse a file that CPython compiles (newer syntax than libcst knows).

    Not a finding: the file is valid Python. Reported as a per-file note."""


def check_syntax(source: bytes, path: str) -> SyntaxProblem | None:
    """CPython's verdict on ``source``: None when it compiles, else the reason and place."""
    try:
        with warnings.catch_warnings():
            # "invalid escape sequence" and friends are warnings, not errors: keep them quiet.
            warnings.simplefilter("ignore")
            compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:  # includes IndentationError and TabError
        line = exc.lineno or 1
        column = exc.offset or 1
        reason = exc.msg or type(exc).__name__
        if type(exc) is not SyntaxError:
            reason = f"{type(exc).__name__}: {reason}"
        return SyntaxProblem(max(line, 1), max(column, 1), reason)
    except ValueError as exc:  # "source code string cannot contain null bytes" (3.10, 3.11)
        return SyntaxProblem(1, 1, str(exc))
    except RecursionError:
        return SyntaxProblem(1, 1, "too deeply nested for CPython to compile")
    except MemoryError:
        return SyntaxProblem(1, 1, "too large for CPython to compile")
    return None


def syntax_diagnostic(source: bytes, path: str) -> Diagnostic | None:
    """DL000 for the file at ``path`` when CPython cannot compile ``source``."""
    problem = check_syntax(source, path)
    if problem is None:
        return None
    spec = rule("DL000")
    return Diagnostic(
        path=path,
        line=problem.line,
        column=problem.column,
        rule=spec.id,
        name=spec.name,
        severity=spec.severity,
        message=f"{spec.message}: {problem.reason}",
        end_line=problem.line,
        end_column=problem.column,
    )


def parse_module(source: bytes) -> libcst.Module:
    """Parse ``source`` (already accepted by :func:`check_syntax`) with libcst."""
    import libcst

    try:
        with nodes_unvalidated():
            try:
                return libcst.parse_module(source)
            except (SyntaxError, UnicodeDecodeError):
                # CPython 3.10/3.11 compile bytes that are not valid in their declared
                # encoding when they sit in a comment; libcst decodes the whole file first
                # and refuses. The analysis never needs a comment's text, so decode
                # leniently and parse that.
                return libcst.parse_module(_decode_leniently(source))
    except (libcst.ParserSyntaxError, SyntaxError, RecursionError, MemoryError) as exc:
        raise ParseFailure(f"libcst cannot parse this file: {exc}".splitlines()[0]) from exc


@contextmanager
def nodes_unvalidated() -> Iterator[None]:
    """libcst checks every node it constructs (``CSTNode.__post_init__`` calls
    ``_validate``), which is for trees built by hand: the nodes its parser builds from code
    CPython accepted are valid by construction, and checking them again costs about a sixth
    of a parse. Nodes made in the meantime (by this process only) skip that check too.

    Switching costs too (every node class's method cache is flushed): a caller parsing many
    files switches once around all of them (1,910 files: 1.40 s -> 1.33 s); nested uses
    leave the switch as it is."""
    from libcst import CSTNode

    validate = CSTNode.__dict__.get("__post_init__")
    if validate is None or validate is _no_validation:
        # A libcst that validates elsewhere (parse as it is), or switched already.
        yield
        return
    CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
    try:
        yield
    finally:
        CSTNode.__post_init__ = validate  # type: ignore[method-assign]


def _no_validation(self: object) -> None:
    return None


def _decode_leniently(source: bytes) -> str:
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:
        encoding = "utf-8"
    return source.decode(encoding, errors="replace")
