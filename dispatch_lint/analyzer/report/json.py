"""The JSON format: one stable document a script can read.

``{"version": 1, "files": N, "diagnostics": [{"rule", "name", "severity", "path", "line",
"column", "end_line", "end_column", "message", "trace": [{"path", "line", "column",
"message"}]}]}``; lines and columns are 1-based, paths as given on the command line.
"""

from __future__ import annotations

import json
from typing import Any

from dispatch_lint.analyzer.diagnostics import Diagnostic, Report

__all__ = ["SCHEMA_VERSION", "diagnostic_to_json", "to_json"]

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
    """The whole report as a JSON document (indented, keys in schema order)."""
    document = {
        "version": SCHEMA_VERSION,
        "files": report.files,
        "diagnostics": [diagnostic_to_json(d) for d in report.diagnostics],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)
