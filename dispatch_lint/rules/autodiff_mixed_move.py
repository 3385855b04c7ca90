"""DL007 autodiff-mixed-move."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.values import Ten
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, devices, trace_to_sink


class AutodiffMixedMove(Rule):
    """Flags ``.to_device(d)`` between an autodiff and a non-autodiff device.

    Moving a tensor from ``Autodiff(NumPy())`` to ``NumPy()`` (or back) would silently drop
    or invent a gradient tape, so the runtime raises ``AutodiffTransferError`` ("Cannot move
    between autodiff and non-autodiff instances"). Capture tensors are DL002 instead.

    Example::

        w = dispatch.tensor([1.0], device=dispatch.Autodiff(dispatch.NumPy()))
        w.to_device(dispatch.NumPy())  # DL007

    Fix: call ``.inner()`` to drop autodiff, or ``Autodiff(d).wrap(t)`` to lift a tensor.
    """

    spec = rule("DL007")
    events = frozenset({"move", "user_sink"})
    VALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.tensor([1.0], device=dispatch.Autodiff(dispatch.NumPy()))\n"
        "w.inner().to_device(dispatch.Numba())\n",
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.tensor([1.0], device='autodiff:numpy')\n"
        "w.to_device('autodiff:numba')\n",
    )
    INVALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.tensor([1.0], device=dispatch.Autodiff(dispatch.NumPy()))\n"
        "w.to_device(dispatch.NumPy())  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.tensor([1.0])\n"
        "w.to_device('autodiff:numpy')  # expect\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind != "move":
            return
        tensors, target = event.values
        for atom, trace in tensors.items():
            if not isinstance(atom, Ten) or atom.dev.is_capture or atom.dev.kind == "real":
                continue
            for dev, _ in devices(target):
                if dev.is_autodiff != atom.dev.is_autodiff and dev.kind != "real":
                    yield Hit(cls.spec.id, (atom,), trace_to_sink(trace, event),
                              f"a tensor on {atom.dev.describe()} is moved to "
                              f"{dev.describe()}")
                    return
