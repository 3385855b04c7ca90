"""DL008 mixed-device-op."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.values import Ten, devices_clash
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, trace_to_sink


class MixedDeviceOp(Rule):
    """Flags a binary operation whose two tensors are on different devices.

    ``+ - * / ** @`` and comparisons need both tensors on one device: a capture tensor with a
    real one, NumPy with Numba, or two different capture devices raise
    ``DeviceMismatchError`` ("Tensors are on different devices"). An autodiff tensor with a
    plain tensor of the same inner backend is fine (the result is tracked), and Python scalars
    mix with anything.

    Example::

        x = dispatch.placeholder((3,), name="x")
        w = dispatch.ones((3,))
        y = x * w  # DL008

    Fix: move one operand with ``.to_device()`` first (real tensors may move onto a capture
    device as constants).
    """

    spec = rule("DL008")
    events = frozenset({"binop", "user_sink"})
    VALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "cap = dispatch.Capture()\n"
        "x = dispatch.placeholder((3,), device=cap, name='x')\n"
        "w = dispatch.ones((3,)).to_device(cap)\n"
        "y = x * w + 1.0\n",
        "from dispatch_lint import runtime as dispatch\n"
        "ad = dispatch.Autodiff(dispatch.NumPy())\n"
        "w = dispatch.ones((3,), device=ad)\n"
        "y = w * dispatch.ones((3,))\n",
    )
    INVALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "w = dispatch.ones((3,))\n"
        "y = x * w  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "a = dispatch.ones((3,), device=dispatch.Numba())\n"
        "b = dispatch.ones((3,))\n"
        "c = a + b  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "y = dispatch.placeholder((3,), name='y')\n"
        "z = x + y  # expect\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind != "binop":
            return
        left, right = event.values
        left_devs = {a.dev for a in left if isinstance(a, Ten)}
        right_devs = {a.dev for a in right if isinstance(a, Ten)}
        if len(left_devs) > 1 and left_devs == right_devs:
            return  # both sides chose their device on the same path
        for a, a_trace in left.items():
            if not isinstance(a, Ten):
                continue
            for b, b_trace in right.items():
                if isinstance(b, Ten) and devices_clash(a.dev, b.dev):
                    # The capture operand's trace tells the more useful story.
                    trace = a_trace if a.dev.is_capture or not b.dev.is_capture else b_trace
                    if a.dev.is_capture and b.dev.is_capture:
                        what = "tensors on two different capture devices"
                    else:
                        what = f"a tensor on {a.dev.describe()} with a tensor on " \
                               f"{b.dev.describe()}"
                    yield Hit(cls.spec.id, (a, b), trace_to_sink(trace, event),
                              f"`{event.detail}` combines {what}")
                    return
