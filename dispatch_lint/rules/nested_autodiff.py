"""DL005 nested-autodiff."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, devices, trace_to_sink


class NestedAutodiff(Rule):
    """Flags ``Autodiff(...)`` wrapping a device that is already an autodiff device.

    An autodiff device tracks operations of its inner device once; wrapping it again would
    track the tracking. The runtime raises ``NestedAutodiffError`` ("Autodiff should not wrap
    an autodiff device").

    Example::

        dev = dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy()))  # DL005

    Fix: wrap the inner device once: ``Autodiff(NumPy())``.
    """

    spec = rule("DL005")
    events = frozenset({"autodiff_device", "user_sink"})
    VALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "dev = dispatch.Autodiff(dispatch.Numba())\n",
    )
    INVALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "dev = dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy()))  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "base = dispatch.device('autodiff:numpy')\n"
        "dev = dispatch.Autodiff(base)  # expect\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind != "autodiff_device":
            return
        for dev, trace in devices(event.values[0]):
            if dev.is_autodiff:
                yield Hit(cls.spec.id, (dev,), trace_to_sink(trace, event),
                          f"Autodiff wraps {dev.describe()}, which is already an autodiff "
                          "device")
                return
