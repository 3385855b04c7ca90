"""DL003 capture-data-read."""

from __future__ import annotations

from collections.abc import Iterator

from dispatch_lint.analyzer.events import SINK_TEXT, Event, Hit
from dispatch_lint.analyzer.values import Box, HostArray, Str, Traced, Tup, Value
from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule, capture_tensors, trace_to_sink, traced_hit


class CaptureDataRead(Rule):
    """Flags reading the data of a value that may be a capture tensor.

    Reads are ``.numpy()``, ``.item()``, ``.tolist()``, ``float(t)``, ``int(t)``, ``bool(t)``,
    ``np.asarray(t)`` / ``np.array(t)``, ``format(t, spec)``, f-strings with a format spec
    (``f"{t:.3f}"``), and using the tensor as a condition (``if t > 0:``, ``while t:``,
    ``not t``). A capture tensor has no data, so the runtime raises ``CaptureDataError``
    ("Capture tensors hold no data"). ``str(t)``, ``repr(t)``, ``f"{t}"``, ``.shape``,
    ``.dtype``, ``.device`` and ``len(t)`` are fine.

    Example::

        x = dispatch.placeholder((3,), name="x")
        print(x.sum().item())  # DL003

    Fix: replay the program to get real data, or guard the read with ``is_capture(t)``.
    """

    spec = rule("DL003")
    events = frozenset({"read", "user_sink", "concretize", "subscript"})
    VALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "print(x, x.shape, f'{x}', str(x), repr(x), x.dtype)\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.tensor([1.0, 2.0])\n"
        "if x.sum() > 0:\n"
        "    print(x.numpy(), float(x.sum()))\n",
        "from dispatch_lint import runtime as dispatch\n"
        "def show(t):\n"
        "    if not dispatch.is_capture(t):\n"
        "        print(t.item())\n"
        "show(dispatch.placeholder(()))\n",
    )
    INVALID = (
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "v = x.sum().item()  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "if x.sum() > 0:  # expect\n"
        "    pass\n",
        "import numpy as np\n"
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((3,), name='x')\n"
        "a = np.asarray(x)  # expect\n",
        "from dispatch_lint import runtime as dispatch\n"
        "x = dispatch.placeholder((), name='x')\n"
        "print(f'{x:.3f}')  # expect\n",
    )

    @classmethod
    def check(cls, event: Event) -> Iterator[Hit]:
        yield from cls.user_sink_hits(event)
        if event.kind == "read":
            for atom, trace in capture_tensors(event.values[0]):
                yield Hit(cls.spec.id, (atom,), trace_to_sink(trace, event),
                          f"a value that may be a capture tensor is {SINK_TEXT}")
                return
        if event.kind == "concretize" and len(event.values) > 1 and not any(
                isinstance(a, (Box, Tup, Traced)) for a in event.values[1]):
            return  # `t in c`: `c` compares items only as a list, tuple or array
        if event.kind in ("read", "concretize"):
            hit = traced_hit(cls.spec.id, event, event.values[0], event.detail, _TRACED_WHAT)
        elif event.kind == "subscript":
            hit = traced_hit(cls.spec.id, event, event.values[1],
                             _subscript_sink(event.values[0], event.detail), _TRACED_WHAT)
        else:
            return
        if hit is not None:
            yield hit


#: What a finding on a tracer says (``{error}``: the framework's error).
_TRACED_WHAT = f"a tracer is {SINK_TEXT}, which raises {{error}}"


def _subscript_sink(indexed: Value, detail: str) -> str:
    """A tracer as an index is a sink on a Python list, tuple or string (it needs an int) and
    on a NumPy array (which converts it; its slice bounds need ints); as a slice bound, on a traced array too."""
    if any(isinstance(a, HostArray) for a in indexed):
        return "numpy" if detail == "index" else "index"  # a slice bound needs an int
    if any(isinstance(a, (Tup, Str)) or (isinstance(a, Box) and a.kind == "list")
           for a in indexed):
        return "index"
    if detail == "slice" and any(isinstance(a, Traced) for a in indexed):
        return "slice"
    return ""
