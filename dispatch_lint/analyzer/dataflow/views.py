"""How the order of effects is followed: what a call writes to a global, a field or a
``nonlocal`` variable is seen after the call, on the path that made it, and not before.

The heap holds what every function may see when it starts: what module top levels, class
bodies and constructors (``__init__``, ``__post_init__``) store. Any other function's writes
to a heap slot are kept on its path instead, in the state's view (:class:`~.state.State`):

- later reads on the path see them (a ``global``, ``self.device``, a ``nonlocal`` counter);
- the function's summary hands the view it ends with back to each caller
  (:attr:`Summary.view_out`), which keeps it on its own path (a module top level and a
  constructor write it to the heap: that is where the program starts from);
- the part of the caller's view that a callee reads (:attr:`Summary.reads`) is part of the
  callee's calling context, so that ``batch()`` after ``use_export()`` sees the capture device
  and ``batch()`` before it does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dispatch_lint.analyzer.dataflow.state import Slot, State, join_views
from dispatch_lint.analyzer.values import Cls, Ref, Value

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.program import Program

#: A callee's view of slots as its caller passes it: (slot, value, written on every path).
ViewContext = frozenset[tuple[Slot, Value, bool]]

#: Methods whose writes make an instance what it is when it is first seen.
CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "__init_subclass__",
                          "__set_name__"})


class Views:
    """The interpreter's half: reading and writing heap slots along the path."""

    program: Program
    path: State | None
    is_module: bool
    #: a module top level outside its `if __name__ == "__main__":` block: what it leaves
    #: behind is where every function starts from
    import_time: bool
    writes_initial: bool
    entry_view: dict[Slot, tuple[Value, bool]]
    slot_reads: set[Slot]
    exit_view: dict[Slot, tuple[Value, bool]] | None
    self_value: Value | None

    def slot_value(self, slot: Slot, start: Value | None, state: State | None = None,
                   record: bool = True) -> Value | None:
        """What ``slot`` holds here: what this path wrote, else what it held when the
        function started (the caller's view, else ``start``: the heap's value)."""
        if record and not self.is_module:
            self.slot_reads.add(slot)
        state = state if state is not None else self.path
        entry = start
        passed = self.entry_view.get(slot) if self.entry_view else None
        if passed is not None:
            entry = passed[0] if passed[1] or start is None else passed[0].join(start)
        if state is not None and state.view:
            written = state.view.get(slot)
            if written is not None:
                value, must = written
                return value if must or entry is None else value.join(entry)
        return entry

    def write_slot(self, slot: Slot, value: Value, state: State | None = None) -> None:
        """This path wrote ``value`` to ``slot`` (a function's write, seen after it)."""
        state = state if state is not None else self.path
        if state is not None:
            state.view[slot] = (value, True)

    def add_to_view(self, slot: Slot, value: Value, state: State | None = None) -> None:
        """This path added ``value`` to a container's content (what it held stays)."""
        state = state if state is not None else self.path
        if state is not None:
            old = state.view.get(slot)
            state.view[slot] = (value, False) if old is None else (old[0].join(value), old[1])

    def view_for(self, reads: frozenset[Slot]) -> ViewContext:
        """What this path knows of the slots a callee reads, as the callee's context."""
        state = self.path
        written = state.view if state is not None else {}
        if not written and not self.entry_view or not reads:
            return frozenset()
        out = []
        known = set(written) | set(self.entry_view or ())
        for slot in known & reads if len(known) < len(reads) else reads & known:
            mine = written.get(slot)
            passed = self.entry_view.get(slot) if self.entry_view else None
            if mine is not None:
                if not mine[1] and passed is not None:
                    mine = (mine[0].join(passed[0]), passed[1])
                out.append((slot, mine[0], mine[1]))
            elif passed is not None:
                out.append((slot, passed[0], passed[1]))
        return frozenset(out)

    def replay_view(self, slot: Slot, value: Value, must: bool, initial: bool) -> None:
        """A callee wrote ``value`` to ``slot`` (on every path through it when ``must``)."""
        state = self.path
        own = self.own_variable(slot)
        if own is not None:
            # a closure wrote a variable of this very function, or a function a global of
            # this very module while its top level runs
            if state is not None:
                old = state.env.get(own)
                state.env[own] = value if must or old is None else old.join(value)
            if self.is_module and self.import_time:
                self.program.write(slot, value)
            return
        if slot[0] != "cell" and (initial or (self.writes_initial and not self.is_module)) \
                and not (slot[0] == "attr" and self.builds(slot[1])):
            self.write_initial(slot, value)
            return
        if state is not None:
            old = state.view.get(slot)
            if must or old is None:
                state.view[slot] = (value, must)
            else:
                state.view[slot] = (old[0].join(value), old[1])
        if self.is_module and self.import_time and slot[0] != "cell":
            self.write_initial(slot, value)  # what importing the module leaves behind

    def builds(self, atom: object) -> bool:
        """Whether this run is a constructor of ``atom`` (its own ``self``): its fields are
        followed on the path, so that a later write replaces what an earlier one (a
        ``super().__init__()`` call, say) stored; :meth:`flush_built_fields` puts what the
        constructor ends with on the heap."""
        return (self.writes_initial and not self.is_module and self.self_value is not None
                and atom in self.self_value)

    def flush_built_fields(self) -> None:
        """A constructor's fields of its own ``self`` as it ends, on the heap: where the
        instance's methods start from. (A constructor called for an instance leaves this
        to its caller, which replays the view it ends with.)"""
        for slot, (value, _must) in (self.exit_view or {}).items():
            if slot[0] == "attr" and self.builds(slot[1]):
                self.program.write_field(slot[1], slot[2], self.concrete_part(value))  # type: ignore[arg-type]

    def own_variable(self, slot: Slot) -> str | None:
        """The local name ``slot`` is in this run, if it is one of its own variables."""
        if slot[0] == "cell" and self.func is not None and slot[1] == self.func.key:
            return slot[2]  # type: ignore[return-value]
        if slot[0] == "g" and self.is_module and slot[1] == self.file:
            return slot[2]  # type: ignore[return-value]
        return None

    def write_initial(self, slot: Slot, value: Value) -> None:
        """``value`` written where the program starts from (the heap)."""
        if slot[0] == "g":
            self.program.write(slot, self.concrete_part(value))
        elif slot[0] == "b":
            self.program.write(("b", slot[1].site), self.concrete_part(value))  # type: ignore[union-attr]
        elif slot[0] == "bk":
            self.program.write_key(slot[1].site, slot[2], self.concrete_part(value))  # type: ignore[union-attr]
        elif slot[0] == "attr":
            self.store_attr(Value.of(slot[1]), slot[2], value, initial=True)  # type: ignore[arg-type]

    def note_exit_view(self, state: State) -> None:
        """A normal exit: the view the summary hands back joins this path's."""
        if self.exit_view is None:
            self.exit_view = dict(state.view)
        else:
            self.exit_view = join_views(self.exit_view, state.view) or {}


def is_data(value: Value) -> bool:
    """A global holding more than functions, classes and modules: worth following."""
    return any(not isinstance(a, (Ref, Cls)) for a in value)


def module_slot(ref: Ref, name: str) -> Slot | None:
    """The global ``name`` of the module ``ref`` denotes, when it is one of the tree."""
    if isinstance(ref.key, tuple) and ref.key[0] == "module":
        return ("g", ref.key[1], name)
    return None
