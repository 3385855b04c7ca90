"""DL004 autodiff-over-capture."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, devices, trace_to_sink


class AutodiffOverCapture(Rule):
    """Flags an ``Autodiff(...)`` device built over a capture device.

    Includes ``dispatch.device("autodiff:capture")`` and ``device="autodiff:capture"``. The
    capture backend records no gradient tape, so such a device cannot differentiate anything;
    the runtime warns with ``CaptureAutodiffWarning`` where the device is built (and raises it
    in strict mode).

    Example::

        dev = dispatch.Autodiff(dispatch.Capture())  # DL004

    Fix: capture on a plain ``Capture()`` device and differentiate after replay on
    ``Autodiff(NumPy())``.
    """

    spec = rule("DL004")
    events = frozenset({"autodiff_device", "user_sink"})
    VALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "dev = dispatch.Autodiff(dispatch.NumPy())\n",
        "from dispatch_lint import runtime as dispatch\n"
        "dev = dispatch.device('autodiff:numba')\n",
    )
    INVALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "dev = dispatch.Autodiff(dispatch.Capture())  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.zeros((2,), device='autodiff:capture')  # expect\n",
        "from dispatch_lint.runtime import Autodiff, device\n"
        "def wrap(d):\n"
        "    return Autodiff(d)\n"
        "wrap(device('capture'))  # expect\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind != "autodiff_device":
            return
        for dev, trace in devices(event.values[0]):
            if dev.kind == "capture":
                yield Hit(cls.spec.id, (dev,), trace_to_sink(trace, event),
                          "an Autodiff device is built over a capture device "
                          "(CaptureAutodiffWarning)")
                return
