"""The state on one path through a function: local names and their values."""

from __future__ import annotations

from collections.abc import Sequence

from dispatch_lint.analyzer.values import Value


class State:
    """Local names and their values on one path."""

    __slots__ = ("env",)

    def __init__(self, env: dict[str, Value] | None = None) -> None:
        self.env: dict[str, Value] = env if env is not None else {}

    def copy(self) -> State:
        return State(dict(self.env))

    def join(self, other: State) -> State:
        env = dict(self.env)
        for name, value in other.env.items():
            mine = env.get(name)
            env[name] = value if mine is None else mine.join(value)
        return State(env)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.env == other.env

    __hash__ = None  # type: ignore[assignment]


def join_states(states: Sequence[State | None]) -> State | None:
    """The join of the live states (None when every path ended)."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    out = live[0]
    for s in live[1:]:
        out = out.join(s)
    return out
