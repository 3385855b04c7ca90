"""DL001 capture-backward."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import Event, Hit
from dispatch_lint.analyzer.values import Ten
from dispatch_lint.catalog import GUARD_FIX, rule
from dispatch_lint.rules.base import Rule, capture_tensors, trace_to_sink


class CaptureBackward(Rule):
    """Flags a value that may be a capture tensor reaching an autodiff call.

    The autodiff calls are ``.backward()``, ``.require_grad()``, ``.grad(grads)`` and
    ``.inner()``. A capture tensor is a placeholder recorded while a program is captured; it
    has no data and no gradient tape, so the runtime raises ``CaptureAutodiffError`` ("Capture
    tensors do not support autodiff"), whether the capture device is wrapped in ``Autodiff``
    or not. Passing a capture tensor into a ``@guards.no_capture`` function, or creating or
    using one inside ``with guards.training():``, raises ``CaptureGuardError``, the same rule.
    So does ``guards.ensure_not_capture(t)``; as a guard it is a sanitizer (after it, ``t``
    is known to be real), and it is flagged only where ``t`` is certainly a capture tensor,
    so that it always raises.

    Example::

        x = dispatch.placeholder((3,), name="x")
        loss = (x * x).sum()
        loss.backward()  # DL001

    Fix: replay the captured program first (``dispatch.replay`` / ``Program.run``) and
    differentiate the real result, or train on ``Autodiff(NumPy())``.
    """

    spec = rule("DL001")
    events = frozenset({"autodiff", "no_capture", "training", "ensure_not_capture",
                        "user_sink"})
    VALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "dev = dispatch.Autodiff(dispatch.NumPy())\n"
        "w = dispatch.tensor([1.0, 2.0], device=dev).require_grad()\n"
        "loss = (w * w).sum()\n"
        "grads = loss.backward()\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((2,), name='x')\n"
        "y = dispatch.replay(x * 2.0, {'x': [1.0, 2.0]}, device=dispatch.Autodiff(dispatch.NumPy()))\n"
        "y.sum().backward()\n",
        "from dispatch_lint import runtime as dispatch\n"
        "def step(t):\n"
        "    if dispatch.is_capture(t):\n"
        "        return None\n"
        "    return t.backward()\n",
        "class Optimizer:\n"
        "    def backward(self):\n"
        "        return 1\n"
        "Optimizer().backward()\n",
        "from dispatch_lint import runtime as dispatch\n"
        "from dispatch_lint.runtime import guards\n"
        "def check(flag):\n"
        "    x = dispatch.placeholder((2,)) if flag else dispatch.ones((2,))\n"
        "    return guards.ensure_not_capture(x)\n",
    )
    INVALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "loss = (x * x).sum()\n"
        "loss.backward()  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "def train(t):\n"
        "    return t.sum().backward()\n"
        "train(dispatch.placeholder((3,)))  # expect\n",
        "import dispatch_lint.runtime as dispatch\n"
        "from dispatch_lint.runtime import guards\n"
        "@guards.no_capture\n"
        "def fit(t):\n"
        "    return t\n"
        "fit(dispatch.zeros((2,), device=dispatch.Capture()))  # expect\n",
        "from dispatch_lint.runtime import Capture, Autodiff, tensor\n"
        "t = tensor([1.0], device=Autodiff(Capture()))  # DL004 here, too\n"
        "t.inner()  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "from dispatch_lint.runtime import guards\n"
        "x = dispatch.placeholder((2,), name='x')\n"
        "guards.ensure_not_capture(x * 2.0, what='the loss')  # expect\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind == "autodiff":
            for atom, trace in capture_tensors(event.values[0]):
                yield Hit(cls.spec.id, (atom,), trace_to_sink(trace, event),
                          f"`{event.detail}` is called on a value that may be a capture tensor")
        elif event.kind == "no_capture":
            for value in event.values:
                for atom, trace in capture_tensors(value):
                    yield Hit(cls.spec.id, (atom,), trace_to_sink(trace, event),
                              f"a capture tensor is passed to `@guards.no_capture` function "
                              f"`{event.detail}()`, which raises CaptureGuardError",
                              GUARD_FIX)
                    return
        elif event.kind == "ensure_not_capture":
            atoms = list(event.values[0])
            if atoms and all(isinstance(a, Ten) and a.dev.is_capture for a in atoms):
                yield Hit(cls.spec.id, tuple(atoms),
                          trace_to_sink(event.values[0].trace(atoms[0]), event),
                          f"`{event.detail}()` is given a value that is certainly a capture "
                          "tensor, so it raises CaptureGuardError", GUARD_FIX)
        elif event.kind == "training":
            for atom, trace in capture_tensors(event.values[0]):
                yield Hit(cls.spec.id, (atom,), trace_to_sink(trace, event),
                          "a capture tensor is created or used inside `guards.training()`, "
                          "which raises CaptureGuardError", GUARD_FIX)
                return
