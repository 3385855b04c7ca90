"""The state on one path through a function: local names and their values, and the heap slots
this path has written (see :mod:`.views`)."""

from __future__ import annotations

from collections.abc import Sequence

from dispatch_lint.analyzer.bounds import MAX_ASSUMED
from dispatch_lint.analyzer.values import Value, either_assumed

#: A heap slot as a path sees it: ("g", file, name) a module global, ("attr", instance or
#: class atom, name) a field, ("cell", function key, name) a ``nonlocal`` variable, ("b",
#: container) what a container holds, ("bk", container, key) what it holds under a key,
#: ("len", list) how many items a list the function made holds on the path, ("tail", list,
#: start) what it holds from an index on, ("ends", list) its known last items.
Slot = tuple[object, ...]


class State:
    """Local names and their values on one path, and the view of the heap slots the path
    wrote: per slot, its value and whether every way to here wrote it (else the value the
    slot had at the function's start may still be there)."""

    __slots__ = ("assumed", "env", "passed", "view")

    def __init__(self, env: dict[str, Value] | None = None,
                 view: dict[Slot, tuple[Value, bool]] | None = None,
                 passed: frozenset[int] = frozenset(),
                 assumed: frozenset[Value] = frozenset()) -> None:
        self.env: dict[str, Value] = env if env is not None else {}
        self.view: dict[Slot, tuple[Value, bool]] = view if view is not None else {}
        #: sinks on a caller's values (their nodes' ids) that every way here passed: one that
        #: raises at a call ends the path there (see Event.after)
        self.passed = passed
        #: values of a caller's that every way here tested and found no tracer (a failed
        #: ``isinstance(v, jax.core.Tracer)``): at a call where one of them is certainly a
        #: tracer, this path is never taken (see Event.assumes)
        self.assumed = assumed

    def copy(self) -> State:
        return State(dict(self.env), dict(self.view) if self.view else None, self.passed,
                     self.assumed)

    def join(self, other: State) -> State:
        env = dict(self.env)
        for name, value in other.env.items():
            mine = env.get(name)
            env[name] = value if mine is None else mine.join(value)
        return State(env, join_views(self.view, other.view), self.passed & other.passed,
                     either_assumed(self.assumed, other.assumed, MAX_ASSUMED))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.env == other.env and self.view == other.view

    __hash__ = None  # type: ignore[assignment]


def join_views(a: dict[Slot, tuple[Value, bool]], b: dict[Slot, tuple[Value, bool]]
               ) -> dict[Slot, tuple[Value, bool]] | None:
    """Two paths' views joined: a slot one path did not write keeps its start value there."""
    if not a and not b:
        return None
    out = dict(a)
    for slot, (value, must) in b.items():
        mine = out.get(slot)
        out[slot] = (value, False) if mine is None else (mine[0].join(value), mine[1] and must)
    for slot, (value, _) in a.items():
        if slot not in b:
            out[slot] = (value, False)
    return out


def join_states(states: Sequence[State | None]) -> State | None:
    """The join of the live states (None when every path ended)."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    out = live[0]
    for s in live[1:]:
        out = out.join(s)
    return out
