"""Expressions: names, constants, attributes, operators and comparisons.

A binary operation between tensors records a ``binop`` event (DL008) and gives a tensor on the
operands' device; formatting with a spec reads a tensor's data (DL003).
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_PROJECTION
from dispatch_lint.analyzer.dataflow.containers import BOUND_CONTAINER_METHODS
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.dataflow.syntax import integer_literal, operator_symbol
from dispatch_lint.analyzer.dataflow.views import is_data
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Cls,
    Const,
    Dev,
    Inst,
    Ref,
    Step,
    Str,
    Sym,
    Ten,
    Trace,
    Traced,
    Tup,
    Unknown,
    Value,
    devices_clash,
    enters_via,
    has_tensor,
    is_tensorish,
    join_all,
    reads_only,
)
from dispatch_lint.frameworks import dispatch

#: The projections that keep what is a tracer of a value (``traced``: also in its items;
#: ``array``: only itself): after one, these keep the same (iterating a tracer, or what it
#: holds, gives tracers of it).
_TRACER_FILTERS = frozenset({"traced", "made", "array"})
_TRACER_KEEPS = _TRACER_FILTERS | {"iter", "elem", "operand"}
#: Strings one `a + b` of known strings gives at most (each side a may-set of strings).
_MAX_CONCATENATIONS = 4
#: The longest string a concatenation is followed to (device names, config keys are short).
_MAX_STRING = 80
#: Integers computed from known counts stay below this (larger: unknown, as before)
_MAX_COUNT = 1 << 16


class Expressions:
    """The interpreter's expressions (calls and containers apart)."""

    def eval(self, node: cst.BaseExpression, state: State) -> Value:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            for child in node.children:
                if isinstance(child, cst.BaseExpression):
                    self.eval(child, state)
            return Value.of(UNKNOWN)
        return method(node, state)

    def expr_Name(self, node: cst.Name, state: State) -> Value:
        return self.lookup(node.value, state, node)

    def expr_SimpleString(self, node: cst.SimpleString, state: State) -> Value:
        if len(node.value) > 40:
            return Value.of(UNKNOWN)  # device names are short; docstrings are not
        text = _plain_string_value(node.value)
        if text is None:
            try:
                text = node.evaluated_value
            except Exception:  # noqa: BLE001 - odd literals are just unknown strings
                return Value.of(UNKNOWN)
        if isinstance(text, str) and len(text) < 40:
            return self.string_value(text, node)
        return Value.of(UNKNOWN)

    def string_value(self, text: str, node: cst.CSTNode) -> Value:
        """The known string ``text`` made at ``node``; a device's name starts where a
        device came from there."""
        if text in dispatch.DEVICE_STRINGS:
            return Value.of(Str(text), Trace(self.step(node, "device name `{code}`")))
        return Value.of(Str(text))

    def expr_Integer(self, node: cst.Integer, state: State) -> Value:
        return Value.of(UNKNOWN)  # a leaf: nothing inside to evaluate

    expr_Imaginary = expr_Ellipsis = expr_Integer

    def expr_Float(self, node: cst.Float, state: State) -> Value:
        # a Python number, never a tensor: `loss * scale` of a scale from a list of them is
        # on the loss's device (integers stay unknown: counters would grow in loops)
        try:
            return Value.of(Const(float(node.value)))
        except ValueError:
            return Value.of(UNKNOWN)

    def expr_FormattedString(self, node: cst.FormattedString, state: State) -> Value:
        # the text, when every part is known: `f"{stage}_device"` for a stage the caller names
        pieces: list[str] | None = []
        from_caller = False  # a part is a constant the caller passed
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                if pieces is not None:
                    pieces.append(part.value)
                continue
            if isinstance(part, cst.FormattedStringExpression):
                value = self.eval(part.expression, state)
                # a caller's constant: a parameter itself, or an item or field of one (a
                # settings dict's `settings["backend"]`), never what an operation made of it
                plain = pieces is not None and not part.format_spec and \
                    part.conversion is None and len(value) == 1 and not any(
                        isinstance(a, Sym) and not reads_only(a.proj) for a in value)
                known = self.constants(value) if plain else EMPTY
                if len(known) == 1 and isinstance(next(iter(known)), (Str, Const)):
                    atom = next(iter(known))
                    pieces.append(atom.text if isinstance(atom, Str) else str(atom.value))
                    from_caller = from_caller or any(isinstance(a, Sym) for a in value)
                else:
                    pieces = None
                spec_is_empty = True  # `{v:{spec}}` where every spec may only be ""
                for spec_part in part.format_spec or ():
                    if isinstance(spec_part, cst.FormattedStringExpression):
                        # `{v:{width}}`: its calls run
                        spec = self.eval(spec_part.expression, state)
                        spec_is_empty = spec_is_empty and spec_part.conversion is None and \
                            bool(spec) and all(a == Str("") for a in spec)
                    elif spec_part.value:
                        spec_is_empty = False
                # with a conversion (`{t!r:>10}`) the spec formats the text str/repr gave
                if part.format_spec and not spec_is_empty and part.conversion is None \
                        and has_tensor(value):
                    self.emit("read", (value,), "format", part,
                              "formatted with a format spec: `{code}`")
        if pieces is not None and "{" not in "".join(pieces) and "}" not in "".join(pieces):
            text = "".join(pieces)
            if from_caller and text in dispatch.DEVICE_STRINGS:
                # a device name built of what the caller passed (`f"autodiff:{backend}"`):
                # what it makes is the caller's doing, as for a name passed whole
                return Value.of(Str(text), Trace(Step(self.file, node, "device name `{code}`",
                                                      self.anchor, via=self.owner)))
            return self.string_value(text, node)
        return Value.of(UNKNOWN)

    def expr_Attribute(self, node: cst.Attribute, state: State) -> Value:
        if isinstance(node.value, cst.Name):
            local = state.env.get(f"{node.value.value}.{node.attr.value}")
            if local is not None:
                return local
        return self.attribute(self.eval(node.value, state), node.attr.value, node)

    def attribute(self, obj: Value, name: str, node: cst.CSTNode) -> Value:
        out = join_all(self.attribute_of(atom, trace, name, node) for atom, trace in obj.items())
        if self.outside and any(a in self.outside for a in obj):
            self.note_outside(out)  # a field of an object from before the trace
        return out or Value.of(UNKNOWN)

    def class_of(self, value: Value, node: cst.CSTNode) -> Value:
        """``type(obj)`` (or ``obj.__class__``): the class of each object of the checked tree
        ``value`` may be (the receiver's, in this calling context, for a method's ``self``);
        anything else is a class the analysis does not follow."""
        out = EMPTY
        for atom, trace in value.items():
            objects = self.objects_of(atom, node) if isinstance(atom, Sym) else Value.of(atom)
            classes = join_all(Value.of(Cls(a.cls), trace) for a in objects
                               if isinstance(a, Inst))
            out = out.join(classes if classes and len(classes) == len(objects)
                           else classes.join(Value.of(UNKNOWN)))
        return out or Value.of(UNKNOWN)

    def attribute_of(self, atom: object, trace: Trace | None, name: str,
                     node: cst.CSTNode) -> Value:
        if name == "__name__":  # registries key functions and classes by their names
            known = self.program.name_of(atom)
            if known is not None:
                return Value.of(Str(known))
        if name == "__class__" and isinstance(atom, (Inst, Sym)):
            return self.class_of(Value.of(atom, trace), node)
        if isinstance(atom, Ref):
            if isinstance(atom.key, tuple) and atom.key[0] == "super":
                return self.program.super_attribute(atom, name)
            if atom.key is not None and not (isinstance(atom.key, tuple)
                                             and atom.key[0] == "module"):
                return Value.of(UNKNOWN)
            qualname = f"{atom.qualname}.{name}"
            value = self.program.resolve(qualname)
            if value is not None and not self.is_module and isinstance(atom.key, tuple):
                # `config.DEVICE`: a function may have rebound it on this path
                value = self.slot_value(("g", atom.key[1], name), value, record=is_data(value))
            return value or Value.of(Ref(qualname))
        if isinstance(atom, (Ten, Dev)) and name in ("is_capture", "is_autodiff"):
            dev = atom.dev if isinstance(atom, Ten) else atom
            if dev.kind != "real" or name == "is_capture":
                return Value.of(Const(dev.is_capture if name == "is_capture" else dev.is_autodiff))
        if isinstance(atom, Ten):
            if name == "device":
                return Value.of(atom.dev, trace)
            if name in ("T", "mT"):
                return Value.of(atom, trace)
            return Value.of(UNKNOWN)
        if isinstance(atom, Sym):
            if name in dispatch.NON_TENSOR_ATTRIBUTES:
                return Value.of(UNKNOWN)
            if name in ("T", "mT"):
                return Value.of(atom, trace)
            proj = "device" if name == "device" else "attr:" + name
            return self.project_sym(atom, trace, proj)
        if isinstance(atom, Inst):
            value = self.program.instance_attribute(atom, name, self, node)
            if node is not None and not self.receives(atom) and enters_via(trace, self.owner) \
                    and is_data(value):
                # a field of an object read from the receiver's fields (`self.model.weight`):
                # the caller made the receiver what it is, as for the receiver's own fields
                value = value.map_traces(Step(self.file, node, "read from `{code}`",
                                              self.anchor, via=self.owner))
            return value
        if isinstance(atom, Tup) and name in atom.names:  # a named tuple's field
            return atom.items[atom.names.index(name)]
        if isinstance(atom, Box) and atom.kind == "dispatch" and name == "register":
            return Value.of(Box("registrar", atom.site), trace)  # `@to_host.register`
        if isinstance(atom, Box) and atom.kind == "ns":  # `types.SimpleNamespace(...)`
            return self.item(Value.of(atom, trace), name, node)
        if isinstance(atom, Box) and atom.kind in ("list", "dict", "set") and \
                name in BOUND_CONTAINER_METHODS:
            # `record = peaks.setdefault`: the container's method, called later
            return Value.of(Ref(f"<{atom.kind}>.{name}", ("bound method", name),
                                Value.of(atom, trace)))
        if isinstance(atom, Cls):
            return self.program.class_attribute(atom, name, self)
        if isinstance(atom, Traced):
            return self.traced_attribute(atom, trace, name)
        if isinstance(atom, Dev) and name == "inner" and atom.inner is not None:
            return Value.of(atom.inner, trace)
        return Value.of(UNKNOWN)

    def project_sym(self, atom: Sym, trace: Trace | None, proj: object) -> Value:
        last = atom.proj[-1] if atom.proj else None
        if last == proj == "untraced" or last in _TRACER_FILTERS and (
                proj in _TRACER_KEEPS or isinstance(proj, tuple) and proj[0] == "item"):
            # what is (or is not) a tracer, filtered again, iterated or indexed (a tracer's
            # items are tracers): the same
            return Value.of(atom, trace)
        if isinstance(proj, tuple) and proj[0] == "mix" and proj == last:
            # combined again with a tensor on the same device (`x = layer(x)` in a loop over
            # layers on one device): where it may end up is the same
            return Value.of(atom, trace)
        if len(atom.proj) >= MAX_PROJECTION:
            return Value.of(UNKNOWN)
        return Value.of(Sym(atom.param, (*atom.proj, proj), atom.real and proj not in (
            "device",), atom.owner), trace)

    def expr_NamedExpr(self, node: cst.NamedExpr, state: State) -> Value:
        value = self.eval(node.value, state)
        self.assign(node.target, value, state, node)
        return value

    def expr_IfExp(self, node: cst.IfExp, state: State) -> Value:
        return join_all(value for _, value in self.if_values(node, state)) or Value.of(UNKNOWN)

    def if_values(self, node: cst.IfExp, state: State) -> list[tuple[frozenset[Value], Value]]:
        """The value of each branch of ``node`` that may run, with what its path assumed
        (``return a if is_capture(t) else b`` returns each on its own path)."""
        parts = [(branch_state.assumed, value)
                 for branch_state, value in self.if_branches(node, state)]
        if self.program.traced and len(parts) == 2:
            values = self.typed_namespaces(node.test, [value for _, value in parts])
            if len(values) == 1:
                return [(state.assumed, values[0])]
        return parts

    def if_branches(self, node: cst.IfExp, state: State) -> list[tuple[State, Value]]:
        """Each branch of ``node`` that may run: the state its test narrowed and its value
        there (the path ends only when every branch that may run raises)."""
        true_state, false_state = self.condition(node.test, state)
        branches = []
        before = self.take_end()
        ends = []
        for branch_state, branch in ((true_state, node.body), (false_state, node.orelse)):
            if branch_state is not None:
                # the sinks of a branch are reached on what its test assumed
                with self.assuming(branch_state.assumed):
                    branches.append((branch_state, self.eval(branch, branch_state)))
                ends.append(self.take_end())
        self.join_ends(before, ends)
        return branches

    def expr_Await(self, node: cst.Await, state: State) -> Value:
        return self.eval(node.expression, state)

    def expr_Yield(self, node: cst.Yield, state: State) -> Value:
        # A generator is modelled by what it yields: iterating it gives those values.
        self.returned = self.yielded = True
        if isinstance(node.value, cst.From):  # `yield from inner`: what inner yields
            value = self.elements(self.eval(node.value.item, state))
        elif isinstance(node.value, cst.BaseExpression):
            value = self.eval(node.value, state)
        else:
            return Value.of(UNKNOWN)
        self.returns = self.returns.join(value.map_traces(self.step(node, "yielded")))
        if self.resume_view is not None:
            self.resume_past_yield(state)
        if self.func is None:
            return Value.of(UNKNOWN)
        # what a caller sends in (`gen.send(v)`): a parameter after the real ones
        return Value.of(Sym(len(self.func.params), (), False, self.owner),
                        Trace(self.step(node, "received by `{code}`")))

    def resume_past_yield(self, state: State) -> None:
        """A generator resumed past its yield (see Program.summary): what it wrote before was
        replayed when it was called, and the caller's block may have written the same slots
        since, so what follows reads the heap as the caller's path left it where it resumes
        (the slots of objects made here excepted) and only its own later writes are replayed
        again."""
        self.entry_view = self.resume_view or {}
        for slot in [s for s in state.view if len(s) < 2 or not self.own_object(s[1])]:
            del state.view[slot]
        for key in [k for k in state.env if "." in k]:
            del state.env[key]  # `obj.name` as last stored here
        for key, (target, _, _) in list(self.effects.items()):
            if not all(self.own_object(a) for a in target):
                del self.effects[key]

    def own_object(self, atom: object) -> bool:
        """Whether this run made ``atom`` (a container, an instance): no caller writes it."""
        site = getattr(atom, "site", None)
        return site is not None and site.owner == self.site_owner

    def expr_UnaryOperation(self, node: cst.UnaryOperation, state: State) -> Value:
        value = self.eval(node.expression, state)
        if isinstance(node.operator, cst.Not):
            if has_tensor(value):
                self.emit("read", (value,), "condition", node,
                          "used as a condition: `{code}`")
            # `if not apply_softmax:` with the flag's default: decided like `if flag:`
            truth = self.truth(value)
            return Value.of(UNKNOWN) if truth is None else Value.of(Const(not truth))
        return value.filter(is_tensorish) or Value.of(UNKNOWN)

    def expr_BooleanOperation(self, node: cst.BooleanOperation, state: State) -> Value:
        left = self.eval(node.left, state)
        if has_tensor(left):
            self.emit("read", (left,), "condition", node.left,
                      "used as a condition: `{code}`")
        right_state = self.narrow(node.left, state.copy(), isinstance(node.operator, cst.And))
        if self.refuted(right_state):
            return left  # `not isinstance(t, Tracer) and ...` of a tracer
        # the sinks of the right side are reached on what the left side assumed, and it
        # may not run at all (`x or fail()`: the left side may decide alone)
        assumed = self.path.assumed | right_state.assumed if self.path is not None else (
            frozenset())
        with self.assuming(assumed), self.may_not_run():
            right = self.eval(node.right, right_state)
        return left.join(right)

    def expr_BinaryOperation(self, node: cst.BinaryOperation, state: State) -> Value:
        left = self.eval(node.left, state)
        right = self.eval(node.right, state)
        if type(node.operator) is cst.Modulo and any(isinstance(a, Str) for a in left):
            # printf-style formatting: numeric conversions read the value
            if any(_PRINTF_NUMERIC.search(a.text) for a in left if isinstance(a, Str)):
                self.read_arguments((right,), node, "printf")
            return Value.of(UNKNOWN)
        return self.binop(left, right, node, operator_symbol(node.operator))

    def comparand(self, node: cst.BaseExpression, state: State) -> Value:
        """A side of a comparison: an integer literal is its number there (`index == 0` of
        an unrolled `enumerate` decides the branch), elsewhere integers stay unknown."""
        number = integer_literal(node)
        return Value.of(Const(number)) if number is not None else self.eval(node, state)

    def expr_Comparison(self, node: cst.Comparison, state: State) -> Value:
        left = self.comparand(node.left, state)
        result = EMPTY
        for index, comp in enumerate(node.comparisons):
            if index and has_tensor(result):
                # `a < b < c` is `(a < b) and ...`: the first result is used as a condition
                self.emit("read", (result,), "condition", node,
                          "used as a condition: `{code}`")
            right = self.comparand(comp.comparator, state)
            known = self.compare_constants(left, right, comp.operator)
            if known is not None:
                result = result.join(Value.of(Const(known)))
            elif isinstance(comp.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                if self.program.traced and isinstance(comp.operator, (cst.In, cst.NotIn)):
                    self.check_membership(left, right, node)
                result = result.join(Value.of(UNKNOWN))
            else:
                compared = self.binop(left, right, node, operator_symbol(comp.operator))
                if self.program.traced:
                    compared = self.drop_kinds(compared, "comparison")
                result = result.join(compared)
            left = right
        return result or Value.of(UNKNOWN)

    def binop(self, left: Value, right: Value, node: cst.CSTNode, op: str) -> Value:
        """A tensor operation between two values: a ``binop`` event and the result tensor."""
        if op == "+" and (text := self.concatenated(left, right, node)) is not None:
            return text
        if isinstance(node, cst.BinaryOperation):
            counted = _number_arithmetic(_literal_or(node.left, self.constants(left)),
                                          _literal_or(node.right, self.constants(right)), op)
            if counted is not None:
                return counted
        lefts, rights = left.filter(is_tensorish), right.filter(is_tensorish)
        tensors = lefts.join(rights)
        if not self.program.devices:
            # no dispatch tensor in play: only tracers flow, and any mix of them is one
            return tensors or self.container_operand(left, right, node, op)
        if has_tensor(left) and has_tensor(right):
            self.emit("binop", (left, right), op, node, "combined by `{code}`")
        if self.training_depth and has_tensor(tensors):
            self.emit("training", (tensors,), "op", node,
                      "used inside `guards.training()`: `{code}`")
        if not lefts or not rights:
            result = tensors  # with a scalar (or anything else): the tensor's device
        else:
            result = EMPTY
            for a, a_trace in lefts.items():
                for b, b_trace in rights.items():
                    result = result.join(self.combine(a, a_trace, b, b_trace))
        if any(isinstance(a, Ten) and not a.dev.is_autodiff for a in result) and (
                _may_be_tensor(_operand(node, right=False), left)
                or _may_be_tensor(_operand(node, right=True), right)):
            # `x @ w` with `w` not followed: tracked (autodiff) when `w` is an autodiff tensor
            # of the same backend, so the result may be one the analysis does not know
            result = result.join(Value.of(UNKNOWN))
        return result or self.container_operand(left, right, node, op)

    def concatenated(self, left: Value, right: Value, node: cst.CSTNode) -> Value | None:
        """``str + str``: the string, when both sides are known (a parameter by the constant
        its caller gave: `"autodiff:" + backend`), else an unknown string; None when neither
        side is a string (a tensor operation)."""
        if not any(isinstance(a, Str) for side in (left, right) for a in side):
            return None
        lefts, rights = self.constants(left), self.constants(right)
        if len(lefts) * len(rights) > _MAX_CONCATENATIONS or not all(
                isinstance(a, Str) for side in (lefts, rights) for a in side):
            return Value.of(UNKNOWN)
        out = EMPTY
        for a in lefts:
            for b in rights:
                text = a.text + b.text
                if len(text) > _MAX_STRING:  # a long chain of `+` stays linear
                    return Value.of(UNKNOWN)
                out = out.join(self.string_value(text, node))
        return out

    def container_operand(self, left: Value, right: Value, node: cst.CSTNode, op: str
                          ) -> Value:
        """``list + list`` (a new list of both), ``tuple + tuple`` (a longer tuple),
        ``list * n``: the container; else unknown."""
        sequences = [side for side in (left, right)
                     if any(isinstance(a, (Box, Tup)) for a in side)]
        if op == "+" and len(sequences) == 2:
            tuples = [a for side in sequences for a in side if isinstance(a, Tup)]
            if len(tuples) == 2 and len(left) == len(right) == 1:  # (a, b) + (c,)
                return Value.of(Tup(tuples[0].items + tuples[1].items))
            # list + list: a new list holding both, the left's items at their indices when
            # it has a known length (`[head] + rest`), the right's too when it has one
            first, second = self.known_items(left), self.known_items(right)
            if first is None:
                front = self.elements(left)
                made = self.box_of("list", node, front.join(self.elements(right)))
                if second:  # the right's items are its last ones (`[... for ...] + [last]`)
                    self.note_ends(next(iter(made)), front, second)
                return made
            tail = [(len(first) + i, item) for i, item in enumerate(second)] \
                if second is not None else [(None, self.elements(right))]
            made = self.filled_box("list", node, [*enumerate(first), *tail])
            if second is None:  # from the left's length on: the right's items
                self.note_tail(next(iter(made)), len(first), tail[0][1])
            return made
        if sequences:
            return sequences[0]  # list * n, tuple * n
        return Value.of(UNKNOWN)

    def combine(self, a: object, a_trace: Trace | None, b: object, b_trace: Trace | None
                ) -> Value:
        """The result of an operation on tensors ``a`` and ``b``; nothing when it raises."""
        if isinstance(a, Ten) and isinstance(b, Ten):
            if devices_clash(a.dev, b.dev):
                return EMPTY  # DeviceMismatchError: no result
            # Autodiff with plain of the same backend is tracked: the result is autodiff.
            keep, trace = (b, b_trace) if b.dev.is_autodiff and not a.dev.is_autodiff else (
                a, a_trace)
            return Value.of(keep, trace)
        if isinstance(a, Ten) and isinstance(b, Sym):
            return self.project_sym(b, b_trace, ("mix", a.dev))
        if isinstance(a, Sym) and isinstance(b, Ten):
            return self.project_sym(a, a_trace, ("mix", b.dev))
        if (isinstance(a, Sym) and isinstance(b, Sym) and a.owner == b.owner == self.owner
                and a != b and not _has_pairing(a) and not _has_pairing(b)):
            # two parameters: the caller's arguments decide whether the operation works
            return self.project_sym(a, a_trace, ("with", b))
        if isinstance(a, Sym) and isinstance(b, Sym) and a != b:
            # not paired (pairs of pairs would never end): a tensor made from either, but
            # neither one alone when it is no tensor (`lr * grad` is no `lr`)
            return self.operand(a, a_trace).join(self.operand(b, b_trace))
        return Value.of(a, a_trace).join(Value.of(b, b_trace))

    def operand(self, atom: Sym, trace: Trace | None) -> Value:
        """``atom`` as the result of an operation it took part in (see summaries.project)."""
        return Value.of(atom, trace) if atom.proj[-1:] == ("operand",) else self.project_sym(
            atom, trace, "operand")

    def read_arguments(self, args: Sequence[Value], node: cst.CSTNode,
                       detail: str = "format") -> None:
        """A formatting call reads the data of the tensors among ``args`` (and in tuples);
        ``detail`` is ``printf`` for ``%`` formatting."""
        for value in args:
            tensors = value.filter(is_tensorish)
            for atom in value:
                if isinstance(atom, Tup):
                    tensors = tensors.join(join_all(atom.items).filter(is_tensorish))
            if tensors:
                self.emit("read", (tensors,), detail, node, "formatted by `{code}`")


#: printf conversions that read a number (``%s`` and ``%r`` only print the placeholder)
_PRINTF_NUMERIC = re.compile(r"%[-+ #0]*[\d*]*(?:\.[\d*]+)?[diouxXeEfFgGc]")


def _plain_string_value(literal: str) -> str | None:
    """The value of a string literal without prefix, escapes or carriage returns (most
    literals: the text between its quotes), else None; ``literal_eval`` would compile it."""
    if literal[0] not in "'\"" or "\\" in literal or "\r" in literal:
        return None
    quotes = 3 if len(literal) >= 6 and literal[:3] in ("'''", '"""') else 1
    return literal[quotes:-quotes]


def _has_pairing(atom: Sym) -> bool:
    """Whether ``atom`` already pairs two parameters (pairs of pairs would never end)."""
    return any(isinstance(p, tuple) and p[0] == "with" for p in atom.proj)


def _operand(node: cst.CSTNode, right: bool) -> cst.CSTNode | None:
    """The right (else left) operand of the operation ``node`` (``a @ b``, ``a += b``)."""
    if isinstance(node, cst.BinaryOperation):
        return node.right if right else node.left
    if isinstance(node, cst.AugAssign):
        return node.value if right else node.target
    return None


def _may_be_tensor(operand: cst.CSTNode | None, value: Value) -> bool:
    """Whether an operand the analysis knows no tensor in may still be one: its value is
    unknown and it is not written as a number (`2`, `-1`, `0.5`)."""
    if operand is None or not any(isinstance(a, Unknown) for a in value):
        return False
    if isinstance(operand, cst.UnaryOperation):
        operand = operand.expression
    return not isinstance(operand, (cst.Integer, cst.Float, cst.Imaginary))


#: Arithmetic on known numbers: counts and indices (``len(items) - 1``, ``step + 1``) and
#: the floats of a configuration (``1 - cfg["ema"]``)
_NUMBER_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
}
#: The largest exponent worked out (``2 ** n`` of a big ``n`` is left unknown, not computed)
_MAX_EXPONENT = 64


