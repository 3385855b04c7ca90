"""Conditions and guards: a value's truth, and what a test proves on each branch.

A tensor used as a condition is a data read (DL003). Tests that check for capture tensors
(``is_capture(t)``, ``t.is_capture``, ``ensure_not_capture(t)``) narrow the tested name on each
branch; tests of constants (``x is None``, ``mode == "export"``, a flag the caller passed) decide
which branches can run.
"""

from __future__ import annotations

import libcst as cst

from dispatch_lint.frameworks import dispatch
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.dataflow.syntax import dotted_name, is_constant_false, is_constant_true
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Cls,
    Const,
    Dev,
    Inst,
    ProgramAtom,
    Ref,
    Str,
    Sym,
    Ten,
    Traced,
    Tup,
    Value,
    has_tensor,
    narrow_capture,
    narrow_not_capture,
)


#: Python's own types, of which no tracer is an instance; of the scalars, no container either.
_PYTHON_SCALARS = frozenset({"int", "float", "bool", "complex", "str", "bytes"})
_PYTHON_TYPES = _PYTHON_SCALARS | {"tuple", "list", "dict", "set", "frozenset", "range", "slice"}


class Conditions:
    """The interpreter's conditions, guards and constant tests."""

    def condition(self, test: cst.BaseExpression, state: State
                  ) -> tuple[State | None, State | None]:
        """States where ``test`` is true and false; reading a tensor's truth is a data read."""
        value = self.eval(test, state)
        if has_tensor(value):
            self.emit("read", (value,), "condition", test,
                      "used as a condition: `{code}`")
        true_state = self.narrow(test, state.copy(), True)
        false_state = self.narrow(test, state.copy(), False)
        truth = self.truth(value)
        if truth is False or is_constant_false(test):
            true_state = None  # dead code: `if False:`, or a flag the caller passed
        if truth is True or is_constant_true(test):
            false_state = None
        return true_state, false_state

    def constants(self, value: Value) -> Value:
        """``value`` with this context's constant arguments in place of its parameters."""
        if not any(isinstance(a, Sym) for a in value):
            return value
        out = EMPTY
        for atom, trace in value.items():
            known = (
                self.param_context.get(atom.param)
                if isinstance(atom, Sym) and atom.owner == self.owner and not atom.proj
                else None
            )
            if known is not None and all(isinstance(a, (Const, Str)) for a in known):
                out = out.join(known)
            else:
                out = out.join(Value.of(atom, trace))
        return out

    def truth(self, value: Value) -> bool | None:
        """The truth of ``value`` when every atom agrees on it, else None."""
        truths = set()
        for atom in self.constants(value):
            if isinstance(atom, Const):
                truths.add(bool(atom.value))
            elif isinstance(atom, Str):
                truths.add(bool(atom.text))
            elif isinstance(atom, (Dev, Cls, Ref, ProgramAtom)):
                truths.add(True)
            else:
                return None
        return truths.pop() if len(truths) == 1 else None

    def narrow(self, test: cst.BaseExpression, state: State, truth: bool) -> State:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.narrow(test.expression, state, not truth)
        if isinstance(test, cst.BooleanOperation):
            if isinstance(test.operator, cst.And) and truth:
                return self.narrow(test.right, self.narrow(test.left, state, True), True)
            if isinstance(test.operator, cst.Or) and not truth:
                return self.narrow(test.right, self.narrow(test.left, state, False), False)
            return state
        if truth and self.program.traced:
            self.narrow_not_traced(test, state)
        subject = self.capture_test_subject(test, state)
        if subject is not None:
            name = dotted_name(subject)
            if name is not None and (name in state.env or "." in name):
                value = state.env[name] if name in state.env else self.eval_quiet(subject, state)
                state.env[name] = narrow_capture(value) if truth else narrow_not_capture(value)
        return state

    def narrow_not_traced(self, test: cst.BaseExpression, state: State) -> None:
        """``isinstance(v, int)`` true: ``v`` is a Python value there, no tracer (a tracer is
        an instance of none of Python's own scalar or container types)."""
        if not (isinstance(test, cst.Call) and len(test.args) == 2
                and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
                and isinstance(test.args[0].value, cst.Name)):
            return
        kinds = test.args[1].value
        names = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        if not names or not all(isinstance(n, cst.Name) and n.value in _PYTHON_TYPES
                                for n in names):
            return
        scalar = all(n.value in _PYTHON_SCALARS for n in names)
        name = test.args[0].value.value
        if name in state.env:
            kept = state.env[name].filter(
                lambda a: not isinstance(a, Traced) and not (scalar and isinstance(a, Sym)))
            state.env[name] = kept or Value.of(UNKNOWN)

    def capture_test_subject(self, test: cst.BaseExpression, state: State
                             ) -> cst.BaseExpression | None:
        """The name (``t``) or field (``self.t``) ``test`` checks for being a capture tensor,
        if it is such a check."""
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            if isinstance(comp.operator, (cst.Is, cst.Equal)) and dotted_name(
                comp.comparator) == "True":
                return self.capture_test_subject(test.left, state)
        if isinstance(test, cst.Attribute) and test.attr.value == "is_capture":
            if _is_narrowable(test.value):
                return test.value
        if isinstance(test, cst.Call) and test.args and _is_narrowable(test.args[0].value):
            if self.is_runtime_call(test, "is_capture", state):
                return test.args[0].value
        return None

    def is_runtime_call(self, call: cst.Call, name: str, state: State) -> bool:
        if not self.program.dispatch_runtime:
            return False
        func = self.eval_quiet(call.func, state)
        return any(isinstance(a, Ref) and dispatch.runtime_name(a.qualname) == name for a in func)

    def eval_quiet(self, node: cst.BaseExpression, state: State) -> Value:
        """Evaluate a callee expression (a name or attribute chain) without side effects."""
        if isinstance(node, cst.Name):
            return self.lookup(node.value, state, node)
        if isinstance(node, cst.Attribute):
            return self.attribute(self.eval_quiet(node.value, state), node.attr.value, node)
        return Value.of(UNKNOWN)

    def compare_constants(self, left: Value, right: Value, operator: cst.CSTNode
                          ) -> bool | None:
        """``x is None``, ``mode == "export"`` and the like, when both sides are known."""
        left, right = self.constants(left), self.constants(right)
        if not left or not right:
            return None
        if isinstance(operator, (cst.Is, cst.IsNot)) and right == Value.of(Const(None)):
            if all(a == Const(None) for a in left):
                same = True
            elif all(isinstance(a, (Dev, Ten, Str, Inst, Box, Tup, Ref, Cls, ProgramAtom))
                     or (isinstance(a, Const) and a.value is not None) for a in left):
                same = False
            else:
                return None
            return same if isinstance(operator, cst.Is) else not same
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            values = [{_literal(a) for a in side} for side in (left, right)]
            if any(None in side or len(side) != 1 for side in values):
                return None
            equal = values[0] == values[1]
            return equal if isinstance(operator, cst.Equal) else not equal
        return None

    def narrow_after_call(self, node: cst.Call, state: State) -> None:
        """``ensure_not_capture(t)`` raises for capture tensors: afterwards ``t`` is real."""
        if node.args and _is_narrowable(node.args[0].value):
            subject = node.args[0].value
            name = dotted_name(subject)
            if name is None or not self.is_runtime_call(node, "ensure_not_capture", state):
                return
            if name in state.env:
                state.env[name] = narrow_not_capture(state.env[name])
            elif "." in name:
                state.env[name] = narrow_not_capture(self.eval_quiet(subject, state))


def _literal(atom: object) -> object:
    """The Python value of a constant atom (wrapped, so that None means unknown)."""
    if isinstance(atom, Const):
        return ("const", atom.value)
    if isinstance(atom, Str):
        return ("str", atom.text)
    return None


def _is_narrowable(node: cst.BaseExpression) -> bool:
    """A guard can narrow a local name or a field of one (``t``, ``self.t``)."""
    return isinstance(node, cst.Name) or (
        isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
    )
