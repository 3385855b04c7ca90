"""DL006 backward-requires-autodiff."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.values import Ten
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, trace_to_sink


class BackwardRequiresAutodiff(Rule):
    """Flags an autodiff call on a tensor that is certainly on a plain device.

    ``.backward()``, ``.require_grad()``, ``.grad(grads)`` and ``.inner()`` need a tensor on an
    ``Autodiff(...)`` device. On a NumPy or Numba tensor the runtime raises
    ``RequiresAutodiffError`` ("Requires autodiff tensor"). The rule only fires when every
    value that can reach the call is a plain real tensor, so it never guesses.

    Example::

        w = dispatch.tensor([1.0, 2.0])
        w.require_grad()  # DL006

    Fix: create the tensor on ``Autodiff(NumPy())`` (or lift it with
    ``Autodiff(d).wrap(t)``).
    """

    spec = rule("DL006")
    events = frozenset({"autodiff", "user_sink"})
    VALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.tensor([1.0], device='autodiff:numpy').require_grad()\n",
        "from dispatch_lint import runtime as dispatch\n"
        "def f(t):\n"
        "    return t.backward()\n",
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.tensor([1.0])\n"
        "w = dispatch.Autodiff(dispatch.NumPy()).wrap(w)\n"
        "w.require_grad()\n",
    )
    INVALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.tensor([1.0, 2.0])\n"
        "w.require_grad()  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.ones((2,), device=dispatch.Numba())\n"
        "loss = (w * 2.0).sum()\n"
        "loss.backward()  # expect\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind != "autodiff" or not event.values[0]:
            return
        value = event.values[0]
        # every atom a plain tensor: a value that may also be one the analysis could not
        # follow (an unknown argument, `x @ w` with `w` unknown) is not certainly plain
        atoms = list(value)
        if all(isinstance(a, Ten) and a.dev.kind in ("numpy", "numba") for a in atoms):
            trace = value.trace(atoms[0])
            yield Hit(cls.spec.id, tuple(atoms), trace_to_sink(trace, event),
                      f"`{event.detail}` is called on a tensor on {atoms[0].dev.describe()}, "
                      "a plain device")
