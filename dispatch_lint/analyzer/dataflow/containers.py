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
from dispatch_lint.analyzer.dataflow.syntax import integer_literal
from dispatch_lint.analyzer.facts import ParamInfo
from dispatch_lint.analyzer.values import (
    EMPTY,
    TUPLE_MADE,
    UNKNOWN,
    Box,
    Closure,
    Cls,
    Const,
    Inst,
    Partial,
    Ref,
    Site,
    Step,
    Str,
    Sym,
    Ten,
    Trace,
    Traced,
    Tup,
    Value,
    carried_by,
    join_all,
    narrow_not_capture,
)

#: Keys a subscript may be told apart by (more become "any key").
MAX_KEYS = 8

#: Items of a known sequence a list comprehension over it is unrolled for.
MAX_UNROLLED = 8


class Keys(frozenset):
    """A subscript key that is one of a few constants (``DEVICES[profile]`` for a profile
    the caller picks from a tuple)."""


#: List methods after which an item's index says nothing about what it holds.
_REORDERING = frozenset({"remove", "sort", "reverse", "rotate"})

#: Methods that take items out of a container.
_REMOVERS = frozenset({"pop", "popleft", "popitem", "remove", "discard", "clear"})
#: List methods that remove items or move them (see :meth:`Containers.moved_in_place`).
LIST_MOVERS = _REORDERING | {"pop", "popleft", "clear"}

#: Container methods that put their argument into the container.
CONTAINER_MUTATORS = frozenset(
    {"append", "add", "insert", "extend", "update", "setdefault", "appendleft"}
)

#: A list's, dict's or set's methods that may be taken as a value and called later
#: (``record = peaks.setdefault``, ``push = queue.append``).
BOUND_CONTAINER_METHODS = CONTAINER_MUTATORS | LIST_MOVERS | frozenset(
    {"get", "items", "keys", "values", "copy", "remove", "discard", "popitem", "__getitem__"})


