"""Conditions and guards: a value's truth, and what a test proves on each branch.

A tensor used as a condition is a data read (DL003). Tests that check for capture tensors
(``is_capture(t)``, ``t.is_capture``, ``ensure_not_capture(t)``) narrow the tested name on each
branch; tests of constants (``x is None``, ``mode == "export"``, a flag the caller passed) decide
which branches can run.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_ASSUMED
from dispatch_lint.frameworks import dispatch
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.dataflow.syntax import (
    dotted_name,
    integer_literal,
    is_constant_false,
    is_constant_true,
    string_key,
)
from dispatch_lint.analyzer.facts import FuncInfo
from dispatch_lint.analyzer.summaries import Summary
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Accessor,
    Box,
    Closure,
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
    Unknown,
    Value,
    certainly_traced,
    has_tensor,
    join_all,
    narrow_capture,
    narrow_not_capture,
    narrow_tensor_class,
    narrow_tuple_item,
    none_pass,
    reads_only,
)


#: Python's own types, of which no tracer is an instance; of the scalars, no container either.
_PYTHON_SCALARS = frozenset({"int", "float", "bool", "complex", "str", "bytes"})
_PYTHON_TYPES = _PYTHON_SCALARS | {"tuple", "list", "dict", "set", "frozenset", "range", "slice"}
_ABC_MODULES = frozenset({"typing", "collections.abc", "typing_extensions"})
_CONTAINER_ABCS = frozenset({"Mapping", "MutableMapping", "Sequence", "MutableSequence", "Set",
                             "MutableSet", "AbstractSet"})

#: Builtins and tools whose iteration gives the items of their arguments (see
#: :meth:`Conditions.item_sources`), by the name they are called under.
_ITEM_KEEPERS = {name: f"builtins.{name}" for name in (
    "list", "tuple", "set", "frozenset", "sorted", "reversed", "iter")} | {
    "chain": "itertools.chain", "itertools.chain": "itertools.chain"}
#: How many names assigned one from another a quantified guard follows back.
MAX_ALIAS_DEPTH = 3
#: A source of a quantified guard's items: a local name, what of it gives them ("items",
#: "values" of a dict, "self"), and the name's node.
ItemSource = tuple[str, str, cst.Name]

#: What a test checks a value for (see :meth:`Conditions.capture_test`): being a capture
#: tensor (the dispatch runtime's guards), or being a tracer (a type test every tracer passes,
#: as a concrete array may: only its failure says something, that the value is concrete).
CAPTURE_TEST = "capture"
TRACED_TEST = "traced"


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
        if self.refuted(true_state):
            true_state = None  # `not isinstance(t, Tracer)` of a tracer
        if self.refuted(false_state):
            false_state = None
        if truth is False or is_constant_false(test):
            true_state = None  # dead code: `if False:`, or a flag the caller passed
        if truth is True or is_constant_true(test):
            false_state = None
        return true_state, false_state

    def assume(self, state: State, value: Value) -> None:
        """The path of ``state`` found ``value`` no tracer (or, narrowed by a capture or
        autodiff test, what the test let through): it is not taken if the value certainly
        is one, here (:meth:`refuted`) or, for a caller's value, at each call, where what
        the caller passes may also leave nothing to pass the test (events on the path carry
        the assumption, see ``Event.assumes``)."""
        if len(state.assumed) < MAX_ASSUMED and (certainly_traced(value) or any(
                isinstance(a, Sym) for a in value)):
            state.assumed = state.assumed | {value}

    def refuted(self, state: State | None) -> bool:
        """Whether ``state``'s path assumed a value that certainly is a tracer no tracer (JAX
        stages every result inside a trace: ``not isinstance(jnp.all(v), Tracer)`` is false
        under ``jit``), or a capture test that no value passes: the path is never taken.
        Only the caller's values stay assumed."""
        return state is not None and any(certainly_traced(v) or not v for v in state.assumed)

    def constants(self, value: Value) -> Value:
        """``value`` with this context's constant arguments in place of its parameters."""
        if not any(isinstance(a, Sym) for a in value):
            return value
        out = EMPTY
        for atom, trace in value.items():
            known = (
                self.param_context.get(atom.param)
                if isinstance(atom, Sym) and atom.owner == self.owner else None
            )
            if known is not None and not reads_only(atom.proj):
                # a conversion or operation (a device the callee makes of the caller's
                # string) gives no constant; followed here it would report where the
                # context is asked for, not where the conversion is
                known = None
            if known is not None and atom.proj:
                # a flag inside what the caller passed: `config["mode"]`, `options.export`
                known = self.program.project_all(self, known, atom.proj, self.anchor or
                                                 cst.Pass())
            if known and all(isinstance(a, (Const, Str)) for a in known):
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
        kind = type(test)  # leaf classes: cheaper than isinstance on libcst's ABCs
        if kind is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self.narrow(test.expression, state, not truth)
        if kind is cst.NamedExpr:  # `if (graph := is_capture(x)):` tests the guard
            return self.narrow(test.value, state, truth)
        if kind is cst.BooleanOperation:
            if type(test.operator) is cst.And and truth:
                return self.narrow(test.right, self.narrow(test.left, state, True), True)
            if type(test.operator) is cst.Or and not truth:
                return self.narrow(test.right, self.narrow(test.left, state, False), False)
            return state
        if truth and self.program.traced:
            self.narrow_not_traced(test, state)
        elif self.program.traced:
            self.narrow_lacks_array_attribute(test, state)
        quantified = self.quantified_guard(test, state)
        if quantified is not None:
            sources, when = quantified
            if truth == when:
                for name, part, node in sources:
                    state.env[name] = self.real_part(state.env[name], part, node)
            return state
        found = self.capture_test(test, state)
        if found is not None:
            subject, polarity, family = found
            name = dotted_name(subject)
            if name is not None and (name in state.env or "." in name):
                value = state.env[name] if name in state.env else self.eval_quiet(subject, state)
                dataless = truth == polarity
                if family == TRACED_TEST:
                    # true: a tracer or a concrete array alike; false: no tracer, so the
                    # path is not taken where the value certainly is one (see assume)
                    if not dataless:
                        state.env[name] = self.untraced(value)
                        self.assume(state, value)
                else:
                    narrowing = narrow_capture if dataless else narrow_not_capture
                    state.env[name] = narrowing(value)
                    self.assume(state, state.env[name])
                    _refute_if_none_pass(state, value, state.env[name])
                    if isinstance(subject, cst.Attribute):
                        self.narrow_owners(subject, narrowing, state)
                        self.narrow_field(subject, state.env[name], state)
                    elif name in self.field_aliases:
                        self.narrow_alias(self.field_aliases[name], value, narrowing, state)
            elif family != TRACED_TEST and isinstance(subject, cst.Subscript):
                # `if is_capture(state["pending"]):` narrows the dict's item on the path
                self.narrow_item(subject, narrow_capture if truth == polarity
                                 else narrow_not_capture, state)
            return state
        subject = self.autodiff_class_test(test, state)
        if subject is not None:
            # `isinstance(device, dispatch.Autodiff)`: an autodiff device, or not one
            value = state.env[subject]
            state.env[subject] = self.only_autodiff(value, truth)
            _refute_if_none_pass(state, value, state.env[subject])
            return state
        subject = self.tensor_class_test(test, state)
        if subject is not None:
            # `isinstance(a, dispatch.Tensor)`: a tensor (else no tensor at all)
            value = state.env[subject]
            state.env[subject] = narrow_tensor_class(value, truth)
            _refute_if_none_pass(state, value, state.env[subject])
            return state
        if isinstance(test, cst.Attribute) and test.attr.value == "is_autodiff":
            subject = _device_of(test.value, state) or _subject(test.value)
            name = dotted_name(subject) if subject is not None else None
            if name is not None and (name in state.env or "." in name):
                value = state.env[name] if name in state.env else self.eval_quiet(subject, state)
                state.env[name] = self.only_autodiff(value, truth)
                self.assume(state, state.env[name])
                _refute_if_none_pass(state, value, state.env[name])
        return state

    def narrow_field(self, subject: cst.Attribute, narrowed: Value, state: State) -> None:
        """``if is_capture(self.pending):`` narrows the field itself on this path, not only
        the expression: a method called later, and the caller once this method returns,
        read the narrowed value (``self.pending = replay(self.pending)`` in the branch, and
        on the other path it was no capture tensor)."""
        owner = self.eval_quiet(subject.value, state)
        if len(owner) != 1:
            return
        atom = next(iter(owner))
        if isinstance(atom, Sym):
            objects = self.objects_of(atom, subject)
            atom = next(iter(objects)) if len(objects) == 1 else None
        if isinstance(atom, Inst):
            self.write_slot(("attr", atom, subject.attr.value), narrowed, state)

    def narrow_owners(self, subject: cst.Attribute, narrowing: Callable[[Value], Value],
                      state: State) -> None:
        """``if batch.features.is_capture: continue`` where ``batch`` is one of several
        objects: on each branch, a local name keeps the objects whose field may pass the
        test as it went (the training batches, not the export one, after the ``continue``)."""
        holder = dotted_name(subject.value)
        if holder is None or "." in holder or holder not in state.env:
            return
        owner = state.env[holder]
        if len(owner) < 2 or not all(isinstance(a, Inst) and self.program.find_method(
                a.cls, subject.attr.value) is None for a in owner):
            return  # a field of one object is narrowed itself (narrow_field)
        kept = {atom: trace for atom, trace in owner.items()
                if narrowing(self.attribute(Value.of(atom), subject.attr.value, subject))}
        if kept:
            state.env[holder] = Value(kept)

    def narrow_alias(self, field: cst.Attribute | cst.Subscript, value: Value,
                     narrowing: Callable[[Value], Value], state: State) -> None:
        """``loss = self.pending`` (or ``loss = state["pending"]``) then ``if
        is_capture(loss):``: the field or item is narrowed as the name is, while it still
        holds ``value``, what the name was given."""
        if isinstance(field, cst.Subscript):
            self.narrow_item(field, narrowing, state, value)
            return
        current = self.eval_quiet(field, state)
        if set(current) != set(value):
            return  # the field was written since (or the name rebound on another path)
        narrowed = narrowing(current)  # with the field's own trace, not the name's
        dotted = dotted_name(field)
        if dotted is not None and dotted in state.env:
            state.env[dotted] = narrowed
        self.narrow_field(field, narrowed, state)

    def narrow_item(self, item: cst.Subscript, narrowing: Callable[[Value], Value],
                    state: State, expected: Value | None = None) -> None:
        """The item ``d["key"]`` of one dict narrowed on this path (only while it holds
        ``expected``, when given: what a name read from it holds); ``pair[1]`` of a name
        holding tuples narrows that item of each."""
        index = integer_literal(item.slice[0].slice.value) if len(item.slice) == 1 and \
            isinstance(item.slice[0].slice, cst.Index) else None
        if index is not None and isinstance(item.value, cst.Name) and expected is None and \
                item.value.value in state.env:
            value = state.env[item.value.value]
            narrowed = narrow_tuple_item(value, index, narrowing is narrow_capture)
            state.env[item.value.value] = narrowed
            if value and not narrowed:
                state.assumed = state.assumed | {EMPTY}  # no tuple it holds passes
            return
        text = string_key(item)
        if text is None and isinstance(item.value, cst.Name) and len(item.slice) == 1 and \
                isinstance(item.slice[0].slice, cst.Index):
            # a name that holds one known string (a loop's key: `losses[stage]`)
            key = self.constant_key(self.eval_quiet(item.slice[0].slice.value, state))
            text = key if isinstance(key, str) else None
        if text is None:
            return
        holder = self.eval_quiet(item.value, state)
        box = next(iter(holder)) if len(holder) == 1 else None
        if not (isinstance(box, Box) and box.kind == "dict"):
            return
        value = self.get_item(holder, text, item)
        if expected is not None and set(value) != set(expected):
            return  # written since
        narrowed = narrowing(value)
        self.write_slot(("bk", box, text), narrowed, state)
        if expected is None:
            _refute_if_none_pass(state, value, narrowed)  # no tensor it holds passes

    def quantified_guard(self, test: cst.BaseExpression, state: State
                         ) -> tuple[list[ItemSource], bool] | None:
        """``any(is_capture(t) for t in batch)`` (or ``all(not t.is_capture for t in
        batch)``) over what local names hold (see :meth:`item_sources`): the names, and the
        truth of the test under which no item of them is a capture tensor."""
        if not (isinstance(test, cst.Call) and len(test.args) == 1 and not test.args[0].star
                and isinstance(test.args[0].value, (cst.GeneratorExp, cst.ListComp))):
            return None
        quantifier = {a.qualname for a in self.eval_quiet(test.func, state) if isinstance(a, Ref)}
        if quantifier not in ({"builtins.any"}, {"builtins.all"}):
            return None
        comp = test.args[0].value
        loop = comp.for_in
        if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name):
            return None
        sources = self.item_sources(loop.iter, state)
        if not sources:
            return None
        every = quantifier == {"builtins.all"}  # all(g): each item passes g; any(g): none does
        inner = state.copy()
        inner.env[loop.target.value] = join_all(self.part_items(state.env[name], part)
                                                for name, part, _ in sources)
        item = self.narrow(comp.elt, inner, every).env.get(loop.target.value)
        if not item or narrow_capture(item):
            return None
        return sources, every

    def item_sources(self, node: cst.BaseExpression, state: State, depth: int = 0
                     ) -> list[ItemSource] | None:
        """What iterating over ``node`` goes through, when every item comes from a local
        name: the items of a name (``batch``, ``list(args)``, ``sorted(batch)``,
        ``itertools.chain(a, b)``, ``a + b``, ``[*args]``), a dict's values
        (``kwargs.values()``), a name itself (``(x, y)``); a name last assigned such an
        expression (``values = list(args) + list(kwargs.values())``) goes through its
        sources too, while they hold what they held then. None when an item may come from
        elsewhere. Each source comes with its name's node, where a narrowed copy is made."""
        kind = type(node)
        if kind is cst.Name:
            if node.value not in state.env:
                return None
            out = [(node.value, "items", node)]
            alias = self.item_aliases.get(node.value)
            if alias is not None and depth < MAX_ALIAS_DEPTH:
                made, held = alias
                if all(set(state.env.get(n, ())) == set(v) for n, v in held):
                    out.extend(self.item_sources(made, state, depth + 1) or ())
            return out
        if kind in (cst.Tuple, cst.List, cst.Set):
            out = []
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    found = self.item_sources(element.value, state, depth)
                elif isinstance(element.value, cst.Name) and element.value.value in state.env:
                    found = [(element.value.value, "self", element.value)]
                else:
                    found = None
                if not found:
                    return None
                out.extend(found)
            return out
        if kind is cst.BinaryOperation and type(node.operator) is cst.Add:
            left = self.item_sources(node.left, state, depth)
            right = self.item_sources(node.right, state, depth) if left else None
            return left + right if left and right else None
        if kind is not cst.Call or any(a.keyword or a.star for a in node.args):
            return None
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "values" and not node.args:
            if isinstance(func.value, cst.Name) and func.value.value in state.env:
                return [(func.value.value, "values", func.value)]
            return None
        keeper = _ITEM_KEEPERS.get(dotted_name(func) or "")
        if not node.args or keeper is None or (len(node.args) > 1 and keeper != "itertools.chain"):
            return None
        if {a.qualname for a in self.eval_quiet(func, state) if isinstance(a, Ref)} != {keeper}:
            return None
        out = []
        for arg in node.args:
            found = self.item_sources(arg.value, state, depth)
            if not found:
                return None
            out.extend(found)
        return out

    def part_items(self, value: Value, part: str) -> Value:
        """The items a source of :meth:`item_sources` gives."""
        if part == "self":
            return value
        return self.contents(value) if part == "values" else self.elements(value)

    def real_part(self, value: Value, part: str, node: cst.CSTNode) -> Value:
        """``value`` once a guard on each item it gave as ``part`` proved none is a capture
        tensor (see :meth:`item_sources`)."""
        if part == "self":
            return narrow_not_capture(value)
        return self.real_values(value, node) if part == "values" else \
            self.real_items(value, node)

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
                                or self._container_abc(n, state) for n in names):
            return
        scalar = all(n.value in _PYTHON_SCALARS for n in names)
        name = test.args[0].value.value
        if name in state.env:
            if scalar:
                kept = state.env[name].filter(lambda a: not isinstance(a, (Traced, Sym)))
                state.env[name] = kept or Value.of(UNKNOWN)
            else:  # a container: its items may be tracers, itself not
                state.env[name] = self.untraced(state.env[name])

    def _container_abc(self, node: cst.BaseExpression, state: State) -> bool:
        """``typing.Mapping``, ``collections.abc.Sequence``, ...: abstract containers a type
        must be registered with, which no tracer is (``Iterable`` and ``Sized`` are checked by
        their methods, which arrays have)."""
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return False
        return any(isinstance(a, Ref) and a.qualname.rsplit(".", 1)[0] in _ABC_MODULES
                   and a.qualname.rsplit(".", 1)[-1] in _CONTAINER_ABCS
                   for a in self.eval_quiet(node, state))

    def narrow_lacks_array_attribute(self, test: cst.BaseExpression, state: State) -> None:
        """``hasattr(v, "shape")`` false: ``v`` is no tracer there, since every tracer has
        its framework's array attributes and methods (``a.shape if hasattr(a, "shape") else
        np.asarray(a).shape`` converts only what is not an array)."""
        if not (isinstance(test, cst.Call) and len(test.args) == 2
                and isinstance(test.func, cst.Name) and test.func.value == "hasattr"
                and isinstance(test.args[0].value, cst.Name)
                and isinstance(test.args[1].value, cst.SimpleString)):
            return
        attribute = test.args[1].value.evaluated_value
        if not any(attribute in model.concrete_attributes
                   or attribute in model.same_kind_attributes
                   or attribute in model.same_kind_methods
                   for model in self.program.traced_models.values()):
            return
        name = test.args[0].value.value
        if name in state.env:
            state.env[name] = self.untraced(state.env[name])

    def autodiff_class_test(self, test: cst.BaseExpression, state: State) -> str | None:
        """The local name ``isinstance(name, dispatch.Autodiff)`` tests, if ``test`` is
        that test of a device (or of a tensor's, ``isinstance(t.device, Autodiff)``: the
        tensor's name) against the runtime's autodiff device class."""
        subject = self.device_class_test(test, "Autodiff", state)
        if isinstance(subject, cst.Name) and subject.value in state.env:
            return subject.value
        return None

    def tensor_class_test(self, test: cst.BaseExpression, state: State) -> str | None:
        """The local name ``isinstance(name, dispatch.Tensor)`` tests, if ``test`` is that
        test against the runtime's tensor class."""
        if not (isinstance(test, cst.Call) and len(test.args) == 2
                and isinstance(test.args[0].value, cst.Name)):
            return None
        subject = self.device_class_test(test, "Tensor", state)
        if isinstance(subject, cst.Name) and subject is test.args[0].value and \
                subject.value in state.env:
            return subject.value
        return None

    def device_class_test(self, test: cst.BaseExpression, runtime_class: str, state: State
                          ) -> cst.BaseExpression | None:
        """What ``isinstance(x, dispatch.<runtime_class>)`` narrows, if ``test`` is that test:
        ``x`` (a local name or a field of one), or ``t`` when ``x`` is ``t.device``."""
        if not (isinstance(test, cst.Call) and len(test.args) == 2
                and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
                and not any(a.star or a.keyword for a in test.args)
                and self.program.dispatch_runtime):
            return None
        subject = _device_of(test.args[0].value, state) or test.args[0].value
        if not _is_narrowable(subject):
            return None
        kinds = self.eval_quiet(test.args[1].value, state)
        if kinds and all(isinstance(a, Ref) and dispatch.runtime_name(a.qualname)
                         == runtime_class for a in kinds):
            return subject
        return None

    def only_autodiff(self, value: Value, autodiff: bool) -> Value:
        """``value`` where ``.is_autodiff`` was found ``autodiff`` (a parameter: as its
        argument will be, see the ``("only", ...)`` projection)."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Sym):
                out = out.join(self.project_sym(atom, trace,
                                                ("only", "autodiff" if autodiff else "plain")))
            elif autodiff_kind(atom) in (None, autodiff):
                out = out.join(Value.of(atom, trace))
        return out or Value.of(UNKNOWN)

    def capture_test(self, test: cst.BaseExpression, state: State, items: bool = False
                     ) -> tuple[cst.BaseExpression, bool, str] | None:
        """The name (``t``) or field (``self.t``) ``test`` checks for being a data-less
        value, if it is such a check, whether the test is true for them, and which
        (:data:`CAPTURE_TEST`: a capture tensor; :data:`TRACED_TEST`: a type test true for
        every tracer of a traced framework, ``isinstance(t, jax.core.Tracer)``). Besides
        those checks, a helper of the tree that returns one counts (see
        :attr:`Summary.guard`). With ``items``, an item of a name (``kv[1]``) is a subject
        too: what a guard returns of a pair (a ``filter`` predicate)."""
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            constant = dotted_name(comp.comparator)
            if isinstance(comp.operator, (cst.Is, cst.Equal)) and constant in ("True", "False"):
                found = self.capture_test(test.left, state, items)
                if found is not None and constant == "False":
                    return found[0], not found[1], found[2]
                return found
        if isinstance(test, cst.Attribute) and test.attr.value == "is_capture":
            subject = _device_of(test.value, state) or _subject(test.value) or (
                test.value if items and _is_item_subject(test.value)
                or not items and _is_keyed_item(test.value) else None)
            if subject is not None:
                return subject, True, CAPTURE_TEST
        if isinstance(test, cst.Attribute) and _is_narrowable(test.value):
            return self.property_guard(test, state)
        if isinstance(test, cst.Call):
            if test.args and (_is_narrowable(test.args[0].value) or (
                    items and _is_item_subject(test.args[0].value)) or (
                    not items and _is_keyed_item(test.args[0].value))):
                if self.is_runtime_call(test, "is_capture", state):
                    return test.args[0].value, True, CAPTURE_TEST
                if self.is_dataless_type_test(test, state):
                    return test.args[0].value, True, TRACED_TEST
                if len(test.args) == 1 and self.eval_quiet(test.func, state) == Value.of(
                        Accessor("attr", "is_capture")):
                    return test.args[0].value, True, CAPTURE_TEST  # attrgetter("is_capture")
            subject = self.device_class_test(test, "Capture", state)
            if subject is not None:
                return subject, True, CAPTURE_TEST
            return self.helper_guard(test, state, items)
        return None

    def is_dataless_type_test(self, call: cst.Call, state: State) -> bool:
        """``isinstance(v, jax.core.Tracer)`` (or a tuple of types holding one): a type
        test that every data-less value of a traced framework passes."""
        if not (self.program.traced and isinstance(call.func, cst.Name)
                and call.func.value == "isinstance" and len(call.args) == 2
                and not any(a.star or a.keyword for a in call.args)):
            return False
        kinds = call.args[1].value
        names = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        types = {a.qualname for n in names if isinstance(n, (cst.Name, cst.Attribute))
                 for a in self.eval_quiet(n, state) if isinstance(a, Ref)}
        return any(types & model.dataless_types
                   for model in self.program.traced_models.values())

    def helper_guard(self, call: cst.Call, state: State, items: bool = False
                     ) -> tuple[cst.BaseExpression, bool, str] | None:
        """``if is_symbolic(t):`` where the helper returns ``is_capture(t)`` (or
        ``isinstance(t, jax.core.Tracer)``): the argument the helper tests, the polarity of
        its answer and the kind of test. With ``items``, the argument may be an item of a
        name (``is_real(kv[1])``, ``is_real(outputs[name])``), as in ``capture_test``."""
        guards = {summary.guard for _, summary in self.callee_summaries(call, state)}
        if len(guards) != 1:
            return None
        guard = guards.pop()
        if guard is None:
            return None
        index, field_name, polarity, family = guard
        subject = self.argument_of(call, index, state)
        if field_name.startswith("["):
            # an item of the argument (`return is_capture(entry[1])`): only filter() narrows
            # by it, through a predicate that passes its own parameter on (`lambda e: not
            # is_exported(e)` tests `e[1]`)
            position = field_name[1:-1]
            if not (items and isinstance(subject, cst.Name) and position.isdigit()):
                return None
            item = cst.Subscript(value=subject, slice=[cst.SubscriptElement(
                cst.Index(cst.Integer(position)))])
            return item, polarity, family
        if subject is not None and field_name:
            subject = cst.Attribute(value=subject, attr=cst.Name(field_name))
        if subject is None or not (_is_narrowable(subject) or items and not field_name
                                   and _is_item_subject(subject)):
            return None
        return subject, polarity, family

    def property_guard(self, test: cst.Attribute, state: State
                       ) -> tuple[cst.BaseExpression, bool, str] | None:
        """``if batch.exportable:`` where the property returns ``self.features.is_capture``
        (or another guard of its receiver): the receiver's field it tests, as
        :meth:`helper_guard` gives for a call."""
        owner = self.eval_quiet(test.value, state)
        if not owner or not all(isinstance(a, Inst) for a in owner):
            return None
        getters = [self.program.find_method(a.cls, test.attr.value) for a in owner]
        getter = getters[0]
        if getter is None or getter.kind != "property" or any(g is not getter for g in getters):
            return None
        guard = self.program.summary(getter, None).guard
        if guard is None or guard[0] != 0 or guard[1].startswith("["):
            return None  # a guard of something else than the receiver (or of its items)
        _, field_name, polarity, family = guard
        subject: cst.BaseExpression = test.value
        if field_name:
            subject = cst.Attribute(value=subject, attr=cst.Name(field_name))
        return (subject, polarity, family) if _is_narrowable(subject) else None

    def callee_summaries(self, call: cst.Call, state: State, evaluated: bool = False
                         ) -> list[tuple[FuncInfo, Summary]]:
        """The functions of the tree ``call`` may call, with their summaries: those the call
        instantiated when it was evaluated, else each made in no calling context (what a
        guard tests does not depend on it). ``evaluated``: the call was just evaluated, so
        a callee it did not instantiate (a recursive call, one past a bound) is no
        guarantee either."""
        out: list[tuple[FuncInfo, Summary]] = []
        called = self.called.get(id(call), ())
        for atom in self.eval_quiet(call.func, state):
            info = self._callee(atom)
            if info is None:
                return []  # something else may be called: no guarantee
            found = [(i, summary) for i, summary in called if i is info]
            if not found and evaluated:
                return []
            out.extend(found or [(info, self.program.summary(
                info, atom if isinstance(atom, Closure) else None))])
        return out

    def _callee(self, atom: object) -> FuncInfo | None:
        key = atom.key if isinstance(atom, (Ref, Closure)) else None
        return self.program.funcs.get(key) if isinstance(key, int) else None

    def argument_of(self, call: cst.Call, index: int, state: State
                    ) -> cst.BaseExpression | None:
        """The expression ``call`` passes as parameter ``index`` of the function it calls."""
        callees = [self._callee(atom) for atom in self.eval_quiet(call.func, state)]
        if not callees or None in callees:
            return None
        info = callees[0]
        assert info is not None
        bound = info.cls is not None and info.kind in ("method", "property", "setter") and \
            isinstance(call.func, cst.Attribute)
        if bound:
            if index == 0:
                return call.func.value  # type: ignore[union-attr]
            index -= 1
        name = info.params[index + (1 if bound else 0)].name if index + (
            1 if bound else 0) < len(info.params) else None
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if any(a.star for a in call.args):
            return None
        if index < len(positional):
            return positional[index].value
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == name:
                return arg.value
        return None

    def return_guard(self, value: cst.BaseExpression, state: State
                     ) -> tuple[int, str, bool, str] | None:
        """The guard a ``return value`` is (see :attr:`Summary.guard`), if it is one."""
        polarity = True
        while isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
            value, polarity = value.expression, not polarity
        found = self.capture_test(value, state, items=True)
        if found is None or self.func is None:
            return None
        subject, tested, family = found
        field_name = ""
        if isinstance(subject, cst.Attribute):
            field_name, subject = subject.attr.value, subject.value
        elif isinstance(subject, cst.Subscript) and _is_item_of_name(subject):
            # `lambda kv: not kv[1].is_capture`: an item of a pair (see ExternalCalls.kept_by)
            field_name = f"[{subject.slice[0].slice.value.evaluated_value}]"  # type: ignore[attr-defined]
            subject = subject.value
        elif isinstance(subject, cst.Subscript) and _is_item_subject(subject):
            # `lambda n: is_real(outputs[n])`: the item a free name holds under the argument
            field_name = f"[in {subject.value.value}]"  # type: ignore[attr-defined]
            subject = subject.slice[0].slice.value  # type: ignore[attr-defined]
        index = self.parameter_index(subject, state)
        if index is None:
            return None
        return index, field_name, tested == polarity, family

    def parameter_index(self, node: cst.BaseExpression, state: State) -> int | None:
        """The parameter ``node`` (a name) still holds, if it holds one unchanged."""
        if not isinstance(node, cst.Name) or self.func is None:
            return None
        for index, param in enumerate(self.func.params):
            if param.name != node.value:
                continue
            value = state.env.get(node.value)
            if index == 0 and self.self_value is not None:
                return index if value == self.self_value else None
            if value is not None and all(isinstance(a, Sym) and a.param == index and not a.proj
                                         and a.owner == self.owner for a in value):
                return index
        return None

    def note_exit(self, state: State, value: cst.BaseExpression | None,
                  passes: bool = True) -> None:
        """A normal exit of the function (a ``return``, or its end): what its summary says
        about guards and sanitized parameters holds only if it holds on every exit (the
        sinks it passed are noted here unless not ``passes``: a ``return`` notes them once
        its value is evaluated)."""
        guard = self.return_guard(value, state) if value is not None else None
        self.exit_guards.add(guard)
        self.note_exit_view(state)
        sanitized = set()
        if self.func is not None:
            for index, param in enumerate(self.func.params):
                held = state.env.get(param.name)
                if held and all(isinstance(a, Sym) and a.param == index and a.real
                                and not a.proj for a in held):
                    sanitized.add(index)
        self.sanitized = sanitized if self.sanitized is None else self.sanitized & sanitized
        if passes:
            self.note_passes(state)

    def note_passes(self, state: State) -> None:
        """A normal exit: the sinks on a caller's values it passed (see Summary.passes)."""
        self.exit_passed = state.passed if self.exit_passed is None else \
            self.exit_passed & state.passed

    def is_runtime_call(self, call: cst.Call, name: str, state: State) -> bool:
        if not self.program.dispatch_runtime:
            return False
        return self.is_runtime_function(self.eval_quiet(call.func, state), name)

    def is_runtime_function(self, func: Value, name: str) -> bool:
        """Whether ``func`` may be the runtime's function ``name`` (``ensure_not_capture``)
        where the runtime's model applies."""
        return self.program.dispatch_runtime and any(
            isinstance(a, Ref) and dispatch.runtime_name(a.qualname) == name for a in func)

    def eval_quiet(self, node: cst.BaseExpression, state: State) -> Value:
        """Evaluate a callee expression (a name or attribute chain) without side effects."""
        kind = type(node)  # leaf classes: cheaper than isinstance on libcst's ABCs
        if kind is cst.Name:
            return self.lookup(node.value, state, node)
        if kind is cst.Attribute:
            return self.attribute(self.eval_quiet(node.value, state), node.attr.value, node)
        return Value.of(UNKNOWN)

    def compare_constants(self, left: Value, right: Value, operator: cst.CSTNode
                          ) -> bool | None:
        """``x is None``, ``mode == "export"`` and the like, when both sides are known."""
        if isinstance(operator, (cst.In, cst.NotIn)):
            found = self.contains_constant(right, left)
            return found if found is None or isinstance(operator, cst.In) else not found
        left, right = self.constants(left), self.constants(right)
        if not left or not right:
            return None
        if isinstance(operator, (cst.Is, cst.IsNot)) and right == Value.of(Const(None)):
            if all(a == Const(None) for a in left):
                same = True
            elif all(is_something(a) or self.passed_something(a) for a in left):
                same = False
            else:
                for atom in left:
                    if isinstance(atom, Sym) and atom.owner == self.owner and not atom.proj:
                        self.none_tests.add(atom.param)  # a caller's argument would decide
                return None
            return same if isinstance(operator, cst.Is) else not same
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            apart = _devices_apart(left, right)
            if apart is not None:  # `x.device == w.device`
                return not apart if isinstance(operator, cst.Equal) else apart
            values = [{_literal(a) for a in side} for side in (left, right)]
            if any(None in side or len(side) != 1 for side in values):
                return None
            equal = values[0] == values[1]
            return equal if isinstance(operator, cst.Equal) else not equal
        return None

    def contains_constant(self, container: Value, value: Value) -> bool | None:
        """``value in container`` when ``value`` is a known constant and ``container`` a
        tuple or list of known constants (``name in ("numpy", "numba")``) or a known
        string (a substring test), else None."""
        values = {_literal(a) for a in self.constants(value)}
        if not values or None in values:
            return None
        texts = {a.text for a in self.constants(container) if isinstance(a, Str)}
        if texts and len(texts) == len(container) == len(values) == 1:
            text, (kind, item) = texts.pop(), values.pop()
            return item in text if kind == "str" else None
        items = self.known_items(container)
        if items is None:
            return None
        members = set()
        for item in items:
            literals = {_literal(a) for a in self.constants(item)}
            if len(literals) != 1 or None in literals:
                return None
            members |= literals
        found = {v in members for v in values}
        return found.pop() if len(found) == 1 else None

    def passed_something(self, atom: object) -> bool:
        """A parameter the caller certainly passed something (not None) for."""
        return isinstance(atom, Sym) and atom.owner == self.owner and not atom.proj and \
            ("set", atom.param) in self.param_context

    def narrow_after_call(self, node: cst.Call, state: State, callee: Value | None = None,
                          receiver: Value | None = None) -> None:
        """``ensure_not_capture(t)`` raises for capture tensors: afterwards ``t`` is real. So
        is an argument a helper of the tree sanitizes (see :attr:`Summary.sanitizes`).

        ``callee`` is what the call's function evaluated to, or ``receiver`` what the object
        of ``receiver.name(...)`` did (the interpreter has them: not evaluated again)."""
        subjects: list[cst.BaseExpression] = []
        if callee is None and receiver is not None and self.program.dispatch_runtime:
            callee = self.attribute(receiver, node.func.attr.value, node)  # type: ignore[attr-defined]
        if node.args and callee is not None and self.is_runtime_function(callee,
                                                                         "ensure_not_capture"):
            subjects.append(node.args[0].value)
        elif node.args and any(s.sanitizes for _, s in self.called.get(id(node), ())):
            summaries = self.callee_summaries(node, state, evaluated=True)
            if summaries:
                common = frozenset.intersection(*(s.sanitizes for _, s in summaries))
                for index in sorted(common):
                    subject = self.argument_of(node, index, state)
                    if subject is not None:
                        subjects.append(subject)
        for subject in subjects:
            name = dotted_name(subject) if _is_narrowable(subject) else None
            if name is None:
                continue
            if name in state.env:
                state.env[name] = narrow_not_capture(state.env[name])
            elif "." in name:
                state.env[name] = narrow_not_capture(self.eval_quiet(subject, state))


