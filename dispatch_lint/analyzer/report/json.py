"""The JSON format: one stable document a script can read.

``{"version": 1, "files": N, "diagnostics": [{"rule", "name", "severity", "path", "line",
"column", "end_line", "end_column", "message", "trace": [{"path", "line", "column",
"message"}]}]}``; lines and columns are 1-based, paths as given on the command line.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from dispatch_lint.analyzer.diagnostics import Diagnostic, Report

__all__ = ["SCHEMA_VERSION", "diagnostic_to_json", "dumps_indented", "to_json"]

#: Bumped only when a key changes meaning or disappears.
SCHEMA_VERSION = 1


def diagnostic_to_json(diagnostic: Diagnostic) -> dict[str, Any]:
    """One finding as the JSON object of the schema."""
    return {
        "rule": diagnostic.rule,
        "name": diagnostic.name,
        "severity": diagnostic.severity,
        "path": diagnostic.path,
        "line": diagnostic.line,
        "column": diagnostic.column,
        "end_line": diagnostic.end_line,
        "end_column": diagnostic.end_column,
        "message": diagnostic.message,
        "trace": [
            {
                "path": step.path,
                "line": step.line,
                "column": step.column,
                "message": step.message,
            }
            for step in diagnostic.trace
        ],
    }


def to_json(report: Report) -> str:
    """The whole report as a JSON document (indented, keys in schema order): the text
    ``dumps_indented`` writes for it, each finding written from one template."""
    head = f'{{\n  "version": {SCHEMA_VERSION},\n  "files": {int(report.files)},\n  "diagnostics": '
    if not report.diagnostics:
        return head + "[]\n}"
    findings = ",\n    ".join(_finding(d) for d in report.diagnostics)
    return f"{head}[\n    {findings}\n  ]\n}}"


def _finding(d: Diagnostic) -> str:
    """One finding as ``dumps_indented`` writes it at the depth of the report's list."""
    if d.trace:
        steps = ",\n        ".join(
            f'{{\n          "path": {encode_basestring(s.path)},'
            f'\n          "line": {int(s.line)},'
            f'\n          "column": {int(s.column)},'
            f'\n          "message": {encode_basestring(s.message)}\n        }}'
            for s in d.trace
        )
        trace = f"[\n        {steps}\n      ]"
    else:
        trace = "[]"
    return (
        f'{{\n      "rule": {encode_basestring(d.rule)},'
        f'\n      "name": {encode_basestring(d.name)},'
        f'\n      "severity": {encode_basestring(d.severity)},'
        f'\n      "path": {encode_basestring(d.path)},'
        f'\n      "line": {int(d.line)},'
        f'\n      "column": {int(d.column)},'
        f'\n      "end_line": {int(d.end_line)},'
        f'\n      "end_column": {int(d.end_column)},'
        f'\n      "message": {encode_basestring(d.message)},'
        f'\n      "trace": {trace}\n    }}'
    )


def dumps_indented(document: Any) -> str:
    """``json.dumps(document, indent=2, ensure_ascii=False)``, the same text, written here:
    the standard library's indenting encoder is pure Python and twice as slow."""
    parts: list[str] = []
    _write(document, "\n", parts)
    return "".join(parts)


def _write(value: Any, newline: str, parts: list[str]) -> None:
    """``value`` appended to ``parts``; ``newline`` starts a line at its indentation."""
    scalar = _scalar(value)
    if scalar is not None:
        parts.append(scalar)
    elif isinstance(value, dict) and value:
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            # Keys that are not strings become strings as json writes them: 1 -> "1".
            name = encode_basestring(key if isinstance(key, str) else json.dumps(key))
            scalar = _scalar(item)
            if scalar is not None:  # most values: written without a call of their own
                parts.append(f"{separator}{name}: {scalar}")
            else:
                parts.append(f"{separator}{name}: ")
                _write(item, inner, parts)
            separator = "," + inner
        parts.append(newline + "}")
    elif isinstance(value, (list, tuple)) and value:
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            parts.append(separator)
            _write(item, inner, parts)
            separator = "," + inner
        parts.append(newline + "]")
    else:  # floats, booleans, None, empty containers
        parts.append(json.dumps(value, ensure_ascii=False))


def _scalar(value: Any) -> str | None:
    """The text of a string or an integer, the schema's values; None for anything else."""
    if type(value) is str:
        return encode_basestring(value)
    if type(value) is int:
        return int.__repr__(value)
    return None
