"""DL009 capture-escape."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import SINK_TEXT, Event, Hit
from dispatch_lint.analyzer.values import Box, Cls, Inst, Value
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, traced_hit


class CaptureEscape(Rule):
    """Flags a traced value stored where it outlives its trace.

    While JAX traces a function (``jax.jit``, ``jax.vmap``, ``jax.grad``, the bodies of
    ``jax.lax.scan``, ``cond``, ...), its values are tracers that mean something only during
    that trace. Stored in a ``global`` or ``nonlocal`` name, in an attribute of an object
    that existed before the trace (``self.last = x`` in a traced method, a module-level
    object, one a traced closure captured), or in a list, dict or set from outside the
    trace, the tracer outlives it: the next use raises ``UnexpectedTracerError`` ("Encountered
    an unexpected tracer"), far from the line that stored it, and under
    ``jax.checking_leaks()`` the trace's end raises "Leaked trace". A set hashes what it is
    given, and a tracer is unhashable: ``s.add(t)`` raises ``TypeError`` at once. Objects and
    containers made inside the trace may hold tracers: they die with it. A helper that stores its
    argument is flagged at the call that passes it a tracer.

    Example::

        history = []

        @jax.jit
        def step(x):
            y = x * 2.0
            history.append(y)  # DL009
            return y

    Fix: return the value from the traced function instead of storing it (collect results
    from the outputs), or print or log it with ``jax.debug.print`` /
    ``jax.debug.callback``.
    """

    spec = rule("DL009")
    events = frozenset({"escape", "escape_into", "user_sink"})
    VALID = (
        "import jax\n"
        "history = []\n"
        "@jax.jit\n"
        "def step(x):\n"
        "    local = []\n"
        "    local.append(x * 2.0)\n"
        "    return local[0]\n"
        "history.append(step(1.0))\n",
        "import jax\n"
        "class Model:\n"
        "    def __init__(self):\n"
        "        self.scale = 2.0\n"
        "    def apply(self, x):\n"
        "        return x * self.scale\n"
        "model = Model()\n"
        "y = jax.jit(model.apply)(1.0)\n"
        "model.last = y\n",
    )
    INVALID = (
        "import jax\n"
        "history = []\n"
        "@jax.jit\n"
        "def step(x):\n"
        "    y = x * 2.0\n"
        "    history.append(y)  # expect\n"
        "    return y\n",
        "import jax\n"
        "import jax.numpy as jnp\n"
        "key = jax.random.PRNGKey(0)\n"
        "@jax.jit\n"
        "def init(x):\n"
        "    global key\n"
        "    key, sub = jax.random.split(key)  # expect\n"
        "    return x + jax.random.normal(sub, x.shape)\n",
        "import jax\n"
        "class Tracker:\n"
        "    def __init__(self):\n"
        "        self.step = jax.jit(self._step)\n"
        "    def _step(self, x):\n"
        "        self.last = x  # expect\n"
        "        return x + 1.0\n"
        "Tracker()\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind == "escape":
            operation = event.detail
        elif event.kind == "escape_into" and _holds(event.values[1], event.detail):
            operation = "escape-set" if event.detail.endswith("-set") else "escape"
        else:
            return
        later = "a later use raises" if operation == "escape" else "storing it raises"
        hit = traced_hit(cls.spec.id, event, event.values[0], operation,
                         f"a tracer is {SINK_TEXT}; {later} {{error}}")
        if hit is not None:
            yield hit


def _holds(target: Value, into: str) -> bool:
    """Whether the value a traced function stored into (a static argument, as a call passes
    it) keeps what it is given: a list, dict or set for a container store, an object for an
    attribute store."""
    if into.startswith("attribute"):
        return any(isinstance(a, (Inst, Cls)) for a in target)
    return any(isinstance(a, Box) for a in target)
