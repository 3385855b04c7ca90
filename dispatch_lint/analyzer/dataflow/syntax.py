"""Small questions about libcst nodes that the interpreter asks everywhere."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst


def operator_symbol(operator: cst.CSTNode) -> str:
    """``+`` for ``cst.Add()``, ``+=`` for ``cst.AddAssign()``, ``<`` for ``cst.LessThan()``."""
    token = getattr(operator, "_get_token", None)
    return token() if token is not None else type(operator).__name__


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    # `type() is`: both are leaf classes, and isinstance on libcst's abstract node classes
    # goes through ABCMeta.__instancecheck__ whenever it fails (most calls here)
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
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


def names_within(node: cst.CSTNode) -> set[str]:
    """The identifiers of every ``Name`` anywhere inside ``node`` (itself included).

    It walks the nodes' fields: libcst's ``children`` rebuilds every node it visits (a tenth
    of an analysis of fixtures/ went to it)."""
    found: set[str] = set()
    stack: list[object] = [node]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is cst.Name:
            found.add(item.value)  # type: ignore[attr-defined]
            continue
        if kind is tuple or kind is list:
            stack.extend(item)  # type: ignore[arg-type]
            continue
        fields = _NODE_FIELDS.get(kind)
        if fields is None:
            fields = _NODE_FIELDS[kind] = _node_fields(kind)
        stack.extend(getattr(item, name) for name in fields)
    return found


#: per node class, the fields that may hold nodes (empty for anything that is not a node)
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(kind: type) -> tuple[str, ...]:
    if not issubclass(kind, cst.CSTNode):
        return ()
    return tuple(f.name for f in dataclasses.fields(kind))


def integer_literal(node: cst.BaseExpression) -> int | None:
    """The integer literal ``node`` is (``3``, ``-1``), else None."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and \
            isinstance(node.expression, cst.Integer):
        return -int(node.expression.evaluated_value)
    return None


def string_key(node: cst.CSTNode) -> str | None:
    """The key of ``name["key"]`` (a local's item under a string literal), else None."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
            and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)):
        return None
    key = node.slice[0].slice.value
    if isinstance(key, cst.SimpleString):
        text = key.evaluated_value
        return text if isinstance(text, str) else None
    return None
