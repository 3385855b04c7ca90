"""DL004 autodiff-over-capture."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.fixes import (
    UNSAFE,
    FixSite,
    Replacement,
    argument,
    in_place_of,
    string_value,
    with_text,
)
from dispatch_lint.analyzer.values import Dev
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, devices, trace_to_sink

_LOSES_AUTODIFF = "unsafe fix: the device loses autodiff"


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

    Automatic fix (``--unsafe-fixes`` only: the device loses autodiff, and code that relied
    on it, such as ``.require_grad()``, then fails with DL006): the string
    ``"autodiff:capture"`` written in the flagged call becomes ``"capture"``, and
    ``Autodiff(c)`` over a capture device ``c`` becomes ``c``.
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

    @classmethod
    def fix(cls, hit: Hit, event: Event, site: FixSite) -> Replacement | None:
        call = site.call
        if event.kind != "autodiff_device" or not site.direct or call is None:
            return None
        literals = [a.value for a in call.args if isinstance(a.value, cst.SimpleString)
                    and (string_value(a.value) or "").strip().lower() == "autodiff:capture"]
        if len(literals) == 1:
            literal = literals[0]
            assert isinstance(literal, cst.SimpleString)
            new = with_text(literal, "capture")
            if new is None:
                return None
            return Replacement(literal, new, f"capture on a plain device, `{site.code(new)}`, and "
                               f"differentiate after replay ({_LOSES_AUTODIFF})", UNSAFE)
        if literals or not site.names(call.func, "Autodiff"):
            return None
        inner = argument(call, "inner")
        wrapped = list(event.values[0])
        if (inner is None or string_value(inner) is not None or not wrapped
                or not all(isinstance(d, Dev) and d.kind == "capture" for d in wrapped)):
            return None
        new = in_place_of(call, inner)
        return Replacement(call, new, f"capture on `{site.code(new)}` itself and differentiate "
                           f"after replay ({_LOSES_AUTODIFF})", UNSAFE)
