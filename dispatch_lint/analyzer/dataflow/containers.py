"""How containers work: literals, comprehensions, subscripts, iteration and mutation.

A tuple of known shape is a :class:`~dispatch_lint.analyzer.values.Tup` of values. A list,
dict or set is a :class:`~dispatch_lint.analyzer.values.Box` made at a site; its contents live
in the heap: one slot for everything it holds, plus a precise slot per constant key or index.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from dispatch_lint.analyzer.bounds import MAX_PRECISE_SLOTS, MAX_TUPLE_DEPTH
from dispatch_lint.analyzer.dataflow.state import State
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Inst,
    Site,
    Sym,
    Ten,
    Trace,
    Traced,
    Tup,
    Value,
    join_all,
)

#: Container methods that put their argument into the container.
CONTAINER_MUTATORS = frozenset(
    {"append", "add", "insert", "extend", "update", "setdefault", "appendleft"}
)


class Containers:
    """The interpreter's containers."""

    def store_item(self, obj: Value, key: object, value: Value) -> None:
        for atom in obj:
            if isinstance(atom, Box):
                self.program.write(("b", atom.site), self.box_part(atom, value))
                if key is not None and self.write_item(atom, key, value):
                    self.keep_effect(Value.of(atom), f"item:{key!r}", value)
                self.keep_effect(Value.of(atom), "elem", value)
            elif isinstance(atom, Sym):
                self.keep_effect(Value.of(atom), "elem", value)
            elif isinstance(atom, Inst):
                self.call_method(atom, "__setitem__", (Value.of(UNKNOWN), value), {}, None,
                                 Value.of(atom))

    def box_part(self, box: Box, value: Value) -> Value:
        """What a container made by this very run may hold: its symbolic atoms too (they mean
        the same everywhere this run reads them); other containers get the concrete part."""
        return value if box.site.owner == self.site_owner else self.concrete_part(value)

    def write_item(self, box: Box, key: object, value: Value) -> bool:
        """Store ``value`` in ``box``'s precise slot for the constant ``key``; False (said)
        when the container has MAX_PRECISE_SLOTS already: its shared slot alone holds it."""
        if self.program.write_item(box.site, key, self.box_part(box, value)):
            return True
        self.reduced(f"a container with more than {MAX_PRECISE_SLOTS} constant keys or "
                     "indices: the later ones are not told apart")
        return False

    def new_box(self, kind: str, node: cst.CSTNode) -> Box:
        return Box(kind, self.program.bounded(Site(self.file, id(node), self.site_owner)))

    def subscript_key(self, node: cst.Subscript, state: State) -> object:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        index = node.slice[0].slice.value
        if isinstance(index, cst.Integer):
            return int(index.evaluated_value)
        if isinstance(index, cst.SimpleString):
            try:
                return index.evaluated_value
            except Exception:  # noqa: BLE001
                return None
        return None

    def expr_Subscript(self, node: cst.Subscript, state: State) -> Value:
        obj = self.eval(node.value, state)
        keys: list[tuple[str, Value]] = []
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                keys.append(("index", self.eval(element.slice.value, state)))
            elif self.program.traced and isinstance(element.slice, cst.Slice):
                for bound in (element.slice.lower, element.slice.upper, element.slice.step):
                    if bound is not None:
                        keys.append(("slice", self.eval(bound, state)))
        if self.program.traced:
            self.check_subscript(node, obj, keys)
        return self.item(obj, self.subscript_key(node, state), node)

    def item(self, obj: Value, key: object, node: cst.CSTNode | None = None) -> Value:
        """``obj[key]`` (``key`` None when not a constant)."""
        return join_all(self.item_of(atom, trace, key, node) for atom, trace in obj.items()
                        ) or Value.of(UNKNOWN)

    def item_of(self, atom: object, trace: Trace | None, key: object,
                node: cst.CSTNode | None) -> Value:
        if isinstance(atom, (Ten, Traced)):
            return Value.of(atom, trace)
        if isinstance(atom, Tup):
            if isinstance(key, int) and -len(atom.items) <= key < len(atom.items):
                return atom.items[key]
            return join_all(atom.items)
        if isinstance(atom, Box):
            return self.program.box_item(atom, key)
        if isinstance(atom, Sym):
            return self.project_sym(atom, trace, "elem" if key is None else ("item", key))
        if isinstance(atom, Inst):
            return self.call_method(atom, "__getitem__", (Value.of(UNKNOWN),), {}, node,
                                    Value.of(atom, trace))
        return EMPTY

    def expr_Tuple(self, node: cst.Tuple, state: State) -> Value:
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return self.container("list", node, [e.value for e in node.elements], state)
        items = tuple(self.eval(e.value, state) for e in node.elements)
        if tuple_depth(items) > MAX_TUPLE_DEPTH:
            return Value.of(UNKNOWN)
        return Value.of(Tup(items))

    def expr_List(self, node: cst.List, state: State) -> Value:
        return self.container("list", node, [e.value for e in node.elements], state)

    def expr_Set(self, node: cst.Set, state: State) -> Value:
        return self.container("set", node, [e.value for e in node.elements], state)

    def container(self, kind: str, node: cst.CSTNode, items: Sequence[cst.BaseExpression],
                  state: State) -> Value:
        box = self.new_box(kind, node)
        content = EMPTY
        for index, item in enumerate(items):
            value = self.eval(item, state)
            starred = isinstance(node, (cst.List, cst.Set, cst.Tuple)) and isinstance(
                node.elements[index], cst.StarredElement)
            if starred:
                value = self.elements(value)
            elif self.write_item(box, index, value):
                self.keep_effect(Value.of(box), f"item:{index!r}", value)
            content = content.join(value)
        self.program.write(("b", box.site), self.box_part(box, content))
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def expr_Dict(self, node: cst.Dict, state: State) -> Value:
        box = self.new_box("dict", node)
        content = EMPTY
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self.eval(element.key, state)
                value = self.eval(element.value, state)
                if isinstance(element.key, cst.SimpleString):
                    try:
                        key = element.key.evaluated_value
                    except Exception:  # noqa: BLE001
                        key = None
                    if key is not None and self.write_item(box, key, value):
                        self.keep_effect(Value.of(box), f"item:{key!r}", value)
            else:
                value = self.elements(self.eval(element.value, state))
            content = content.join(value)
        self.program.write(("b", box.site), self.box_part(box, content))
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def comprehension(self, node: cst.CSTNode, for_in: cst.CompFor, state: State) -> State:
        inner = state.copy()
        comp: cst.CompFor | None = for_in
        while comp is not None:
            elements = self.elements(self.eval(comp.iter, inner))
            self.assign(comp.target, elements, inner, comp.target)
            for cond in comp.ifs:
                narrowed, _ = self.condition(cond.test, inner)
                inner = narrowed if narrowed is not None else inner
            comp = comp.inner_for_in
        return inner

    def expr_ListComp(self, node: cst.ListComp, state: State) -> Value:
        inner = self.comprehension(node, node.for_in, state)
        return self.box_of("list", node, self.eval(node.elt, inner))

    def expr_SetComp(self, node: cst.SetComp, state: State) -> Value:
        inner = self.comprehension(node, node.for_in, state)
        return self.box_of("set", node, self.eval(node.elt, inner))

    def expr_GeneratorExp(self, node: cst.GeneratorExp, state: State) -> Value:
        inner = self.comprehension(node, node.for_in, state)
        return self.box_of("gen", node, self.eval(node.elt, inner))

    def expr_DictComp(self, node: cst.DictComp, state: State) -> Value:
        inner = self.comprehension(node, node.for_in, state)
        self.eval(node.key, inner)
        return self.box_of("dict", node, self.eval(node.value, inner))

    def box_of(self, kind: str, node: cst.CSTNode, content: Value) -> Value:
        box = self.new_box(kind, node)
        self.program.write(("b", box.site), self.box_part(box, content))
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def added_by(self, name: str, args: tuple[Value, ...], node: cst.Call) -> Value:
        """What ``container.<name>(*args)`` puts into the container."""
        if name in ("extend", "update"):
            added = self.elements(args[0]) if args else EMPTY
        else:
            added = args[-1] if args else EMPTY
        return added.map_traces(self.step(node, "added to a container: `{code}`"))

    def box_method_on_param(self, atom: Sym, trace: Trace | None, name: str,
                            args: tuple[Value, ...], node: cst.Call) -> Value:
        self.keep_effect(Value.of(atom, trace), "elem", self.added_by(name, args, node))
        return Value.of(UNKNOWN)

    def box_method(self, box: Box, name: str, args: tuple[Value, ...], node: cst.Call) -> Value:
        if name in CONTAINER_MUTATORS:
            added = self.added_by(name, args, node)
            self.program.write(("b", box.site), self.box_part(box, added))
            self.keep_effect(Value.of(box), "elem", added)
            return Value.of(UNKNOWN)
        if name in ("pop", "get", "popleft", "values", "copy", "items"):
            content = self.program.box_item(box, None)
            if name == "items":
                return self.box_of("list", node, Value.of(Tup((Value.of(UNKNOWN), content))))
            if name in ("values", "copy"):
                return Value.of(box)
            return content or Value.of(UNKNOWN)
        return Value.of(UNKNOWN)

    def elements(self, value: Value) -> Value:
        """What iterating over ``value`` gives."""
        return join_all(self.elements_of(atom, trace) for atom, trace in value.items()
                        ) or Value.of(UNKNOWN)

    def elements_of(self, atom: object, trace: Trace | None) -> Value:
        if isinstance(atom, (Ten, Traced)):
            return Value.of(atom, trace)
        if isinstance(atom, Tup):
            return join_all(atom.items)
        if isinstance(atom, Box):
            return self.program.box_item(atom, None)
        if isinstance(atom, Sym):
            return self.project_sym(atom, trace, "elem")
        if isinstance(atom, Inst):
            return self.call_method(atom, "__iter__", (), {}, None, Value.of(atom, trace))
        return Value.of(UNKNOWN)


def tuple_depth(items: tuple[Value, ...]) -> int:
    depth = 1
    for value in items:
        for atom in value:
            if isinstance(atom, Tup):
                depth = max(depth, 1 + tuple_depth(atom.items))
    return depth