class Containers:
    """The interpreter's containers."""

    def store_item(self, obj: Value, key: object, value: Value, grows: bool = True) -> None:
        """``obj[key] = value`` (key None: under no key the container knows, unless not
        ``grows``: what the items it knows hold, joined)."""
        if isinstance(key, Keys) or isinstance(key, int) and key < 0:
            key = None  # which of them is not known: the container's any-item slot
        for atom in obj:
            if isinstance(atom, Box):
                self.forget_ends(atom)
            if isinstance(atom, Box) and key is None and grows:
                self.program.grow(atom)
                # how many it holds is not known any more on this path (a callee's append,
                # replayed here), nor on any path of its maker when another run added to it
                # (a closure's, a method's on a field holding it)
                self.note_length(atom, None)
                if atom.site.owner != self.site_owner:
                    self.program.write(("grown_elsewhere", atom.site), Value.of(Const(True)))
                if self.path is not None and self.path.view:
                    for start in range(MAX_UNROLLED + 1):  # appended to its tail too
                        held = self.path.view.get(("tail", atom, start))
                        if held is not None:
                            self.path.view[("tail", atom, start)] = (held[0].join(value), True)
            if isinstance(atom, Box) and not self.writes_initial and (
                    self.path is not None or atom.site.owner != self.site_owner):
                # what a function adds to a container (one that was there before it ran,
                # or its own after the literal made it) is seen after that, on this path
                # (see views.py): an update() after a read does not reach the read
                own = atom.site.owner == self.site_owner
                part = self.box_part(atom, value) if own else value
                self.add_to_view(("b", atom), part)
                if atom.kind == "dict":
                    self.note_keyed_write(atom, key, part, grows)
                if key is not None:
                    self.write_slot(("bk", atom, key), value)
                    if own:
                        self.program.write_key(atom.site, key, EMPTY)  # a key it may hold
                        self.keep_effect(Value.of(atom), ("item", key), value)
                if own:
                    self.keep_effect(Value.of(atom), "elem", value)
            elif isinstance(atom, Box):
                keyed = key is not None and self.write_item(atom, key, value)
                self.program.write(("b", atom.site), self.box_part(atom, value), keyed=keyed)
                if keyed:
                    self.keep_effect(Value.of(atom), ("item", key), value)
                self.keep_effect(Value.of(atom), "elem", value)
            elif isinstance(atom, Sym):
                # under its key: the caller's dict gains that key, not items under unknown
                # keys (which any key's read would give: `msg["seen"] = True` in a helper
                # does not put the tracer under "value" into `msg.get("stop")`)
                self.keep_effect(Value.of(atom), "elem" if key is None else ("item", key),
                                 value)
                if key is not None:
                    slot = (atom, key)
                    self.param_items[slot] = self.param_items.get(slot, EMPTY).join(value)
            elif isinstance(atom, Inst):
                self.call_method(atom, "__setitem__", (Value.of(UNKNOWN), value), {}, None,
                                 Value.of(atom))

    def note_keyed_write(self, box: Box, key: object, value: Value, grows: bool = True
                         ) -> None:
        """This path put ``value`` into the dict ``box`` under the constant ``key`` (None:
        under a key it does not know; unless not ``grows``: what the keys it knows hold,
        joined), kept apart (see :meth:`dict_values`): what a later write under the same
        key replaces is no longer among the dict's values."""
        if key is None and grows:
            self.add_to_view(("bu", box), value)
            return
        self.add_to_view(("bkw", box), value)
        if key is not None:
            self.add_to_view(("bkeys", box), Value.of(Const(key)))

    def dict_values(self, box: Box, key: object, shared: Value | None, seen: Value,
                    record: bool) -> Value:
        """What the dict ``box`` holds under any key (``key`` None), or under a constant
        ``key`` no write named, ``seen`` its shared slot here (the heap's, ``shared``, with
        what this path added). Any key: when this path wrote under constant keys, what it
        holds under no constant key joined with what each key holds now, so that a value a
        later write under its key replaced is gone (`d[k] = program.run(...)` after
        `d[k] = traced`); a key no write named: only what it holds under no constant key
        (never what another key holds). Only when every part of ``seen`` is accounted for:
        what the heap keeps under no constant key or under its keys, what the path added
        under none or under a key; else ``seen``."""
        written = self.slot_value(("bkw", box), None, record=record) or EMPTY
        if key is None and not written or self.program.read(("shifted", box.site)):
            return seen
        program = self.program
        heap_keys = program.keys_at.get(box.site, ())
        rest = program.read(("bu", box.site)) or EMPTY
        if shared is not None and not all(
                a in rest or any(a in (program.heap.get(("bk", box.site, k)) or EMPTY)
                                 for k in heap_keys) for a in shared):
            return seen  # the heap's shared slot holds what no part of it says
        added = self.slot_value(("bu", box), None, record=record) or EMPTY
        if not all(a in rest or a in added or a in written or (shared is not None and a in shared)
                   for a in seen):
            return seen  # another write reached it (a callee's): keep it all
        if key is not None:
            return rest.join(added)
        keys = set(heap_keys)
        for atom in self.slot_value(("bkeys", box), None, record=record) or EMPTY:
            keys.add(atom.value)
        out = rest.join(added)
        for k in sorted(keys, key=repr):
            out = out.join(self.slot_value(("bk", box, k), program.read(("bk", box.site, k)),
                                           record=record) or EMPTY)
        return out

    def box_content(self, box: Box, key: object) -> Value:
        """What ``box[key]`` (any item: None) may hold, as this run sees it: a container
        another call made and kept in a field holds that call's parameters only as their
        values (replayed), not as symbols; one read from the receiver's field holds what
        the caller put there (see :meth:`Views.receives`)."""
        if isinstance(key, Keys):  # one of a few constant keys
            return join_all(self.box_content(box, k) for k in sorted(key))
        if isinstance(key, int) and not isinstance(key, bool) and key < 0:
            length = self.path_length(box)  # `stack[-1]` of a list this path knows
            ends = self.ends_of(box) if length is None else None
            if ends is not None:  # one of its known last items, else one of those before
                return ends[1][key] if -key <= len(ends[1]) else ends[0]
            key = key + length if length is not None and key + length >= 0 else None
        program = self.program
        foreign = box.site.owner != self.site_owner
        content = None
        if isinstance(key, int) and program.read(("shifted", box.site)):
            content = self.moved_item(box, key)  # moved on this path, else any item
        elif key is not None:
            content = self.slot_value(("bk", box, key), program.read(("bk", box.site, key)),
                                      record=foreign)
        if content is None and isinstance(key, str) and box.kind == "dict" and not (
                program.read(("grown", box.site)) or program.past_precise_slots(box.site)):
            # every write to the dict named its key: a key none named holds nothing
            content = EMPTY
        if content is None and isinstance(key, int):
            content = self.tail_of(box, key)
        if content is None:
            shared = program.read(("b", box.site))
            content = self.slot_value(("b", box), shared, record=foreign) or EMPTY
            if box.kind == "dict" and (key is None or isinstance(key, str)):
                content = self.dict_values(box, key, shared, content, foreign)
            if key is not None and program.past_precise_slots(box.site):
                # a key past the bound: what the shared slot holds, but never a capture
                # tensor that another key may hold (unknown, not capture)
                content = narrow_not_capture(content)
        if foreign and program.is_stored(box):
            content = content.filter(lambda a: not (isinstance(a, Sym) and a.owner != self.owner))
        entered = self.via_boxes.get(box)
        if entered is None or not content:
            return content
        # an object held there carries the step too: what its methods make of its fields
        # came from this run's caller as well (see CallModel.apply), and so does what a
        # container held there holds (a param group's list of parameters)
        for atom in content:
            if isinstance(atom, Box):
                self.via_boxes.setdefault(atom, entered)
        # the items of a tuple held there too (`[(k, v) for k, v in vars(self).items()]`)
        return Value({Tup(tuple(item.map_traces(entered) for item in a.items))
                      if isinstance(a, Tup) else a: t.then(entered) if t is not None
                      else Trace(entered) for a, t in content.items()})

    def note_tail(self, box: Box, start: int, value: Value) -> None:
        """On this path the list ``box`` holds ``value``'s items from index ``start`` on, how
        many is not known (``[head] + rest``): an index or a starred target past its known
        items gets them, not the head."""
        if self.path is not None and start <= MAX_UNROLLED:
            self.path.view[("tail", box, start)] = (value, True)

    def tail_of(self, box: Box, index: int) -> Value | None:
        """What index ``index`` (or a starred target from it on) of ``box`` holds on this
        path when it is past the known items (see :meth:`note_tail`), else None."""
        if self.path is None or not self.path.view or index < 0:
            return None
        shifted = self.program.read(("shifted", box.site))
        for start in range(min(index, MAX_UNROLLED), -1, -1):
            # noted after its items moved on this path (`lst.insert(0, x)`), else before
            held = self.path.view.get(("moved tail", box, start))
            if held is None and not shifted:
                held = self.path.view.get(("tail", box, start))
            if held is not None:
                return held[0]
        return None

    def note_ends(self, box: Box, front: Value, ends: Sequence[Value]) -> None:
        """On this path the list ``box`` ends with the items ``ends``, in order, after items
        that hold ``front``, how many is not known (``[f(x) for x in xs] + [last]``): a
        negative index or a target after a starred one gets its own item."""
        if self.path is not None and 0 < len(ends) <= MAX_UNROLLED:
            self.path.view[("ends", box)] = (Value.of(Tup((front, *ends))), True)

    def ends_of(self, box: Box) -> tuple[Value, tuple[Value, ...]] | None:
        """What the items before the known last items of ``box`` hold, and those items (see
        :meth:`note_ends`), when every way here made it so and nothing moved its items
        since; else None."""
        if self.path is None or not self.path.view or box.kind != "list":
            return None
        held = self.path.view.get(("ends", box))
        if held is None or not held[1] or len(held[0]) != 1 or self.program.read(
                ("shifted", box.site)) or self.program.read(("grown_elsewhere", box.site)):
            return None
        shape = next(iter(held[0]))
        if not isinstance(shape, Tup) or len(shape.items) < 2:
            return None
        return shape.items[0], shape.items[1:]

    def forget_ends(self, box: Box) -> None:
        """Items were added to, removed from or written in ``box``: its last items are not
        known any more (on this path, and on a caller's: a callee's write is handed back)."""
        if self.path is not None and box.kind == "list" and (
                ("ends", box) in self.path.view or box.site.owner != self.site_owner):
            self.path.view[("ends", box)] = (EMPTY, True)
        if self.path is not None and ("moved tail", box, 1) in self.path.view:
            del self.path.view[("moved tail", box, 1)]

    def items_moved_by_callee(self, value: Value) -> None:
        """A callee removed or reordered the items of the lists ``value`` holds (``pop()``,
        ``sort()`` on its parameter): how many this path's lists hold and which their last
        items are is not known any more."""
        for atom in value:
            if isinstance(atom, Box) and atom.kind == "list":
                self.forget_ends(atom)
                self.note_length(atom, None)

    def box_part(self, box: Box, value: Value) -> Value:
        """What a container made by this very run may hold: its symbolic atoms too (they mean
        the same everywhere this run reads them); other containers get the concrete part."""
        return value if box.site.owner == self.site_owner else self.concrete_part(value)

    def write_item(self, box: Box, key: object, value: Value) -> bool:
        """Store ``value`` in ``box``'s precise slot for the constant ``key``; False (said)
        when the container has MAX_PRECISE_SLOTS already: its shared slot alone holds it."""
        if self.program.write_key(box.site, key, self.box_part(box, value)):
            return True
        self.program.grow(box)  # which keys it holds is not known any more
        self.reduced(f"a container with more than {MAX_PRECISE_SLOTS} constant keys or "
                     "indices: the later ones are not told apart")
        return False

    def new_box(self, kind: str, node: cst.CSTNode) -> Box:
        # each item of an unrolled loop makes a container of its own, as it makes a capture
        # device of its own (`table[stage] = [ones(..., device=dev)]` for each stage)
        context = tuple(-1 - i for i in self.iteration)
        box = Box(kind, self.program.bounded(Site(self.file, id(node), self.site_owner, context)))
        self.made.add(box)
        return box

    def subscript_key(self, node: cst.Subscript, state: State) -> object:
        """The constant key of ``obj[key]`` (a literal, or a name holding one string), else
        None; the key expression is evaluated here (its calls run), other slices too."""
        return self.subscript_key_value(node, state)[0]

    def subscript_key_value(self, node: cst.Subscript, state: State
                            ) -> tuple[object, Value | None]:
        """The constant key of ``obj[key]`` (see :meth:`subscript_key`), and the key's value
        when it is one index."""
        key: object = None
        key_value = None
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                index = element.slice.value
                if len(node.slice) == 1 and (number := integer_literal(index)) is not None:
                    return number, None  # also `-1`: see box_content
                value = self.eval(index, state)
                if len(node.slice) == 1:
                    key, key_value = self.constant_key(value), value
        return key, key_value

    def expr_Subscript(self, node: cst.Subscript, state: State) -> Value:
        obj = self.eval(node.value, state)
        if self.program.traced:
            # what JAX checks of the keys and bounds (see traces.py)
            keys: list[tuple[str, Value]] = []
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    keys.append(("index", self.eval(element.slice.value, state)))
                elif isinstance(element.slice, cst.Slice):
                    for bound in (element.slice.lower, element.slice.upper,
                                  element.slice.step):
                        if bound is not None:
                            keys.append(("slice", self.eval(bound, state)))
            self.check_subscript(node, obj, keys)
        key, key_value = self.subscript_key_value(node, state)
        sliced = self.constant_slice(node, obj)
        if sliced is not None:
            return sliced
        named = self.name_key(key_value) if key is None else None
        if isinstance(key, str) and self.lacks_key(obj, key):
            # `CONFIG["train"]["backend"]` of a dict that never holds the key: KeyError on
            # every path (the `except KeyError:` fallback is what runs)
            self.diverged = True
            return Value.of(UNKNOWN)
        item = self.item(obj, key, node) if named is None else self.named_item(obj, named, node)
        if key is not None and key_value is not None and self.keyed_by_caller(key_value):
            # the caller's key picked it: a finding it decides is the caller's
            return self.picked_by_caller(item, Step(
                self.file, node, "picked by the caller's key: `{code}`", self.anchor,
                via=self.owner))
        picked = next((self.picked[a] for a in obj if a in self.picked), None)
        if picked is not None:  # `TABLE[mode]["device"]`: what the caller's key picked
            return self.picked_by_caller(item, picked)
        return item

    def lacks_key(self, obj: Value, key: str) -> bool:
        """Whether every dict ``obj`` may be certainly lacks the string ``key``: all its keys
        are known (see Program.known_keys) and ``key`` is none of them."""
        if not obj:
            return False
        for atom in obj:
            if not isinstance(atom, Box) or atom.kind != "dict":
                return False
            known = self.program.known_keys(atom)
            if known is None or key in known:
                return False
        return True

    def name_key(self, key: Value | None) -> tuple[Sym, ...] | None:
        """The parameters' device names ``key`` is (``cache[str(device)]``), else None."""
        if not key or not all(isinstance(a, Sym) and a.owner == self.owner and a.proj
                              and a.proj[-1] == "str" for a in key):
            return None
        return tuple(key)  # type: ignore[arg-type]

    def named_item(self, obj: Value, names: tuple[Sym, ...], node: cst.CSTNode) -> Value:
        """``cache[str(device)]`` of a container: what this path stored under that name, and
        what the caller's container holds under the name of the device it passes (the
        projection ``("lookup", box)``, read at each call)."""
        out = EMPTY
        for atom, trace in obj.items():
            if not isinstance(atom, Box):
                out = out.join(self.item_of(atom, trace, None, node))
                continue
            for name in names:
                stored = self.path.view.get(("bk", atom, name)) if self.path is not None \
                    else None
                if stored is not None:
                    out = out.join(stored[0])
                    if stored[1]:
                        continue
                lookup = Sym(name.param, (*name.proj, ("lookup", atom)), name.real, name.owner)
                out = out.join(Value.of(lookup, trace))
        return out or Value.of(UNKNOWN)

    def store_named(self, obj: Value, names: tuple[Sym, ...], value: Value) -> None:
        """``cache[str(device)] = value``: on this path the container holds it under that
        name, each call's under the name of its device (its other keys keep theirs)."""
        for atom in obj:
            if not isinstance(atom, Box):
                self.store_item(Value.of(atom), None, value)
                continue
            own = atom.site.owner == self.site_owner
            self.add_to_view(("b", atom), self.box_part(atom, value) if own else value)
            if atom.kind == "dict":  # under names this run does not know
                self.note_keyed_write(atom, None, self.box_part(atom, value) if own else value)
            for name in names:
                self.write_slot(("bk", atom, name), value)
                if own:
                    self.keep_effect(Value.of(atom), ("item", name), value)
            if own:
                self.keep_effect(Value.of(atom), "elem", value)

    def constant_slice(self, node: cst.Subscript, obj: Value) -> Value | None:
        """``items[:1]``, ``items[1:]`` of one list or tuple of known length: a list of just
        those items; None for other subscripts."""
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
            return None
        part = node.slice[0].slice
        bounds = []
        for bound in (part.lower, part.upper):
            number = integer_literal(bound) if bound is not None else None
            if bound is not None and number is None:
                return None
            bounds.append(number)
        if part.step is not None:
            return None
        items = self.known_items(obj)
        if items is None and len(obj) == 1 and isinstance(next(iter(obj)), Box):
            box = next(iter(obj))
            length = self.path_length(box)
            if length is not None and length <= MAX_UNROLLED:
                items = tuple(self.box_content(box, i) for i in range(length))
        if items is None and len(obj) == 1 and isinstance(box := next(iter(obj)), Box) and \
                bounds[0] is not None and bounds[0] > 0 and bounds[1] is None and (
                    rest := self.tail_of(box, bounds[0])) is not None:
            return self.box_of("list", node, rest)  # past its known head: the rest's items
        if items is None:
            return None
        return self.list_of(node, list(items[bounds[0]:bounds[1]]))

    def picked_by_caller(self, value: Value, step: Step) -> Value:
        """``value`` picked by the caller's key at ``step``: its atoms say so, and what is
        read from the containers and got by calling the functions in it is picked too."""
        for atom in value:
            if isinstance(atom, (Box, Tup, Ref, Closure, Partial, Cls, Inst)):
                self.picked.setdefault(atom, step)
        return value.map_traces(step)

    def keyed_by_caller(self, key: Value) -> bool:
        """Whether ``key`` is a parameter whose constant this calling context knows (see
        ``CallModel._context``): what it picks is decided by the caller."""
        return not self.is_module and any(
            isinstance(a, Sym) and a.owner == self.owner and a.param in self.param_context
            for a in key)

    def item(self, obj: Value, key: object, node: cst.CSTNode | None = None) -> Value:
        """``obj[key]`` (``key`` None when not a constant)."""
        return join_all(self.item_of(atom, trace, key, node) for atom, trace in obj.items()
                        ) or Value.of(UNKNOWN)

    def holds_key(self, box: Box, key: str) -> bool:
        """Whether the dict ``box`` certainly holds ``key`` (see :meth:`Program.holds_key`)."""
        return self.program.holds_key(box, key)

    def get_item(self, obj: Value, key: str, node: cst.CSTNode) -> Value:
        """What ``obj.get(key)`` gives besides its default: nothing from a dict known not to
        hold ``key``."""
        out = EMPTY
        for atom, trace in obj.items():
            if isinstance(atom, Sym):
                out = out.join(self.project_sym(atom, trace, ("get", key)))
                out = out.join(self.param_items.get((atom, key), EMPTY))
            elif isinstance(atom, Box) and atom.kind == "dict":
                known = self.program.known_keys(atom)
                if known is None or key in known:
                    out = out.join(self.box_content(atom, key))
            else:
                out = out.join(self.item_of(atom, trace, key, node))
        return out

    def item_of(self, atom: object, trace: Trace | None, key: object,
                node: cst.CSTNode | None) -> Value:
        if isinstance(atom, (Ten, Traced)):
            return Value.of(atom, trace)
        if isinstance(atom, Tup):
            if isinstance(key, int) and -len(atom.items) <= key < len(atom.items):
                return carried_by(atom.items[key], trace)
            return carried_by(join_all(atom.items), trace)
        if isinstance(atom, Box):
            return self.box_content(atom, key)
        if isinstance(atom, Sym):
            if key is None:
                return self.project_sym(atom, trace, "elem")
            return self.project_sym(atom, trace, ("item", key)).join(
                self.param_items.get((atom, key), EMPTY))
        if isinstance(atom, Inst):
            return self.call_method(atom, "__getitem__", (Value.of(UNKNOWN),), {}, node,
                                    Value.of(atom, trace))
        if isinstance(atom, Cls) and self.program.is_enum(atom.cls):
            # `Mode[name]`: the member of that name (of each name the key may be)
            names = sorted(key) if isinstance(key, Keys) else [key]
            if all(isinstance(name, str) for name in names):
                program = self.program
                return join_all(program.class_attribute(atom, name, self)  # type: ignore[arg-type]
                                for name in names)
            return Value.of(UNKNOWN)
        return EMPTY

    def expr_Tuple(self, node: cst.Tuple, state: State) -> Value:
        if any(type(e) is cst.StarredElement for e in node.elements):
            keyed = self.unpacked_elements(node.elements, state)
            if any(key is None for key, _ in keyed):
                return self.filled_box("list", node, keyed)
            items = tuple(value for _, value in keyed)  # `(*BACKENDS, "export")`
        else:
            items = tuple(self.eval(e.value, state) for e in node.elements)
        if tuple_depth(items) > MAX_TUPLE_DEPTH:
            return Value.of(UNKNOWN)
        return Value.of(Tup(items), TUPLE_MADE)

    def expr_List(self, node: cst.List, state: State) -> Value:
        return self.filled_box("list", node, self.unpacked_elements(node.elements, state))

    def expr_Set(self, node: cst.Set, state: State) -> Value:
        return self.filled_box("set", node, self.unpacked_elements(node.elements, state))

    def unpacked_elements(self, elements: Sequence[cst.BaseElement], state: State
                          ) -> list[tuple[object, Value]]:
        """The values of a display's elements under their indices, a starred element's
        items each at its own when the items are known (`[*BACKENDS, "export"]`); from a
        starred element of unknown length on, under no index."""
        keyed: list[tuple[object, Value]] = []
        index: int | None = 0
        for element in elements:
            value = self.eval(element.value, state)
            if not isinstance(element, cst.StarredElement):
                keyed.append((index, value))
                index = None if index is None else index + 1
                continue
            known = self.known_items(value) if index is not None else None
            if known is None:
                keyed.append((None, self.elements(value)))
                index = None
                continue
            keyed += ((index + offset, item) for offset, item in enumerate(known))
            index += len(known)
        return keyed

    def filled_box(self, kind: str, node: cst.CSTNode, keyed: Sequence[tuple[object, Value]]
                   ) -> Value:
        """A container made at ``node`` holding each value under its constant key or index
        (None: under none, as a starred item; the container then has no known length)."""
        box = self.new_box(kind, node)
        content = unkeyed = EMPTY
        self.note_length(box, None if any(key is None for key, _ in keyed) else len(keyed))
        for key, value in keyed:
            if key is None:
                self.program.grow(box)
                unkeyed = unkeyed.join(value)
            elif self.write_item(box, key, value):
                self.keep_effect(Value.of(box), ("item", key), value)
            else:
                unkeyed = unkeyed.join(value)
            content = content.join(value)
        self.write_content(box, content, unkeyed)
        self.keep_effect(Value.of(box), "elem", content)
        if kind == "dict":  # in what order is not said (several makers may share the site)
            self.program.note_key_order(box.site, None)
        return Value.of(box)

    def write_content(self, box: Box, content: Value, unkeyed: Value) -> None:
        """The container ``box`` is made holding ``content``, ``unkeyed`` of it under no
        constant key (the rest is in its keys' precise slots)."""
        self.program.write(("b", box.site), self.box_part(box, content), keyed=True)
        self.program.write(("b", box.site), self.box_part(box, unkeyed))

    def expr_Dict(self, node: cst.Dict, state: State) -> Value:
        # each entry as written: a constant key (else None) and its value, or None and the
        # dict a `**` unpacks
        parts: list[tuple[str | None, Value, bool]] = []
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self.eval(element.key, state)
                value = self.eval(element.value, state)
                key = element.key.evaluated_value if isinstance(
                    element.key, cst.SimpleString) else None
                parts.append((key if isinstance(key, str) else None, value, False))
            else:
                parts.append((None, self.eval(element.value, state), True))
        if any(starred for _, _, starred in parts):
            merged = self.merged_entries(parts)
            if merged is not None:  # `{**DEFAULTS, **profile}`: a later key replaces
                made = self.filled_box("dict", node, list(merged.items()))
                site = next(iter(made)).site  # type: ignore[attr-defined]
                self.program.literal_keys.setdefault(site, set()).update(merged)
                self.program.note_key_order(site, tuple(merged))
                return made
        box = self.new_box("dict", node)
        content = unkeyed = EMPTY
        order: list[str] | None = []
        for key, value, starred in parts:
            if starred:
                value = self.contents(value)
                self.program.grow(box)
                unkeyed = unkeyed.join(value)
                order = None
            elif key is not None and self.write_literal_item(box, key, value):
                if order is not None:
                    order.append(key)
            else:
                self.program.grow(box)
                unkeyed = unkeyed.join(value)
                order = None
            content = content.join(value)
        self.write_content(box, content, unkeyed)
        if order:  # iterating it gives its keys in the order they were first written
            self.program.note_key_order(box.site, tuple(dict.fromkeys(order)))
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def merged_entries(self, parts: Sequence[tuple[str | None, Value, bool]]
                       ) -> dict[str, Value] | None:
        """The entries of a dict display that unpacks dicts of known keys (``{**a, "k": v,
        **b}``), a later key replacing an earlier one, in the order iterating it gives;
        None when a key, or what a ``**`` unpacks, is not known."""
        merged: dict[str, Value] = {}
        for key, value, starred in parts:
            if not starred:
                if key is None:
                    return None
                merged[key] = value
                continue
            if len(value) != 1 or not self.keys_known(value):
                return None
            source: Box = next(iter(value))  # type: ignore[assignment]
            if source.kind != "dict":
                return None
            keys = self.program.key_order(source) or self.program.known_keys(source)
            for name in keys or ():  # `**{}`: none
                held = self.box_content(source, name)
                if held:  # a key another path wrote is not there on this one
                    merged[name] = held
        return merged

    def write_literal_item(self, box: Box, key: str, value: Value) -> bool:
        """The dict ``box`` is made holding ``value`` under ``key`` (a literal's entry): it
        certainly holds the key. False when the key has no precise slot (see write_item)."""
        if not self.write_item(box, key, value):
            return False
        self.keep_effect(Value.of(box), ("item", key), value)
        self.program.literal_keys.setdefault(box.site, set()).add(key)
        return True

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
        unrolled = self.unrolled_comprehension(node, state)
        if unrolled is not None:
            return unrolled
        return self.box_of("list", node, self.comprehension_value(node, node.elt, state))

    def unrolled_comprehension(self, node: cst.ListComp | cst.GeneratorExp, state: State,
                               kind: str = "list") -> Value | None:
        """``[f(x) for x in xs if p(x)]`` over a tuple or list of known length, where each
        test is decided for each item: a list whose item ``i`` is made from the ``i``-th
        item kept (``preds[0] + preds[1]`` of two models' predictions compares the two, not
        their join); None for other forms (nested loops, ``async for``). A generator
        expression over such items (``a, b = (f(x) for x in xs)``) gives them the same way,
        else it is a generator (``kind``) holding what its element may be."""
        for_in = node.for_in
        if for_in.asynchronous is not None:
            return None
        if for_in.inner_for_in is not None:
            return self.unrolled_nested_comprehension(node, state)
        iterable = self.eval(for_in.iter, state)
        kept = self.unrolled_states(for_in, iterable, state)
        # items known in an order that is not (`[d[n] for n in sorted(d, key=...)]`): each
        # runs, and the list holds their results in such an order too
        permuted = self.permuted_items(iterable) if kept is None and not for_in.ifs else None
        if permuted is not None:
            kept = self.unrolled_states(for_in, Value.of(Tup(permuted)), state)
        if kept is None:
            # evaluated once: the general form binds the elements of this value
            inner = state.copy()
            self.assign(for_in.target, self.elements(iterable), inner, for_in.target)
            for cond in for_in.ifs:
                narrowed, _ = self.condition(cond.test, inner)
                inner = narrowed if narrowed is not None else inner
            with self.may_not_run():  # it may loop over nothing
                value = self.eval(node.elt, inner)
            made = self.box_of(kind, node, value)
            if not for_in.ifs and kind == "list":
                self.note_range_length(next(iter(made)), for_in.iter, state)
            return made
        made = []
        for index, inner in enumerate(kept):  # each item runs
            with self.in_item(index):
                made.append(self.eval(node.elt, inner))
        return self.list_of(node, made) if permuted is None else self.permuted_list(node, made)

    def unrolled_nested_comprehension(self, node: cst.ListComp, state: State) -> Value | None:
        """``[t for ts in groups for t in ts]`` where every loop goes over known items (for
        each item of the loops around it) and every test is decided, at most
        :data:`MAX_UNROLLED` items in all: a list of them in order, each made in its own
        item; None otherwise (the general form then joins them)."""
        states = [state]
        level: cst.CompFor | None = node.for_in
        while level is not None:
            if level.asynchronous is not None:
                return None
            deeper: list[State] = []
            for outer in states:
                kept = self.unrolled_states(level, self.eval(level.iter, outer), outer)
                if kept is None or len(deeper) + len(kept) > MAX_UNROLLED:
                    return None
                deeper.extend(kept)
            states, level = deeper, level.inner_for_in
        made = []
        for index, inner in enumerate(states):
            with self.in_item(index):
                made.append(self.eval(node.elt, inner))
        return self.list_of(node, made)

    def unrolled_states(self, for_in: cst.CompFor, iterable: Value, state: State
                        ) -> list[State] | None:
        """The state each item of ``iterable`` (a tuple or list of known length) that the
        comprehension keeps is evaluated in, in order; None when the items are not known or a
        test is not decided for one."""
        items = self.known_items(iterable)
        if items is None:
            return None
        kept: list[State] = []
        for item in items:
            inner: State | None = state.copy()
            self.assign(for_in.target, item, inner, for_in.target)
            for cond in for_in.ifs:
                true_state, false_state = self.condition(cond.test, inner)  # type: ignore[arg-type]
                if true_state is not None and false_state is not None:
                    return None  # not decided for this item: the length is not known
                inner = true_state
                if inner is None:
                    break
            if inner is not None:
                kept.append(inner)
        return kept

    def range_items(self, iterable: cst.BaseExpression, state: State) -> tuple[Value, ...] | None:
        """The numbers of ``range(...)`` over integer literals (``range(3)``, ``range(1, 4)``)
        when there are at most :data:`MAX_UNROLLED` of them and at least one, else None: a loop
        over them is unrolled as one over a known tuple is (``if step == 0:`` then tells the
        first round from the others, and a branch no round takes is never run)."""
        if not (isinstance(iterable, cst.Call) and 1 <= len(iterable.args) <= 3
                and all(a.keyword is None and not a.star for a in iterable.args)):
            return None
        bounds = [integer_literal(a.value) for a in iterable.args]
        if None in bounds or (len(bounds) == 3 and bounds[2] == 0):
            return None
        numbers = range(*bounds)  # type: ignore[arg-type]
        if not 0 < len(numbers) <= MAX_UNROLLED:
            return None
        func = self.eval_quiet(iterable.func, state)
        if len(func) != 1 or next(iter(func)) != Ref("builtins.range"):
            return None
        return tuple(Value.of(Const(n)) for n in numbers)

    def note_range_length(self, box: Box, iterable: cst.BaseExpression, state: State) -> None:
        """``[f(i) for i in range(n)]`` holds ``n`` items on this path, also when ``n`` is a
        parameter: the caller's literal then says how many its copy holds (a layer stack a
        helper builds for ``n`` layers), see :meth:`path_length` and CallModel.apply."""
        if self.path is None or not (isinstance(iterable, cst.Call) and len(iterable.args) == 1
                                     and iterable.args[0].keyword is None
                                     and not iterable.args[0].star):
            return
        func = self.eval_quiet(iterable.func, state)
        if len(func) != 1 or next(iter(func)) != Ref("builtins.range"):
            return
        arg = iterable.args[0].value
        literal = integer_literal(arg)
        count = Value.of(Const(literal)) if literal is not None else self.eval_quiet(arg, state)
        atom = next(iter(count)) if len(count) == 1 else None
        if isinstance(atom, Sym) and atom.owner == self.owner and not atom.proj or isinstance(
                atom, Const) and type(atom.value) is int and atom.value >= 0:
            self.path.view[("len", box)] = (count, True)

    def iterated_items(self, value: Value) -> tuple[Value, ...] | None:
        """What iterating ``value`` gives, item by item in order, when that is known: a tuple
        or a list of known length (:meth:`known_items`), or a dict whose keys and their
        order are (its keys: ``zip(batches, losses)``); else None."""
        items = self.known_items(value)
        if items is not None:
            return items
        keys = self.dict_keys_in_order(value)
        return tuple(keys) if keys is not None and len(keys) <= MAX_UNROLLED else None

    def dict_keys_in_order(self, value: Value) -> list[Value] | None:
        """``list(d)`` of one dict whose keys and their order are known (see
        :meth:`Program.key_order`): each key in the order iterating it gives."""
        if len(value) != 1 or not isinstance(box := next(iter(value)), Box) or box.kind != "dict":
            return None
        order = self.program.key_order(box)
        return None if order is None else [Value.of(Str(k)) for k in order]

    def update_pairs(self, value: Value) -> list[tuple[str, Value]] | None:
        """The ``(key, value)`` pairs ``d.update(value)`` (or ``dict(value)``) takes from an
        iterable of pairs whose items and keys are all known (``zip(names, outputs)``, a list
        of tuples, ``other.items()``), in order; else None (which keys it sets is not known:
        it only adds)."""
        pairs = self.known_items(value)
        if pairs is None:
            return None
        out = []
        for pair in pairs:
            held = next(iter(pair)) if len(pair) == 1 else None
            if not (isinstance(held, Tup) and len(held.items) == 2):
                return None
            key = self.constant_key(held.items[0])
            if not isinstance(key, str):
                return None
            out.append((key, held.items[1]))
        return out

    def known_items(self, value: Value) -> tuple[Value, ...] | None:
        """The items of ``value`` in order when it is one tuple, or one list of known length,
        of at most :data:`MAX_UNROLLED` items."""
        if len(value) != 1:
            return None
        atom = next(iter(value))
        if isinstance(atom, Sym) and atom.owner == self.owner and not atom.proj:
            # the caller's tuple or list of names (see CallModel._context)
            passed = self.param_context.get(atom.param)
            if passed is None or len(passed) != 1 or not isinstance(next(iter(passed)), Tup):
                return None
            atom = next(iter(passed))
        if isinstance(atom, Tup):
            items = atom.items
        elif isinstance(atom, Box):
            # this path's own count first: appended to since its literal, it still knows it
            length = self.path_length(atom)
            if length is None:
                length = self.program.known_length(atom)
            if length is None or length > MAX_UNROLLED:
                return None
            items = tuple(self.box_content(atom, i) for i in range(length))
        else:
            return None
        return items if len(items) <= MAX_UNROLLED else None

    def permuted_items(self, value: Value) -> tuple[Value, ...] | None:
        """The items of ``value`` when it is one list whose items are known but not their
        order (see ``FunctionRun.permuted``), else None."""
        if len(value) != 1:
            return None
        return self.permuted.get(next(iter(value)))  # type: ignore[call-overload]

    def permuted_list(self, node: cst.CSTNode, items: Sequence[Value]) -> Value:
        """A list made at ``node`` holding ``items`` in an order that is not known: what
        ``functools.reduce`` then folds item by item."""
        made = self.box_of("list", node, join_all(items))
        self.permuted[next(iter(made))] = tuple(items)  # type: ignore[index]
        return made

    def expr_SetComp(self, node: cst.SetComp, state: State) -> Value:
        return self.box_of("set", node, self.comprehension_value(node, node.elt, state))

    def expr_GeneratorExp(self, node: cst.GeneratorExp, state: State) -> Value:
        unrolled = self.unrolled_comprehension(node, state, kind="gen")
        if unrolled is not None:
            return unrolled
        return self.box_of("gen", node, self.comprehension_value(node, node.elt, state))

    def expr_DictComp(self, node: cst.DictComp, state: State) -> Value:
        unrolled = self.unrolled_dict_comprehension(node, state)
        if unrolled is not None:
            return unrolled
        inner = self.comprehension(node, node.for_in, state)
        with self.may_not_run():  # it may loop over nothing
            self.eval(node.key, inner)
            value = self.eval(node.value, inner)
        return self.box_of("dict", node, value)

    def unrolled_dict_comprehension(self, node: cst.DictComp, state: State) -> Value | None:
        """``{name: f(x) for name, x in pairs}`` over a few known items whose keys are known
        strings: a dict holding each item's value under its key, each made in its item (a
        capture device made there is one per item, as in a loop); None for other forms."""
        for_in = node.for_in
        if for_in.inner_for_in is not None or for_in.asynchronous is not None:
            return None
        kept = self.unrolled_states(for_in, self.eval(for_in.iter, state), state)
        if kept is None:
            return None
        keys = []
        for inner in kept:
            key = self.constants(self.eval(node.key, inner))
            if len(key) != 1 or not isinstance(next(iter(key)), Str):
                return None
            keys.append(next(iter(key)).text)
        if len(set(keys)) != len(keys):
            return None
        box = self.new_box("dict", node)
        content = unkeyed = EMPTY
        for index, (key, inner) in enumerate(zip(keys, kept)):
            with self.in_item(index):
                value = self.eval(node.value, inner)
            if not self.write_literal_item(box, key, value):
                unkeyed = unkeyed.join(value)
            content = content.join(value)
        self.write_content(box, content, unkeyed)
        self.program.note_key_order(box.site, tuple(keys))  # made in the items' order
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def comprehension_value(self, node: cst.CSTNode, elt: cst.BaseExpression, state: State
                            ) -> Value:
        """What the comprehension ``node`` holds: its element over its loops."""
        inner = self.comprehension(node, node.for_in, state)  # type: ignore[attr-defined]
        with self.may_not_run():  # it may loop over nothing
            value = self.eval(elt, inner)
        return value

    def dict_of(self, node: cst.CSTNode, items: dict[str, Value]) -> Value:
        """A dict made at ``node`` holding ``items`` under their names (``**kwargs``)."""
        box = self.new_box("dict", node)
        for name, value in items.items():
            self.store_item(Value.of(box), name, value)
        return Value.of(box)

    def keyword_names(self, value: Value) -> set[str]:
        """The string keys a mapping passed as ``**value`` is known to hold."""
        return {k for a in value if isinstance(a, Box) and a.kind == "dict"
                for k in self.program.box_keys(a) if isinstance(k, str)}

    def keys_known(self, value: Value) -> bool:
        """Whether every key the mapping ``value`` may hold is known (see keyword_names):
        dicts and namespaces made with constant keys and grown under none since."""
        return bool(value) and all(
            isinstance(a, Box) and a.kind in ("dict", "ns") and not self.program.read(
                ("grown", a.site)) and all(isinstance(k, str) for k in self.program.box_keys(a))
            for a in value)

    def keyword_items(self, value: Value) -> dict[str, Value]:
        """The keyword arguments ``f(**value)`` passes, as far as the keys are known."""
        return {name: self.item(value, name) for name in sorted(self.keyword_names(value))}

    def packed_parameter(self, param: ParamInfo, symbol: Value, shape: object) -> Value:
        """``*args`` (``shape``: how many positions) or ``**kwargs`` (``shape``: the names) as
        a summary sees it in a calling context: each packed argument a parameter of its own."""
        sym = next(iter(symbol))
        trace = symbol.trace(sym)
        if isinstance(shape, int):
            return Value.of(Tup(tuple(self.project_sym(sym, trace, ("item", i))
                                      for i in range(shape))))
        box = self.new_box("dict", param.node)
        for name in shape:  # type: ignore[attr-defined]
            self.store_item(Value.of(box), name, self.project_sym(sym, trace, ("item", name)))
            # the caller passed it: the dict holds it (`kwargs.setdefault(name, d)` keeps it)
            self.program.literal_keys.setdefault(box.site, set()).add(name)
        return Value.of(box)

    def box_of(self, kind: str, node: cst.CSTNode, content: Value) -> Value:
        box = self.new_box(kind, node)
        if kind == "dict":
            self.program.grow(box)  # a comprehension's or a copy's keys are not known
        self.program.write(("b", box.site), self.box_part(box, content))
        self.keep_effect(Value.of(box), "elem", content)
        return Value.of(box)

    def added_by(self, name: str, args: tuple[Value, ...], node: cst.Call) -> Value:
        """What ``container.<name>(*args)`` puts into the container."""
        if name == "update":
            added = self.contents(args[0]) if args else EMPTY
        elif name == "extend":
            added = self.elements(args[0]) if args else EMPTY
        else:
            added = args[-1] if args else EMPTY
        return added.map_traces(self.step(node, "added to a container: `{code}`"))

    def box_method_on_param(self, atom: Sym, trace: Trace | None, name: str,
                            args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.Call
                            ) -> Value:
        """A container method called on a parameter: its writes are replayed at each call
        (under the key, when it is a constant), its reads are the parameter's items."""
        key = self.constant_key(args[0]) if args and name == "setdefault" else None
        added = self.added_by(name, args, node).join(join_all(kwargs.values()))
        self.keep_effect(Value.of(atom, trace), "elem", added)
        if key is not None:
            self.keep_effect(Value.of(atom, trace), ("item", key), added)
        if name == "setdefault":
            return self.project_sym(atom, trace, ("item", key) if key is not None else "elem"
                                    ).join(added)
        return Value.of(UNKNOWN)

    def forget_item_aliases(self, box: Box) -> None:
        """Items were removed from ``box``: a name holding it no longer iterates over every
        item of the names it was built from (see ``item_aliases``)."""
        for name, (_, held) in list(self.item_aliases.items()):
            if any(n == name and box in set(value) for n, value in held):
                del self.item_aliases[name]

    def box_method(self, box: Box, name: str, args: tuple[Value, ...],
                   kwargs: dict[str, Value], node: cst.Call) -> Value:
        """A method of a container the analysis made: what it stores and what it gives."""
        if name in _REMOVERS:
            self.forget_item_aliases(box)
        if box.kind == "parser":
            return self.parser_method(box, name, args, kwargs, node)
        if box.kind in ("executor", "future"):
            return self.executor_method(box, name, args, kwargs, node)
        target = Value.of(box)
        key = self.constant_key(args[0]) if args else None
        step = self.step(node, "added to a container: `{code}`")
        if name == "setdefault" and args and isinstance(key, str) and \
                self.program.holds_key(box, key):
            return self.box_content(box, key)  # it holds the key: the default is not stored
        if name == "setdefault" and args:
            default = args[1] if len(args) > 1 else Value.of(Const(None))
            # the key may be there already: what it held stays (a path's write is strong)
            held = EMPTY if key is None else self.slot_value(
                ("bk", box, key), self.program.read(("bk", box.site, key)), record=False) or EMPTY
            if held:  # the list it gives may be the one held, not the new default
                for atom in default:
                    if isinstance(atom, Box):
                        self.note_length(atom, None)
            self.store_item(target, key, held.join(default.map_traces(step)))
            return self.box_content(box, key)
        if name == "update":
            for arg in args:
                items = self.keyword_items(arg)
                pairs = None if items else self.update_pairs(arg)
                if pairs is not None:  # each pair replaces what its key held, in order
                    for item_key, value in pairs:
                        self.store_item(target, item_key, value.map_traces(step))
                    continue
                for item_key, value in items.items():
                    self.store_item(target, item_key, value.map_traces(step))
                if not items:
                    added = self.added_by(name, (arg,), node)
                    self.store_item(target, None, added)
                    # keys it does not name may be any the dict holds: each may now hold
                    # what it added (`cfg = dict(DEFAULTS); cfg.update(overrides)`)
                    for held in sorted(self.program.keys_at.get(box.site, ()), key=repr):
                        if isinstance(held, str):
                            self.store_item(target, held, self.box_content(box, held).join(
                                self.get_item(arg, held, node).map_traces(step)))
            for item_key, value in kwargs.items():
                self.store_item(target, item_key, value.map_traces(step))
            return Value.of(Const(None))
        if name in CONTAINER_MUTATORS or name in LIST_MOVERS:
            self.forget_ends(box)
        if name in ("insert", "pop") and box.kind == "list":
            moved = self.moved_in_place(box, name, args, node)
            if moved is not None:
                return moved
        if name in CONTAINER_MUTATORS:
            if name in ("insert", "appendleft"):
                self.program.shift_indices(box)
            length = self.path_length(box) if name in ("append", "extend") else None
            added = self.added_by(name, args, node)
            self.store_item(target, None, added)
            self.note_length(box, None)
            if length is not None:
                self.append_items(box, length, name, args, node, added)
            return Value.of(Const(None))
        if name in _REORDERING or name in ("pop", "popleft", "clear"):
            self.note_length(box, None)
        if name in _REORDERING:
            self.program.shift_indices(box)
            return Value.of(UNKNOWN)
        if name in ("clear", "popitem") or (name == "pop" and box.kind == "dict"):
            self.program.forget_shape(box)
        if name == "get" or (name == "pop" and box.kind == "dict"):
            default = args[1] if len(args) > 1 else (
                Value.of(Const(None)) if name == "get" else EMPTY)
            known = self.program.known_keys(box) if isinstance(key, str) else None
            if known is not None and key not in known:
                return default or Value.of(UNKNOWN)  # a key it never holds: the default
            if name == "get" and isinstance(key, str) and self.program.holds_key(box, key):
                return self.box_content(box, key) or Value.of(UNKNOWN)  # never the default
            return self.box_content(box, key).join(default) or Value.of(UNKNOWN)
        if name in ("pop", "popleft"):
            if args or name == "popleft":
                self.program.shift_indices(box)
            return self.box_content(box, None) or Value.of(UNKNOWN)
        if name == "items":
            pairs = self.known_pairs(box)
            if pairs is not None:
                return self.list_of(node, pairs)
            content = self.box_content(box, None)
            return self.box_of("list", node, Value.of(Tup((Value.of(UNKNOWN), content))))
        if name == "values" and box.kind == "dict":  # a view of what it holds
            pairs = self.known_pairs(box)
            if pairs is not None:  # in the order of its keys, each key's own
                return self.list_of(node, [next(iter(pair)).items[1] for pair in pairs])
            return self.box_of("list", node, self.box_content(box, None) or Value.of(UNKNOWN))
        if name == "keys" and box.kind == "dict":  # a view of its keys
            keys = self.dict_keys_in_order(target)
            return self.list_of(node, keys) if keys is not None else target
        if name in ("values", "copy"):
            return target
        if name == "send" and box.kind == "gen" and args and box in self.generators:
            info, closure = self.generators[box]
            made = self.program.apply(info, self, None, (), {}, node, closure, sent=args[0])
            return self.elements(made)  # the next value it yields
        return Value.of(UNKNOWN)

    def append_items(self, box: Box, length: int, name: str, args: tuple[Value, ...],
                     node: cst.CSTNode, added: Value) -> None:
        """``lst.append(x)``, ``lst.extend(items)`` (``lst += items``) on a list this path
        knows the length of: each item added has its index, when ``items`` has known items
        (a list made again at the same place, in a loop, may have held others there)."""
        if name == "append":
            items: Sequence[Value] | None = (added,)
        else:
            known = self.known_items(args[0]) if args else None
            step = self.step(node, "added to a container: `{code}`")
            items = None if known is None else [item.map_traces(step) for item in known]
        if items is None:
            return
        for index, item in enumerate(items, length):
            if not self.program.write_key(box.site, index, self.box_part(box, item)):
                return
            self.add_to_view(("bk", box, index), item)
        self.note_length(box, length + len(items))

    def moved_in_place(self, box: Box, name: str, args: tuple[Value, ...], node: cst.Call
                       ) -> Value | None:
        """``lst.insert(i, x)``, ``lst.pop()``, ``lst.pop(i)`` on a list whose length this
        path knows, at a constant index: its items move on this path (what each index
        holds after, the length one more or one less; the heap's slot for an index may
        hold what moved there too). What the call gives; None (nothing done) otherwise."""
        length = self.path_length(box)
        index = integer_literal(node.args[0].value) if args and node.args else (
            length - 1 if length else None)
        if length is None and index == 0 and name == "insert" and len(args) == 2 and \
                self.path is not None and box.site.owner == self.site_owner:
            # at the front of a list whose length is not known: item 0 is known on this
            # path, and from index 1 on it holds what it held before (`results[1:]`)
            before = self.box_content(box, None)
            added = self.added_by(name, args, node)
            self.store_item(Value.of(box), None, added)
            self.program.shift_indices(box)
            self.write_slot(("bk", box, 0), added)
            self.path.view[("moved tail", box, 1)] = (before, True)
            return Value.of(Const(None))
        if length is None or index is None:
            return None
        # what each index holds on this path: moved here before, else as it was written
        # (an index without a slot of its own holds what the list holds: a comprehension's)
        held = [self.moved_item(box, i) or self.slot_value(
            ("bk", box, i), self.program.read(("bk", box.site, i)), record=False)
            or self.box_content(box, None) for i in range(length)]
        if name == "insert" and len(args) == 2:
            index = min(max(index + length if index < 0 else index, 0), length)
            added = self.added_by(name, args, node)
            after = [*held[:index], added, *held[index:]]
            self.store_item(Value.of(box), None, added)
            result = Value.of(Const(None))
        elif name == "pop" and len(args) <= 1 and -length <= index < length:
            index = index + length if index < 0 else index
            after = [*held[:index], *held[index + 1:]]
            result = held[index] or Value.of(UNKNOWN)
        else:
            return None
        # elsewhere (another path, a callee) an index says nothing any more; here it does
        self.program.shift_indices(box)
        for i in range(index, len(after)):
            self.write_slot(("bk", box, i), after[i])
        self.note_length(box, len(after))
        return result

    def moved_item(self, box: Box, index: int) -> Value | None:
        """What index ``index`` of this run's list ``box`` holds on this path after its items
        moved (see :meth:`moved_in_place`), else None."""
        if self.path is None or not self.path.view:
            return None
        written = self.path.view.get(("bk", box, index))
        return written[0] if written is not None and written[1] else None

    def path_length(self, box: Box) -> int | None:
        """How many items the list ``box``, made by this run, holds on this path, when every
        way here made it with a known length and only appended to it since (an unrolled loop
        of ``append`` calls); else None."""
        if self.path is None or box.kind != "list" or box.site.owner != self.site_owner or \
                self.program.read(("grown_elsewhere", box.site)):
            return None
        known = self.path.view.get(("len", box))
        if known is None or not known[1] or len(known[0]) != 1:
            return None
        atom = next(iter(known[0]))
        return atom.value if isinstance(atom, Const) and isinstance(atom.value, int) else None

    def note_length(self, box: Box, length: int | None) -> None:
        """Keep (None: forget) how many items this run's own list ``box`` holds on this path
        (see :meth:`path_length`)."""
        if self.path is None or box.kind != "list" or box.site.owner != self.site_owner:
            return
        if length is None:
            self.path.view.pop(("len", box), None)
        else:
            self.path.view[("len", box)] = (Value.of(Const(length)), True)

    def known_pairs(self, box: Box) -> list[Value] | None:
        """``(key, value)`` for each key the dict ``box`` holds on this path, when its keys
        are known (see :meth:`Program.known_keys`) and few."""
        # in the order iterating the dict gives, when known (its literal's); else sorted
        keys = self.program.key_order(box) or self.program.known_keys(box)
        if keys is None or len(keys) > MAX_UNROLLED:
            return None
        pairs = []
        for key in keys:
            held = self.box_content(box, key)
            if held:  # a key another path wrote is not there on this one
                pairs.append(Value.of(Tup((Value.of(Str(key)), held))))
        return pairs

    def list_of(self, node: cst.CSTNode, items: Sequence[Value]) -> Value:
        """A list made at ``node`` holding ``items`` in order (its length known)."""
        return self.filled_box("list", node, list(enumerate(items)))

    def fields_dict(self, obj: Value, node: cst.CSTNode) -> Value:
        """``vars(obj)`` of one instance (or namespace, ``argparse.Namespace(...)``): a dict
        of its fields under their names."""
        if len(obj) == 1 and isinstance(ns := next(iter(obj)), Box) and ns.kind == "ns":
            if not self.keys_known(obj):
                return Value.of(UNKNOWN)
            names = sorted(self.program.box_keys(ns))  # type: ignore[type-var]
            return self.filled_box("dict", node, [(name, self.box_content(ns, name))
                                                  for name in names])
        if len(obj) != 1 or not isinstance(next(iter(obj)), Inst):
            return Value.of(UNKNOWN)
        inst = next(iter(obj))
        return self.filled_box("dict", node, [(name, self.attribute(obj, name, node))
                                              for name in self.program.instance_fields(inst)])

    def constant_key(self, value: Value) -> object:
        """The key ``value`` certainly is (one string), or the few it may be (:class:`Keys`),
        else None."""
        value = self.constants(value)
        if value and all(isinstance(a, Str) for a in value):
            if len(value) == 1:
                return next(iter(value)).text  # type: ignore[attr-defined]
            if len(value) <= MAX_KEYS:
                return Keys(a.text for a in value)  # type: ignore[attr-defined]
        return None

    def iterate(self, inst: Inst, trace: Trace | None) -> Value:
        """``for x in obj`` (or ``async for``): what the object's iterator gives (a
        generator's yields, the elements of what ``__iter__`` returns, or what ``__next__``
        returns when the object is its own iterator)."""
        name = _iterator_method(self.program, inst)
        if name is None or self.anchor is None:
            return Value.of(UNKNOWN)
        iterator = self.call_method(inst, name, (), {}, self.anchor, Value.of(inst, trace))
        out = EMPTY
        for atom, atom_trace in iterator.items():
            if isinstance(atom, Inst):
                out = out.join(self.call_method(atom, "__next__", (), {}, self.anchor,
                                                Value.of(atom, atom_trace)))
            else:
                out = out.join(self.elements(Value.of(atom, atom_trace)))
        return out or Value.of(UNKNOWN)

    def elements(self, value: Value) -> Value:
        """What iterating over ``value`` gives (a ``for`` loop, ``list(value)``, ``*value``,
        ``zip``, ``sorted``, unpacking): a dict gives its keys, never the values it holds
        (those are :meth:`contents`)."""
        return join_all(self.elements_of(atom, trace) for atom, trace in value.items()
                        ) or Value.of(UNKNOWN)

    def elements_of(self, atom: object, trace: Trace | None) -> Value:
        if isinstance(atom, Box) and atom.kind == "dict":
            keys = self.program.known_keys(atom) or ()
            return join_all(Value.of(Str(k)) for k in keys) or Value.of(UNKNOWN)
        if isinstance(atom, Sym):
            # a parameter holding an object of the checked tree: iterate that
            objects = self.objects_of(atom, self.anchor) if self.anchor else EMPTY
            return self.elements(objects) if objects else self.project_sym(atom, trace, "iter")
        if isinstance(atom, Inst):
            return self.iterate(atom, trace)
        return self.contents_of(atom, trace)

    def real_items(self, value: Value, node: cst.CSTNode) -> Value:
        """``value`` as a container none of whose items is a capture tensor (a guard on each
        item proved it): a list is copied at ``node`` with only its real items."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Box) and atom.kind in ("list", "set", "gen"):
                held = narrow_not_capture(self.contents_of(atom, trace))
                out = out.join(self.box_of(atom.kind, node, held))
            elif isinstance(atom, Tup):
                out = out.join(Value.of(Tup(tuple(narrow_not_capture(item)
                                                  for item in atom.items)), trace))
            else:
                out = out.join(narrow_not_capture(Value.of(atom, trace)))
        return out

    def real_values(self, value: Value, node: cst.CSTNode) -> Value:
        """``value`` as a dict none of whose values is a capture tensor (a guard on each of
        ``d.values()`` proved it): a dict is copied at ``node`` with only its real values,
        under the keys it is known to hold."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Box) and atom.kind == "dict":
                keys = self.program.known_keys(atom)
                if keys is None:
                    out = out.join(self.box_of("dict", node, narrow_not_capture(
                        self.contents_of(atom, trace))))
                else:
                    out = out.join(self.filled_box("dict", node, [
                        (key, narrow_not_capture(self.box_content(atom, key))) for key in keys]))
            else:
                out = out.join(narrow_not_capture(Value.of(atom, trace)))
        return out

    def contents(self, value: Value) -> Value:
        """What ``value`` holds as a container, whatever the key: a dict's values, a list's
        items (``d[k]`` for an unknown ``k``, ``{**d}``, ``update(d)``). Each container
        read counts as a step of work: a may-set of many dicts read again in a loop is what
        makes a run long (transformers' import-structure helpers)."""
        self.work += len(value)
        return join_all(self.contents_of(atom, trace) for atom, trace in value.items()
                        ) or Value.of(UNKNOWN)

    def contents_of(self, atom: object, trace: Trace | None) -> Value:
        if isinstance(atom, (Ten, Traced)):
            return Value.of(atom, trace)
        if isinstance(atom, Tup):
            return join_all(atom.items)
        if isinstance(atom, Box):
            return self.box_content(atom, None)
        if isinstance(atom, Sym):
            objects = self.objects_of(atom, self.anchor) if self.anchor else EMPTY
            return self.elements(objects) if objects else self.project_sym(atom, trace, "elem")
        if isinstance(atom, Inst):
            return self.iterate(atom, trace)
        return Value.of(UNKNOWN)


def _iterator_method(program: object, inst: Inst) -> str | None:
    for name in ("__iter__", "__aiter__"):
        if program.find_method(inst.cls, name) is not None:  # type: ignore[attr-defined]
            return name
    return None


def tuple_depth(items: tuple[Value, ...]) -> int:
    depth = 1
    for value in items:
        for atom in value:
            if isinstance(atom, Tup):
                depth = max(depth, 1 + tuple_depth(atom.items))
    return depth