def _devices_apart(left: Value, right: Value) -> bool | None:
    """Whether two devices compare unequal (``x.device == w.device``), when both sides are
    one known device each: plain and autodiff devices compare by kind, as the runtime's do;
    capture devices made at different places differ, but two made at one place may be two
    (a loop's), so equal ones are not known to be the same. None when not known."""
    if len(left) != 1 or len(right) != 1:
        return None
    a, b = next(iter(left)), next(iter(right))
    if not (isinstance(a, Dev) and isinstance(b, Dev)) or "real" in (a.base.kind, b.base.kind):
        return None
    if a != b:
        return True
    return None if a.is_capture else False


def _literal(atom: object) -> object:
    """The Python value of a constant atom (wrapped, so that None means unknown)."""
    if isinstance(atom, Const):
        return ("const", atom.value)
    if isinstance(atom, Str):
        return ("str", atom.text)
    return None


def is_something(atom: object) -> bool:
    """An atom that is certainly not None."""
    return isinstance(atom, (Dev, Ten, Str, Inst, Box, Tup, Ref, Cls, ProgramAtom)) or (
        isinstance(atom, Const) and atom.value is not None)


def autodiff_kind(atom: object) -> bool | None:
    """Whether a device or tensor atom is on an autodiff device (None: not one of them)."""
    if isinstance(atom, Dev):
        return atom.is_autodiff
    if isinstance(atom, Ten):
        return atom.dev.is_autodiff
    if isinstance(atom, Str) and atom.text in dispatch.DEVICE_STRINGS:
        return dispatch.DEVICE_STRINGS[atom.text][0] == "autodiff"
    return None