def _literal_or(operand: cst.BaseExpression, value: Value) -> Value:
    """An integer literal operand as the number it is (literals evaluate to unknown)."""
    literal = integer_literal(operand)
    return Value.of(Const(literal)) if literal is not None else value


def _number_arithmetic(left: Value, right: Value, op: str) -> Value | None:
    """``a op b`` of two known numbers (flags are Const too: never a bool), else None. An
    integer result is kept up to ``_MAX_COUNT`` (a loop's counter stays bounded), a float
    one when it is finite; a loop that changes a number each round joins two of them, which
    is no longer one known number, so the rounds end."""
    func = _NUMBER_OPS.get(op)
    if func is None or len(left) != 1 or len(right) != 1:
        return None
    a, b = next(iter(left)), next(iter(right))
    if not (isinstance(a, Const) and isinstance(b, Const)
            and type(a.value) in (int, float) and type(b.value) in (int, float)):
        return None
    if op == "**" and not (type(b.value) is int and abs(b.value) <= _MAX_EXPONENT
                           and abs(a.value) <= _MAX_COUNT):
        return None
    try:
        result = func(a.value, b.value)
    except (ArithmeticError, ValueError):  # 1 / 0, 0.0 ** -1, a float too large
        return None
    if type(result) is int:
        return Value.of(Const(result)) if abs(result) <= _MAX_COUNT else None
    return Value.of(Const(result)) if type(result) is float and math.isfinite(result) else None
