"""DL002 capture-to-device."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, capture_tensors, devices, trace_to_sink


class CaptureToDevice(Rule):
    """Flags a capture tensor moved with ``.to_device(d)`` to any device but its own.

    A capture tensor lives only in the graph of the capture device it was recorded on. Moving
    it to its own device is a no-op; moving it anywhere else (NumPy, Numba, an autodiff
    device, even another capture device) raises ``CaptureTransferError`` ("Cannot move a
    tensor from a capture device"), and only that error. So does lifting it with
    ``Autodiff(d).wrap(t)`` onto autodiff over any device but its own.

    Example::

        x = dispatch.placeholder((3,), name="x")
        y = x.to_device(dispatch.NumPy())  # DL002

    Fix: export and run the program (``Program.run(inputs, device=...)``) to get a real
    tensor on the target device.
    """

    spec = rule("DL002")
    events = frozenset({"move", "lift", "user_sink"})
    VALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "cap = dispatch.Capture()\n"
        "x = dispatch.placeholder((3,), device=cap, name='x')\n"
        "y = x.to_device(cap)\n",
        "from dispatch_lint import runtime as dispatch\n"
        "cap = dispatch.Capture()\n"
        "w = dispatch.tensor([1.0, 2.0]).to_device(cap)\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "out = dispatch.replay(x + 1.0, {'x': [1.0, 2.0, 3.0]})\n"
        "out.to_device(dispatch.Numba())\n",
        "from dispatch_lint import runtime as dispatch\n"
        "w = dispatch.Autodiff(dispatch.NumPy()).wrap(dispatch.ones((3,)))\n",
    )
    INVALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "y = x.to_device(dispatch.NumPy())  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.zeros((3,), device='capture')\n"
        "y = x.to_device('capture')  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "def to_host(t):\n"
        "    return t.to_device(dispatch.NumPy())\n"
        "to_host(dispatch.placeholder((3,)))  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "w = dispatch.Autodiff(dispatch.NumPy()).wrap(x)  # expect\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind not in ("move", "lift"):
            return
        tensors, target = event.values
        for atom, trace in capture_tensors(tensors):
            for dev, _ in devices(target):
                # `Autodiff(cap).wrap(t)` lifts a tensor of `cap` onto autodiff over it
                lifts_own = event.kind == "lift" and dev.inner == atom.dev
                if dev != atom.dev and not lifts_own:
                    yield Hit(cls.spec.id, (atom,), trace_to_sink(trace, event),
                              f"a capture tensor on {atom.dev.describe()} is moved to "
                              f"{dev.describe()}")
                    return