def _device_of(node: cst.BaseExpression, state: State) -> cst.Name | None:
    """``t`` when ``node`` is ``t.device`` of a local name that holds tensors (or a
    parameter): a test of a tensor's device narrows the tensor (``t.device.is_capture``,
    ``isinstance(t.device, Capture)``); an object's ``device`` field is narrowed itself."""
    if isinstance(node, cst.Attribute) and node.attr.value == "device" and isinstance(
            node.value, cst.Name) and node.value.value in state.env:
        held = state.env[node.value.value]
        if any(isinstance(a, (Ten, Sym)) for a in held) and all(
                isinstance(a, (Ten, Sym, Unknown)) for a in held):
            return node.value
    return None


def _subject(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """What a test of ``node`` narrows: ``node`` itself, or the target of ``(t := ...)``."""
    if isinstance(node, cst.NamedExpr):
        node = node.target
    return node if _is_narrowable(node) else None


def _is_item_of_name(node: cst.BaseExpression) -> bool:
    """``kv[1]``: an item of a local name under a constant index."""
    return (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
            and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Integer))


def _is_keyed_item(node: cst.BaseExpression) -> bool:
    """``d["key"]`` or ``d[name]``: a dict's item a test may narrow on its path (under the
    key the name holds, when it holds one), or ``pair[1]``: that item of the tuples a name
    holds (see Conditions.narrow_item)."""
    return string_key(node) is not None or _is_item_under_name(node) or _is_item_of_name(node)


def _is_item_subject(node: cst.BaseExpression) -> bool:
    """``kv[1]`` (see :func:`_is_item_of_name`) or ``outputs[name]``: an item of a name
    under a constant index or under another name."""
    return _is_item_of_name(node) or _is_item_under_name(node)


def _is_item_under_name(node: cst.BaseExpression) -> bool:
    """``outputs[name]``: an item of a name under another name."""
    return (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
            and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Name)
            and node.slice[0].slice.value.value != node.value.value)


def _is_narrowable(node: cst.BaseExpression) -> bool:
    """A guard can narrow a local name or a field of one (``t``, ``self.t``)."""
    return isinstance(node, cst.Name) or (
        isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
    )



def _refute_if_none_pass(state: State, value: Value, narrowed: Value) -> None:
    """Every tensor or device ``value`` may be fails the test that narrowed it to
    ``narrowed``: the branch is not taken (also as one side of ``and``, where the test's own
    truth is not known: `if lr > 0 and dev.is_autodiff:` with `dev` a NumPy device)."""
    if none_pass(value, narrowed):
        state.assumed = state.assumed | {EMPTY}
