"""The SARIF 2.1.0 format, for GitHub code scanning and other SARIF viewers.

One run: ``tool.driver`` with every rule of the catalog (id, name, descriptions, help and its
README link, default level); one result per finding with its location relative to
``%SRCROOT%`` (the folder the linter ran in) and the trace as a ``codeFlows`` thread flow;
per-file errors as tool execution notifications. Suppressed findings are included with an
``inSource`` suppression only when asked for.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

from dispatch_lint.analyzer.diagnostics import Diagnostic, FileError, Report
from dispatch_lint.analyzer.report.json import dumps_indented
from dispatch_lint.analyzer.report.rule_docs import all_rule_docs
from dispatch_lint.catalog import HOME_URL

__all__ = ["SARIF_SCHEMA", "to_sarif"]

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_SRCROOT = "%SRCROOT%"


def _level(severity: str) -> str:
    return "warning" if severity == "warning" else "error"


def _artifact(path: str) -> dict[str, str]:
    """A relative path stays relative to %SRCROOT%; one outside it becomes a file URI."""
    pure = PurePath(path)
    if not pure.is_absolute() and ".." not in pure.parts:
        return {"uri": quote(pure.as_posix()), "uriBaseId": _SRCROOT}
    return {"uri": Path(os.path.abspath(path)).as_uri()}


def _region(
    line: int, column: int, end_line: int | None = None, end_column: int | None = None
) -> dict[str, int]:
    region = {"startLine": max(line, 1), "startColumn": max(column, 1)}
    if (
        end_line is not None
        and end_column is not None
        and (end_line, end_column) > (line, column)
    ):
        region["endLine"] = end_line
        region["endColumn"] = max(end_column, 1)
    return region


def _location(
    path: str, region: dict[str, int], message: str | None = None
) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": _artifact(path), "region": region}
    }
    if message is not None:
        location["message"] = {"text": message}
    return location


def _rules() -> tuple[list[dict[str, Any]], dict[str, int]]:
    rules, index = [], {}
    for doc in all_rule_docs():
        spec = doc.spec
        index[spec.id] = len(rules)
        rules.append(
            {
                "id": spec.id,
                "name": spec.name,
                "shortDescription": {"text": spec.summary},
                "fullDescription": {"text": doc.explanation},
                "help": {
                    "text": f"{spec.message}. Fix: {spec.fix}. See {spec.url}",
                    "markdown": f"{spec.message}. **Fix:** {spec.fix}. [Documentation]({spec.url})",
                },
                "helpUri": spec.url,
                "defaultConfiguration": {"level": _level(spec.severity)},
                "properties": {"runtimeError": spec.runtime_error},
            }
        )
    return rules, index


def _result(
    diagnostic: Diagnostic, rule_index: dict[str, int], suppressed: bool
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": diagnostic.rule,
        "level": _level(diagnostic.severity),
        "message": {"text": diagnostic.message},
        "locations": [
            _location(
                diagnostic.path,
                _region(
                    diagnostic.line,
                    diagnostic.column,
                    diagnostic.end_line,
                    diagnostic.end_column,
                ),
            )
        ],
    }
    if diagnostic.rule in rule_index:
        result["ruleIndex"] = rule_index[diagnostic.rule]
    if diagnostic.trace:
        steps = [
            {
                "location": _location(
                    step.path, _region(step.line, step.column), step.message
                ),
                "executionOrder": order,
            }
            for order, step in enumerate(diagnostic.trace, start=1)
        ]
        result["codeFlows"] = [
            {
                "message": {"text": diagnostic.message},
                "threadFlows": [{"locations": steps}],
            }
        ]
    if suppressed:
        result["suppressions"] = [{"kind": "inSource"}]
    return result


def to_sarif(
    report: Report,
    version: str,
    suppressed: Sequence[Diagnostic] = (),
    root: Path | None = None,
) -> str:
    """The report as a SARIF 2.1.0 log. ``suppressed`` findings are added with their
    suppression; ``root`` is the folder relative paths start from (the current folder)."""
    rules, rule_index = _rules()
    marked = [(d, False) for d in report.diagnostics] + [(d, True) for d in suppressed]
    results = [
        _result(d, rule_index, hidden)
        for d, hidden in sorted(marked, key=lambda m: m[0])
    ]
    base = (root or Path.cwd()).absolute().as_uri().rstrip("/") + "/"
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "dispatch-lint",
                "version": version,
                "semanticVersion": version,
                "informationUri": HOME_URL,
                "rules": rules,
            }
        },
        "originalUriBaseIds": {_SRCROOT: {"uri": base}},
        "invocations": [_invocation(report.errors)],
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return dumps_indented(log)


def _invocation(errors: Sequence[FileError]) -> dict[str, Any]:
    invocation: dict[str, Any] = {"executionSuccessful": not errors}
    if errors:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "error",
                "message": {"text": error.message},
                "locations": [
                    {"physicalLocation": {"artifactLocation": _artifact(error.path)}}
                ],
            }
            for error in errors
        ]
    return invocation
