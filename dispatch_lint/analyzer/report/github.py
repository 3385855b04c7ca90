"""The GitHub Actions format: one workflow command per finding, shown as an annotation.

``::error file=train.py,line=4,col=1,endLine=4,endColumn=13,title=DL001 capture-backward::...``
Values are escaped as the Actions runner expects: ``%``, CR and LF everywhere, and also ``:``
and ``,`` inside properties. The trace follows the message on its own lines, then the link
to the rule's documentation.
"""

from __future__ import annotations

from collections.abc import Sequence

from dispatch_lint.analyzer.diagnostics import Diagnostic, FileError
from dispatch_lint.analyzer.suppressions import UnusedSuppression
from dispatch_lint.catalog import RULES_BY_ID

__all__ = ["escape_data", "escape_property", "to_github"]


def escape_data(value: str) -> str:
    """Escape a command's message."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a command's property value (``file=``, ``title=``)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, properties: dict[str, object], message: str) -> str:
    props = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in properties.items()
    )
    return f"::{level} {props}::{escape_data(message)}"


def _annotation(diagnostic: Diagnostic) -> str:
    message = diagnostic.message
    for number, step in enumerate(diagnostic.trace, start=1):
        message += (
            f"\n  {number}. {step.path}:{step.line}:{step.column}: {step.message}"
        )
    spec = RULES_BY_ID.get(diagnostic.rule)
    if spec is not None:
        message += f"\nSee {spec.url}"
    level = "warning" if diagnostic.severity == "warning" else "error"
    properties = {
        "file": diagnostic.path,
        "line": diagnostic.line,
        "col": diagnostic.column,
        "endLine": diagnostic.end_line,
        "endColumn": diagnostic.end_column,
        "title": f"{diagnostic.rule} {diagnostic.name}",
    }
    return _command(level, properties, message)


def to_github(
    diagnostics: Sequence[Diagnostic],
    errors: Sequence[FileError] = (),
    unused: Sequence[UnusedSuppression] = (),
) -> str:
    """Every finding, per-file error and unused suppression as a workflow command line."""
    lines = [_annotation(d) for d in diagnostics]
    lines += [
        _command("error", {"file": e.path, "title": "dispatch-lint"}, e.message)
        for e in errors
    ]
    lines += [
        _command(
            "warning",
            {
                "file": u.path,
                "line": u.line,
                "col": u.column,
                "title": "unused suppression",
            },
            u.message,
        )
        for u in unused
    ]
    return "".join(line + "\n" for line in lines)
