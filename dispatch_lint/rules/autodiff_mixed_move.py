"""DL007 autodiff-mixed-move."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.fixes import (
    UNSAFE,
    FixSite,
    Replacement,
    argument,
    binds_tightly,
    has_no_side_effects,
    in_place_of,
    method_call,
    safe_if,
    string_value,
)
from dispatch_lint.analyzer.values import Dev, Ten
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

    Automatic fixes (``--fix``): a tensor certainly on an autodiff device moved to a plain
    device, ``w.to_device(NumPy())``, becomes ``w.inner().to_device(NumPy())``; a tensor
    certainly on a plain device moved to the autodiff device over that same device,
    ``t.to_device("autodiff:numpy")``, becomes ``dispatch.device("autodiff:numpy").wrap(t)``
    (``dev.wrap(t)`` for a device ``dev``). They are safe in module-level code and in
    module-level functions without parameters, outside loops (where the analysis sees every
    run of the line), unsafe elsewhere. When the move is inside a helper and the finding is at
    the call, the fix passes ``w.inner()`` instead of ``w``: safe when the call runs once (as
    above) and the helper does nothing else with that parameter (the move is its only use,
    once per call, in an undecorated module-level function: see
    ``FixSite.helper_only_moves``), unsafe (``--unsafe-fixes``) otherwise, since other code in
    the helper may need autodiff. A tensor that may be on either kind of device gets no
    automatic fix.
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

    @classmethod
    def fix(cls, hit: Hit, event: Event, site: FixSite) -> Replacement | None:
        if event.kind != "move":
            return None
        tensors, target = (list(v) for v in event.values)
        if not tensors or not target or not all(isinstance(d, Dev) for d in target):
            return None
        if all(isinstance(t, Ten) and t.dev.is_autodiff and not t.dev.is_capture
               for t in tensors) and not any(d.is_autodiff or d.kind == "real" for d in target):
            return _drop_autodiff(hit, site)
        kinds = {t.dev.kind for t in tensors if isinstance(t, Ten)}
        if (len(kinds) == 1 and kinds <= {"numpy", "numba"} and len(tensors) == len(target) == 1
                and all(isinstance(t, Ten) for t in tensors)
                and all(d.is_autodiff and d.inner is not None and d.inner.kind in kinds
                        for d in target)):
            return _lift(site)
        return None


def _drop_autodiff(hit: Hit, site: FixSite) -> Replacement | None:
    call = site.call
    if call is None:
        return None
    if not site.direct:
        passed = site.argument_passed(hit)
        if passed is None:
            return None
        new = method_call(passed, "inner")
        title = f"pass `{site.code(new)}` to drop autodiff before the helper moves it"
        if not site.helper_only_moves(hit):
            return Replacement(passed, new, f"{title} (unsafe fix: the helper may need "
                               "autodiff)", UNSAFE)
        return safe_if(site.runs_once(call), passed, new, title)
    receiver = _moved(call)
    if receiver is None:
        return None
    new = call.with_changes(func=call.func.with_changes(value=method_call(receiver, "inner")))
    return safe_if(site.runs_once(call), call, new, f"drop autodiff first: `{site.code(new)}`")


def _lift(site: FixSite) -> Replacement | None:
    call = site.call
    if call is None or not site.direct:
        return None
    receiver = _moved(call)
    target = argument(call, "device")
    if receiver is None or target is None:
        return None
    if string_value(target) is not None:
        make = site.runtime("device")
        if make is None:
            return None
        device: cst.BaseExpression = cst.Call(func=make, args=[cst.Arg(target)])
    elif binds_tightly(target):
        device = target
    else:
        return None
    new = in_place_of(call, method_call(device, "wrap", [cst.Arg(receiver)]))
    title = f"lift the tensor onto the autodiff device: `{site.code(new)}`"
    if not has_no_side_effects(receiver):
        # The device is now made before the tensor: harmless only when the tensor is a name.
        return Replacement(call, new, f"{title} (unsafe fix: the device is now made before "
                           "the tensor)", UNSAFE)
    return safe_if(site.runs_once(call), call, new, title)


def _moved(call: cst.Call) -> cst.BaseExpression | None:
    """The tensor of ``tensor.to_device(device)``."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "to_device":
        return call.func.value
    return None
