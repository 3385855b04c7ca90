"""Small questions about libcst nodes that the interpreter asks everywhere."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def operator_symbol(operator: cst.CSTNode) -> str:
    """``+`` for ``cst.Add()``, ``+=`` for ``cst.AddAssign()``, ``<`` for ``cst.LessThan()``."""
    token = getattr(operator, "_get_token", None)
    return token() if token is not None else type(operator).__name__


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def statements_of(body: cst.BaseSuite | Sequence[cst.CSTNode]) -> Sequence[cst.CSTNode]:
    """The statements of a suite, small statements of one-line suites included."""
    if isinstance(body, tuple):  # most often: a suite's own statements
        return body
    if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return body.body
    return body


def is_constant_false(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name):
        return test.value in ("False", "None")
    if isinstance(test, cst.Integer):
        return test.value in ("0",)
    return False


def is_constant_true(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name):
        return test.value == "True"
    if isinstance(test, cst.Integer):
        return test.value not in ("0",)
    return False
