"""DL005 nested-autodiff."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.fixes import (
    SAFE,
    FixSite,
    Replacement,
    argument,
    in_place_of,
    safe_if,
    string_value,
    with_text,
)
from dispatch_lint.analyzer.values import Dev
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, devices, trace_to_sink

_AUTODIFF_PREFIX = "autodiff:"


class NestedAutodiff(Rule):
    """Flags ``Autodiff(...)`` wrapping a device that is already an autodiff device.

    An autodiff device tracks operations of its inner device once; wrapping it again would
    track the tracking. The runtime raises ``NestedAutodiffError`` ("Autodiff should not wrap
    an autodiff device").

    Example::

        dev = dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy()))  # DL005

    Fix: wrap the inner device once: ``Autodiff(NumPy())``.

    Automatic fix (``--fix``): ``Autodiff(Autodiff(d))`` becomes ``Autodiff(d)`` and
    ``Autodiff("autodiff:numpy")`` becomes ``Autodiff("numpy")``, the device the code meant.
    ``Autodiff(dev)`` with ``dev`` certainly an autodiff device becomes ``dev``: safe in
    module-level code and in module-level functions without parameters, outside loops (where
    the analysis sees every run of the line), unsafe elsewhere, and not offered when ``dev``
    may be a plain device on another path.
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

    @classmethod
    def fix(cls, hit: Hit, event: Event, site: FixSite) -> Replacement | None:
        call = site.call
        if (event.kind != "autodiff_device" or not site.direct or call is None
                or not site.names(call.func, "Autodiff")):
            return None
        inner = argument(call, "inner")
        if inner is None:
            return None
        text = string_value(inner)
        if text is not None:
            # Autodiff("autodiff:numba") is Autodiff("numba") wrapped once more.
            if not text.strip().lower().startswith(_AUTODIFF_PREFIX):
                return None
            assert isinstance(inner, cst.SimpleString)
            plain = text.strip()[len(_AUTODIFF_PREFIX):]
            new = with_text(inner, plain)
            if new is None:
                return None
            return Replacement(inner, new, f"wrap the inner device once: "
                               f"`{site.code(call.with_changes(args=[cst.Arg(new)]))}`", SAFE)
        wrapped = list(event.values[0])
        if not wrapped or not all(isinstance(d, Dev) and d.is_autodiff for d in wrapped):
            return None  # on another path the argument is a plain device: Autodiff is right
        # Autodiff(...) or device("autodiff:...") is autodiff wherever the code runs; a name
        # is autodiff on the paths the analysis saw.
        certain = _is_autodiff_expression(inner, site) or site.runs_once(call)
        new = in_place_of(call, inner)
        return safe_if(certain, call, new, f"remove the outer `Autodiff(...)`: `{site.code(new)}`")


def _is_autodiff_expression(node: cst.BaseExpression, site: FixSite) -> bool:
    """``Autodiff(...)`` or ``device("autodiff:...")``: an autodiff device by its form."""
    if not isinstance(node, cst.Call):
        return False
    if site.names(node.func, "Autodiff"):
        return True
    if site.names(node.func, "device"):
        spec = argument(node, "spec")
        text = string_value(spec) if spec is not None else None
        return text is not None and text.strip().lower().startswith(_AUTODIFF_PREFIX)
    return False
