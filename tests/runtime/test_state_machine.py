"""Runtime invariants under random use: a hypothesis state machine drives the runtime through
random sequences of device creations, tensor creations, operations, moves, autodiff calls,
data reads, guards and capture/export/run, across NumPy, Numba, Autodiff(...) and Capture.

The expected outcome of every step is computed here from the devices involved, following the
rule catalog and the agreed semantics, never from the runtime's code:

- every error is raised exactly where a rule says so, with its class, rule id, name, catalog
  sentence and origin (a line of this file where the capture tensor, or one it came from, was
  born); every step no rule forbids succeeds with the right device, shape and values;
- after any error every capture graph still exports and runs (and gives the right values);
- NumPy arrays handed to the runtime are never mutated;
- moves between NumPy, Numba and autodiff devices are lossless for every dtype.

Values are modelled as functions of the leaf arrays (created tensors and placeholder feeds):
that gives the expected values of replayed programs and, by complex-step differentiation,
exact expected gradients.
"""

from __future__ import annotations

import operator
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from dispatch_lint import catalog
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import errors, guards

THIS_FILE = Path(__file__).resolve()
SHAPES = ((), (3,), (2, 3))  # pairwise broadcastable, so shapes never decide an outcome
DTYPES = ("float32", "float64", "int64")
FLOATS = (np.dtype("float32"), np.dtype("float64"))
#: The largest magnitude a value may reach: keeps repeated products finite in float32.
LIMIT = 1e6


def line() -> int:
    """The caller's current line: written on the same line as a runtime call, it is the line
    the runtime must report as that call's origin."""
    return sys._getframe(1).f_lineno


# ---------------------------------------------------------------------------------------------
# The model


@dataclass(frozen=True)
class DeviceKind:
    """What the contract says a device is. Two devices are equal exactly when their kinds are."""

    base: str  # "numpy" | "numba" | "capture"
    autodiff: bool = False
    #: Which ``Capture()`` a capture device is: each construction is a new one.
    graph: int | None = None

    @property
    def is_capture(self) -> bool:
        return self.base == "capture"

    @property
    def inner(self) -> DeviceKind:
        return replace(self, autodiff=False)


Evaluate = Callable[[Mapping[int, np.ndarray]], np.ndarray]


@dataclass(frozen=True)
class TensorModel:
    """What a tensor must be: its device, shape, dtype and how its value follows from leaves."""

    device: DeviceKind
    shape: tuple[int, ...]
    #: None where the contract leaves the dtype open (mixed dtypes, Python scalars).
    dtype: np.dtype | None
    evaluate: Evaluate = field(repr=False)
    #: Placeholder leaves it depends on: the inputs of a program that outputs it.
    placeholders: frozenset[int] = frozenset()
    #: Lines of this file where it, or a capture tensor it was computed from, was born.
    births: frozenset[int] = frozenset()
    #: Required autodiff leaves it was computed from while they were required.
    tracked: frozenset[int] = frozenset()
    #: Built only from analytic ops, so its gradients are known exactly.
    exact_grads: bool = True
    #: A bound on every value it was computed from: float rounding, and the order in which a
    #: backend sums, are errors relative to it, not to the (possibly cancelled) result.
    scale: float = 1.0
    #: Its own leaf id when it is a created tensor (not computed).
    leaf: int | None = None
    required: bool = False


@dataclass(frozen=True, eq=False)
class Dev:
    device: dispatch.Device
    kind: DeviceKind


@dataclass(frozen=True, eq=False)
class Entry:
    tensor: dispatch.Tensor
    model: TensorModel


ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
}
#: How the bound on intermediate values grows through each arithmetic op.
SCALES: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.add,
    "*": operator.mul,
}
COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    ">": operator.gt,
    "<=": operator.le,
}


def magnitude(array: np.ndarray) -> float:
    return max(1.0, float(np.max(np.abs(array)))) if array.size else 1.0


def values_close(actual: np.ndarray, expected: np.ndarray, scale: float = 1.0) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    if expected.dtype.kind in "biu" and actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        loose = np.dtype("float32") in (actual.dtype, expected.dtype)
        np.testing.assert_allclose(
            actual.astype(np.float64),
            expected.astype(np.float64),
            rtol=1e-5 if loose else 1e-12,
            atol=(1e-5 if loose else 1e-12) * scale,
        )


def identical(actual: np.ndarray, expected: np.ndarray) -> None:
    """Bit for bit: a lossless move keeps dtype and every value."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape
    assert actual.tobytes() == expected.tobytes()


def complex_step_gradient(
    loss: TensorModel, leaf: int, values: Mapping[int, np.ndarray]
) -> np.ndarray:
    """d sum(loss) / d leaf, exact to rounding: the loss is analytic in each leaf element."""
    step = 1e-30
    base = values[leaf].astype(np.complex128)
    gradient = np.zeros(base.shape)
    for index in np.ndindex(base.shape):
        bumped = base.copy()
        bumped[index] += step * 1j
        gradient[index] = np.sum(loss.evaluate({**values, leaf: bumped})).imag / step
    return gradient


def join(a: DeviceKind, b: DeviceKind) -> DeviceKind | None:
    """The device of ``a op b``, or None when the op is DL008: same device, or an autodiff
    device with a plain tensor of its own inner device (the result is tracked)."""
    if a == b:
        return a
    if a.autodiff != b.autodiff and a.inner == b.inner:
        return a if a.autodiff else b
    return None


@guards.no_capture
def consume(*args: Any, **kwargs: Any) -> int:
    """A user function that must never see a capture tensor."""
    return len(args) + len(kwargs)


def arrays(shape: tuple[int, ...], dtype: str) -> st.SearchStrategy[np.ndarray]:
    if dtype == "int64":
        elements = st.integers(-3, 3)
    else:  # float32-representable, so float64 and float32 data agree
        elements = st.floats(-2, 2, width=32)
    return hnp.arrays(np.dtype(dtype), shape, elements=elements)


@st.composite
def array_data(draw: Callable[..., Any]) -> np.ndarray:
    return draw(arrays(draw(st.sampled_from(SHAPES)), draw(st.sampled_from(DTYPES))))


# ---------------------------------------------------------------------------------------------
# The machine


class RuntimeMachine(RuleBasedStateMachine):
    devices = Bundle("devices")
    tensors = Bundle("tensors")

    def __init__(self) -> None:
        super().__init__()
        self.next_id = 0
        #: Every leaf's value: created tensors' data, placeholders' feeds.
        self.leaf_values: dict[int, np.ndarray] = {}
        self.placeholder_names: dict[int, str] = {}
        #: Arrays handed to the runtime, with a private copy to compare them against.
        self.handed: list[tuple[np.ndarray, np.ndarray]] = []
        self.all_devices: list[Dev] = []
        self.all_tensors: list[Entry] = []
        self.last_loss: TensorModel | None = None
        self.last_grads: Any = None

    # -- helpers -------------------------------------------------------------------------------

    def fresh(self) -> int:
        self.next_id += 1
        return self.next_id

    def new_device(self, device: dispatch.Device, kind: DeviceKind) -> Dev:
        made = Dev(device, kind)
        self.all_devices.append(made)
        return made

    def device_for(self, kind: DeviceKind) -> dispatch.Device:
        return next(d.device for d in self.all_devices if d.kind == kind)

    def new_entry(self, tensor: dispatch.Tensor, model: TensorModel) -> Entry:
        """Check ``tensor`` against its ``model`` (without reading capture data) and keep it."""
        assert tensor.is_capture == model.device.is_capture
        assert dispatch.is_capture(tensor) == guards.is_capture(tensor) == model.device.is_capture
        assert tensor.is_autodiff == model.device.autodiff
        if not any(d.kind == model.device for d in self.all_devices):
            self.new_device(tensor.device, model.device)
        assert tensor.device == self.device_for(model.device)
        assert tuple(tensor.shape) == model.shape
        if model.dtype is not None:
            assert np.dtype(tensor.dtype) == model.dtype
        if not model.device.is_capture:
            data = tensor.numpy()
            assert data.dtype == np.dtype(tensor.dtype)
            values_close(data, self.expected(model), model.scale)
        entry = Entry(tensor, model)
        self.all_tensors.append(entry)
        return entry

    def expected(self, model: TensorModel) -> np.ndarray:
        return np.asarray(model.evaluate(self.leaf_values))

    def hand(self, array: np.ndarray) -> np.ndarray:
        """Give ``array`` to the runtime, remembering its bytes to check it is never mutated."""
        self.handed.append((array, array.copy()))
        return array

    @contextmanager
    def raises(
        self,
        rule_id: str,
        births: frozenset[int] | None = frozenset(),
        error_class: type[errors.DispatchError] | None = None,
    ) -> Iterator[None]:
        """The block must raise the runtime error of ``rule_id`` (or ``error_class``, a
        subclass); ``births`` are the lines the origin may point at (empty: no origin, the
        value involved is not a capture tensor; None: not checked, for device errors, guard
        errors in training blocks and mode "off")."""
        spec = catalog.rule(rule_id)
        expected_class = error_class or getattr(errors, spec.runtime_error)
        assert issubclass(expected_class, getattr(errors, spec.runtime_error))
        with pytest.raises(errors.DispatchError) as caught:
            yield
        error = caught.value
        assert isinstance(error, expected_class), f"want {expected_class.__name__}, got {error!r}"
        assert isinstance(error, RuntimeError)
        assert (error.rule, error.rule_name) == (spec.id, spec.name)
        message = str(error)
        assert message.startswith(spec.message), message
        assert rule_id in message, message
        if births is None:
            pass
        elif births:
            assert error.origin is not None, f"{rule_id} on a capture tensor has no origin"
            assert Path(error.origin.file).resolve() == THIS_FILE, error.origin
            assert error.origin.line in births, (error.origin, sorted(births))
            assert str(error.origin) == f"{error.origin.file}:{error.origin.line}"
        else:
            assert error.origin is None, error.origin
        self.graphs_still_run()

    def run_program(self, outputs: list[Entry], on: Dev) -> None:
        """Export ``outputs`` (plain capture tensors of one graph), run the program, its JSON
        round trip and ``replay`` on the real device ``on``, and compare with the model."""
        needed = frozenset().union(*(e.model.placeholders for e in outputs))
        inputs = {self.placeholder_names[i]: self.hand(self.leaf_values[i].copy()) for i in needed}
        expected = [self.expected(e.model) for e in outputs]
        program = dispatch.export(*(e.tensor for e in outputs))
        results = [
            program.run(inputs, device=on.device),
            dispatch.Program.from_json(program.to_json()).run(inputs, device=on.device),
            dispatch.replay([e.tensor for e in outputs], inputs, device=on.device),
        ]
        for result in results:
            got = [result] if len(outputs) == 1 else list(result)
            assert len(got) == len(outputs)
            for tensor, want, entry in zip(got, expected, outputs):
                assert not tensor.is_capture
                assert tensor.device == on.device
                values_close(tensor.numpy(), want, entry.model.scale)

    def graphs_still_run(self) -> None:
        """Every capture graph still exports and runs after an error: its latest tensor."""
        latest: dict[int, Entry] = {}
        for entry in self.all_tensors:
            kind = entry.model.device
            if kind.is_capture and not kind.autodiff:
                assert kind.graph is not None
                latest[kind.graph] = entry
        numpy_device = next(d for d in self.all_devices if d.kind == DeviceKind("numpy"))
        for entry in latest.values():
            self.run_program([entry], numpy_device)

    # -- devices -------------------------------------------------------------------------------

    @initialize(target=devices)
    def standard_devices(self) -> Any:
        numpy_device = dispatch.NumPy()
        numba_device = dispatch.Numba()
        return multiple(
            self.new_device(numpy_device, DeviceKind("numpy")),
            self.new_device(numba_device, DeviceKind("numba")),
            self.new_device(dispatch.Autodiff(numpy_device), DeviceKind("numpy", autodiff=True)),
            self.new_device(dispatch.Autodiff(numba_device), DeviceKind("numba", autodiff=True)),
            self.new_device(dispatch.Capture(), DeviceKind("capture", graph=self.fresh())),
        )

    @rule(
        target=devices,
        how=st.sampled_from(
            [
                "NumPy()",
                "Numba()",
                "Capture()",
                "numpy",
                "numba",
                "capture",
                "autodiff:numpy",
                "autodiff:numba",
                "autodiff:capture",
            ]
        ),
    )
    def make_device(self, how: str) -> Dev:
        constructors = {
            "NumPy()": dispatch.NumPy,
            "Numba()": dispatch.Numba,
            "Capture()": dispatch.Capture,
        }
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            made = constructors[how]() if how in constructors else dispatch.device(how)
        dl004 = [w for w in caught if issubclass(w.category, errors.CaptureAutodiffWarning)]
        assert len(dl004) == (how == "autodiff:capture"), [str(w.message) for w in caught]
        name = how.removesuffix("()").lower().removeprefix("autodiff:")
        graph = self.fresh() if name == "capture" else None
        return self.new_device(made, DeviceKind(name, how.startswith("autodiff:"), graph))

    @rule(name=st.sampled_from(["cuda", "", "tpu", "autodiff:", "autodiff:cuda"]))
    def unknown_device_string(self, name: str) -> None:
        with pytest.raises(ValueError) as caught:
            dispatch.device(name)
        for allowed in ("numpy", "numba", "capture"):
            assert allowed in str(caught.value)

    @rule(target=devices, inner=devices, strict=st.booleans())
    def autodiff_over(self, inner: Dev, strict: bool) -> Any:
        if inner.kind.autodiff:
            with self.raises("DL005", None):
                dispatch.Autodiff(inner.device)
            return multiple()
        kind = replace(inner.kind, autodiff=True)
        if not inner.kind.is_capture:
            return self.new_device(dispatch.Autodiff(inner.device), kind)
        if strict:
            with guards.mode("strict"), self.raises("DL004", None):
                dispatch.Autodiff(inner.device)
            return multiple()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            made = dispatch.Autodiff(inner.device)
        dl004 = [w for w in caught if issubclass(w.category, errors.CaptureAutodiffWarning)]
        assert len(dl004) == 1, [str(w.message) for w in caught]
        assert str(dl004[0].message).startswith(catalog.rule("DL004").message)
        return self.new_device(made, kind)

    # -- creation ------------------------------------------------------------------------------

    @rule(
        target=tensors, on=devices, data=array_data(), how=st.sampled_from(["tensor", "from_numpy"])
    )
    def create(self, on: Dev, data: np.ndarray, how: str) -> Any:
        if on.kind.is_capture:
            return multiple()  # capture tensors come from placeholders and moves
        create = dispatch.tensor if how == "tensor" else dispatch.from_numpy
        made = create(self.hand(data), device=on.device)
        leaf = self.fresh()
        self.leaf_values[leaf] = data.copy()
        model = TensorModel(
            device=on.kind,
            shape=data.shape,
            dtype=data.dtype,
            evaluate=lambda values: values[leaf],
            exact_grads=data.dtype in FLOATS,
            scale=magnitude(data),
            leaf=leaf,
        )
        return self.new_entry(made, model)

    @rule(
        target=tensors,
        on=st.one_of(st.none(), devices),
        shape=st.sampled_from(SHAPES),
        dtype=st.sampled_from(DTYPES),
        data=st.data(),
    )
    def placeholder(self, on: Dev | None, shape: tuple[int, ...], dtype: str, data: Any) -> Any:
        leaf = self.fresh()
        name = f"input_{leaf}"
        if on is not None and not on.kind.is_capture:
            with pytest.raises(ValueError):
                dispatch.placeholder(shape, device=on.device, name=name, dtype=dtype)
            return multiple()
        if on is None:
            made, born = dispatch.placeholder(shape, name=name, dtype=dtype), line()
            kind = DeviceKind("capture", graph=self.fresh())
        else:
            # The formatter splits this call over lines: the birth is the line of the call.
            born = line() + 1
            made = dispatch.placeholder(shape, device=on.device, name=name, dtype=dtype)
            kind = on.kind
        self.leaf_values[leaf] = data.draw(arrays(shape, dtype), label="feed")
        self.placeholder_names[leaf] = name
        model = TensorModel(
            device=kind,
            shape=shape,
            dtype=np.dtype(dtype),
            evaluate=lambda values: values[leaf],
            placeholders=frozenset({leaf}),
            births=frozenset({born}),
            exact_grads=False,
            scale=magnitude(self.leaf_values[leaf]),
        )
        return self.new_entry(made, model)

    # -- operations ----------------------------------------------------------------------------

    @rule(target=tensors, a=tensors, b=tensors, op=st.sampled_from([*ARITHMETIC, *COMPARISONS]))
    def binary(self, a: Entry, b: Entry, op: str) -> Any:
        ma, mb = a.model, b.model
        comparison = op in COMPARISONS
        dtypes = {np.dtype(a.tensor.dtype), np.dtype(b.tensor.dtype)}
        if not comparison and np.dtype(bool) in dtypes:
            return multiple()  # arithmetic on bool tensors is not part of the contract
        function = COMPARISONS.get(op) or ARITHMETIC[op]
        joined = join(ma.device, mb.device)
        if joined is None:
            births = ma.births | mb.births
            with self.raises("DL008", births):
                function(a.tensor, b.tensor)
            return multiple()
        if not comparison and not self.bounded(lambda v: function(ma.evaluate(v), mb.evaluate(v))):
            return multiple()
        made, at = function(a.tensor, b.tensor), line()
        one_dtype = dtypes.pop() if len(dtypes) == 1 else None
        model = TensorModel(
            device=joined,
            shape=np.broadcast_shapes(ma.shape, mb.shape),
            dtype=np.dtype(bool) if comparison else one_dtype,
            evaluate=lambda values: function(ma.evaluate(values), mb.evaluate(values)),
            placeholders=ma.placeholders | mb.placeholders,
            births=(ma.births | mb.births | {at}) if joined.is_capture else frozenset(),
            tracked=(ma.tracked | mb.tracked) if joined.autodiff else frozenset(),
            exact_grads=ma.exact_grads and mb.exact_grads and not comparison,
            scale=1.0 if comparison else SCALES[op](ma.scale, mb.scale),
        )
        return self.new_entry(made, model)

    @rule(
        target=tensors,
        kinds=st.lists(st.sampled_from(["numpy", "numba", "capture"]), min_size=2, max_size=2),
        autodiff=st.lists(st.booleans(), min_size=2, max_size=2),
        data=st.lists(array_data(), min_size=2, max_size=2),
    )
    def fresh_pair(self, kinds: list[str], autodiff: list[bool], data: list[np.ndarray]) -> Any:
        """Two fresh tensors on any two kinds of device, combined by every binary op: each
        device pairing of DL008 comes up often, not only when two random tensors meet."""
        operands = []
        for kind, lifted, array in zip(kinds, autodiff, data):
            real = DeviceKind("numpy" if kind == "capture" else kind, autodiff=lifted)
            entry = self.create(Dev(self.device_for(real), real), array, "tensor")
            if kind == "capture":  # a constant of the newest capture device (or autodiff over one)
                captures = [
                    d for d in self.all_devices if d.kind.is_capture and d.kind.autodiff == lifted
                ]
                if not captures:
                    return multiple()
                entry = self.move(entry, captures[-1], False)
            operands.append(entry)
        results = [self.binary(*operands, op) for op in [*ARITHMETIC, *COMPARISONS]]
        return multiple(*(r for r in results if isinstance(r, Entry)))

    @rule(
        target=tensors,
        t=tensors,
        op=st.sampled_from(["* 2.0", "+ 1", "2.0 -", "neg", "tanh", "abs", "sum"]),
    )
    def unary(self, t: Entry, op: str) -> Any:
        """Python scalars mix with tensors on every device; unary ops keep the device."""
        m = t.model
        if np.dtype(t.tensor.dtype) == np.dtype(bool):
            return multiple()
        functions: dict[str, Callable[[Any], Any]] = {
            "* 2.0": lambda x: x * 2.0,
            "+ 1": lambda x: x + 1,
            "2.0 -": lambda x: 2.0 - x,
            "neg": operator.neg,
            "tanh": np.tanh,
            "abs": np.abs,
            "sum": np.sum,
        }
        function = functions[op]
        if not self.bounded(lambda v: function(m.evaluate(v))):
            return multiple()
        tensor = t.tensor
        if op == "* 2.0":
            made, at = tensor * 2.0, line()
        elif op == "+ 1":
            made, at = tensor + 1, line()
        elif op == "2.0 -":
            made, at = 2.0 - tensor, line()
        elif op == "neg":
            made, at = -tensor, line()
        elif op == "tanh":
            made, at = tensor.tanh(), line()
        elif op == "abs":
            made, at = tensor.abs(), line()
        else:
            made, at = tensor.sum(), line()
        keeps_dtype = op in ("neg", "abs", "sum") or (op == "* 2.0" and m.dtype in FLOATS)
        model = TensorModel(
            device=m.device,
            shape=() if op == "sum" else m.shape,
            dtype=m.dtype if keeps_dtype else None,
            evaluate=lambda values: function(m.evaluate(values)),
            placeholders=m.placeholders,
            births=(m.births | {at}) if m.device.is_capture else frozenset(),
            tracked=m.tracked,
            exact_grads=m.exact_grads and op != "abs",  # |x| is not analytic
            scale={
                "* 2.0": 2 * m.scale,
                "+ 1": m.scale + 1,
                "2.0 -": m.scale + 2,
                "tanh": 1.0,
                "sum": m.scale * max(1, int(np.prod(m.shape))),
            }.get(op, m.scale),
        )
        return self.new_entry(made, model)

    def bounded(self, evaluate: Evaluate) -> bool:
        """Whether a result stays small: repeated products must not overflow or wrap."""
        with np.errstate(all="ignore"):
            value = np.asarray(evaluate(self.leaf_values), dtype=np.float64)
        return bool(np.all(np.isfinite(value)) and np.all(np.abs(value) <= LIMIT))

    # -- moves ---------------------------------------------------------------------------------

    @rule(target=tensors, t=tensors, to=devices, as_string=st.booleans())
    def move(self, t: Entry, to: Dev, as_string: bool) -> Any:
        m = t.model
        target: dispatch.Device | str = to.device
        kind = to.kind
        if as_string and not to.kind.is_capture:
            target = ("autodiff:" if kind.autodiff else "") + kind.base
        elif as_string and to.kind == DeviceKind("capture", graph=to.kind.graph):
            target, kind = "capture", DeviceKind("capture", graph=self.fresh())
        if m.device.is_capture:
            if kind == m.device:
                assert t.tensor.to_device(target) is t.tensor
                return multiple()
            with self.raises("DL002", m.births):
                t.tensor.to_device(target)
            return multiple()
        if m.device.autodiff != kind.autodiff:
            with self.raises("DL007"):
                t.tensor.to_device(target)
            return multiple()
        before = t.tensor.numpy()
        moved, at = t.tensor.to_device(target), line()
        if moved is t.tensor:
            # A move onto the tensor's own device is the tensor itself (a required leaf stays
            # required): its model is unchanged, there is nothing new to track.
            assert kind == m.device
            return multiple()
        if not kind.is_capture:
            identical(moved.numpy(), before)  # lossless, every dtype
        model = replace(
            m,
            device=kind,
            dtype=before.dtype,
            placeholders=frozenset(),
            births=frozenset({at}) if kind.is_capture else frozenset(),
            # Whether a copy between autodiff devices stays on the tape is left open.
            tracked=m.tracked if kind == m.device else frozenset(),
            exact_grads=m.exact_grads and kind == m.device,
            leaf=None,
            required=False,
        )
        return self.new_entry(moved, model)

    @rule(
        data=array_data(),
        as_bool=st.booleans(),
        autodiff=st.booleans(),
        path=st.lists(st.sampled_from(["numpy", "numba"]), min_size=1, max_size=4),
    )
    def move_round_trip(
        self, data: np.ndarray, as_bool: bool, autodiff: bool, path: list[str]
    ) -> None:
        """Moves along a random path of NumPy and Numba devices (plain, or autodiff on both
        ends) keep every bit of every dtype, bool (comparison results) included."""
        start = self.device_for(DeviceKind("numpy", autodiff=autodiff))
        moving = dispatch.tensor(self.hand(data), device=start)
        if as_bool:
            moving = moving > 0
        original = moving.numpy()
        for backend in path:
            target = self.device_for(DeviceKind(backend, autodiff=autodiff))
            moving = moving.to_device(target)
            assert moving.device == target
            identical(moving.numpy(), original)
        if autodiff:
            identical(moving.inner().numpy(), original)

    # -- autodiff ------------------------------------------------------------------------------

    def autodiff_refusal(self, m: TensorModel) -> tuple[str, frozenset[int]] | None:
        """DL001 on any capture tensor (checked first), DL006 on a plain device."""
        if m.device.is_capture:
            return "DL001", m.births
        if not m.device.autodiff:
            return "DL006", frozenset()
        return None

    @rule(target=tensors, t=consumes(tensors))
    def require_grad(self, t: Entry) -> Entry:
        refusal = self.autodiff_refusal(t.model)
        if refusal is not None:
            with self.raises(*refusal):
                t.tensor.require_grad()
            return t
        if t.model.leaf is None or t.model.dtype not in FLOATS:
            return t  # only float leaves are differentiated here
        marked = t.tensor.require_grad()
        if marked is t.tensor:  # marked in place: the old entry's "not required" is stale
            self.all_tensors = [e for e in self.all_tensors if e.tensor is not marked]
        leaf = t.model.leaf
        model = replace(t.model, required=True, tracked=frozenset({leaf}))
        return self.new_entry(marked, model)

    @rule(t=tensors)
    def backward(self, t: Entry) -> None:
        refusal = self.autodiff_refusal(t.model)
        if refusal is not None:
            with self.raises(*refusal):
                t.tensor.backward()
            return
        if np.dtype(t.tensor.dtype) not in FLOATS:
            return
        self.last_grads = t.tensor.backward()
        self.last_loss = t.model
        for entry in self.all_tensors:
            if entry.model.device.autodiff and not entry.model.device.is_capture:
                self.check_gradient(entry)

    @rule(
        backend=st.sampled_from(["numpy", "numba"]),
        data=st.sampled_from(SHAPES).flatmap(
            lambda shape: st.sampled_from(["float32", "float64"]).flatmap(
                lambda dtype: arrays(shape, dtype)
            )
        ),
        other=st.one_of(st.none(), tensors),
    )
    def train_step(self, backend: str, data: np.ndarray, other: Entry | None) -> None:
        """A training step on a fresh required leaf: ``((w * other) + w).sum().backward()``,
        with ``other`` on w's device or its plain inner one (else ``w`` itself)."""
        kind = DeviceKind(backend, autodiff=True)
        on = Dev(self.device_for(kind), kind)
        w = self.require_grad(self.create(on, data, "tensor"))
        usable = other is not None and join(on.kind, other.model.device) == on.kind
        if other is None or not usable or np.dtype(other.tensor.dtype) == np.dtype(bool):
            other = w  # then the loss is w * w + w
        product = self.binary(w, other, "*")
        if not isinstance(product, Entry):
            return  # the product left the bounded range
        loss = self.unary(self.binary(product, w, "+"), "sum")
        if isinstance(loss, Entry):
            self.backward(loss)

    def check_gradient(self, x: Entry) -> None:
        assert self.last_loss is not None
        m, loss = x.model, self.last_loss
        grad = x.tensor.grad(self.last_grads)
        if not m.required:
            assert grad is None, f"a tensor that was never required got a gradient: {grad!r}"
            return
        if grad is None:
            assert m.leaf not in loss.tracked, "a required leaf of the loss got no gradient"
            return
        assert not grad.is_autodiff and not grad.is_capture
        assert grad.device == self.device_for(m.device.inner)
        assert tuple(grad.shape) == m.shape
        if m.leaf in loss.tracked and loss.exact_grads and loss.device.inner == m.device.inner:
            assert m.leaf is not None
            exact = complex_step_gradient(loss, m.leaf, self.leaf_values)
            values_close(grad.numpy(), exact, loss.scale)

    @precondition(lambda self: self.last_grads is not None)
    @rule(t=tensors)
    def grad(self, t: Entry) -> None:
        refusal = self.autodiff_refusal(t.model)
        if refusal is not None:
            with self.raises(*refusal):
                t.tensor.grad(self.last_grads)
            return
        self.check_gradient(t)

    @rule(target=tensors, t=tensors)
    def inner(self, t: Entry) -> Any:
        refusal = self.autodiff_refusal(t.model)
        if refusal is not None:
            with self.raises(*refusal):
                t.tensor.inner()
            return multiple()
        plain = t.tensor.inner()
        identical(plain.numpy(), t.tensor.numpy())
        model = replace(
            t.model, device=t.model.device.inner, tracked=frozenset(), leaf=None, required=False
        )
        return self.new_entry(plain, model)

    @rule(target=tensors, t=tensors, on=devices)
    def wrap(self, t: Entry, on: Dev) -> Any:
        """``Autodiff(d).wrap(t)`` lifts a plain real tensor on ``d`` to the autodiff device."""
        m = t.model
        if not on.kind.autodiff or on.kind.is_capture or m.device != on.kind.inner:
            return multiple()  # lifting anything else is not part of the contract
        lifted = on.device.wrap(t.tensor)
        identical(lifted.numpy(), t.tensor.numpy())
        return self.new_entry(lifted, replace(m, device=on.kind, tracked=frozenset()))

    # -- data reads and descriptions -----------------------------------------------------------

    @rule(
        t=tensors,
        how=st.sampled_from(
            ["numpy", "tolist", "asarray", "item", "float", "int", "bool", "format", "fstring"]
        ),
    )
    def read(self, t: Entry, how: str) -> None:
        m, tensor = t.model, t.tensor
        reads: dict[str, Callable[[], Any]] = {
            "numpy": tensor.numpy,
            "tolist": tensor.tolist,
            "asarray": lambda: np.asarray(tensor),
            "item": tensor.item,
            "float": lambda: float(tensor),
            "int": lambda: int(tensor),
            "bool": lambda: bool(tensor),
            "format": lambda: format(tensor, ".3f"),
            "fstring": lambda: f"{tensor:>12}",
        }
        if m.device.is_capture:
            with self.raises("DL003", m.births):
                reads[how]()
            return
        if how not in ("numpy", "tolist", "asarray") and m.shape != ():
            return  # one-element reads of larger tensors are NumPy's business
        want = self.expected(m)
        if how in ("numpy", "asarray"):
            values_close(reads[how](), want, m.scale)
        elif how == "tolist":
            values_close(np.asarray(tensor.tolist()), want, m.scale)
        elif how in ("item", "float"):
            values_close(np.asarray(reads[how]()), want, m.scale)
        elif how == "format":
            assert reads[how]() == format(float(want), ".3f")
        else:
            reads[how]()

    @rule(t=tensors)
    def describe(self, t: Entry) -> None:
        """Descriptions never read data: fine on capture tensors, and they say what it is."""
        tensor, m = t.tensor, t.model
        texts = [str(tensor), repr(tensor), f"{tensor}"]
        assert tuple(tensor.shape) == m.shape
        if m.shape:
            assert len(tensor) == m.shape[0]
        if m.device.is_capture:
            for text in texts:
                assert "capture" in text.lower(), text

    # -- capture programs ----------------------------------------------------------------------

    @rule(a=tensors, b=tensors, on=devices, both=st.booleans())
    def export_and_run(self, a: Entry, b: Entry, on: Dev, both: bool) -> None:
        plain_capture = [
            e
            for e in ((a, b) if both else (a,))
            if e.model.device.is_capture and not e.model.device.autodiff
        ]
        if not plain_capture or on.kind.is_capture or on.kind.autodiff:
            return
        graphs = {e.model.device.graph for e in plain_capture}
        if len(graphs) > 1:
            with pytest.raises(ValueError):
                dispatch.export(*(e.tensor for e in plain_capture))
            self.graphs_still_run()
            return
        self.run_program(plain_capture, on)

    # -- guards --------------------------------------------------------------------------------

    @rule(
        t=tensors, how=st.sampled_from(["ensure", "positional", "keyword", "list", "tuple", "dict"])
    )
    def guard(self, t: Entry, how: str) -> None:
        calls: dict[str, Callable[[], Any]] = {
            "ensure": lambda: guards.ensure_not_capture(t.tensor, what="the weights"),
            "positional": lambda: consume(1, t.tensor),
            "keyword": lambda: consume(weights=t.tensor),
            "list": lambda: consume([1.0, t.tensor]),
            "tuple": lambda: consume((t.tensor, 2)),
            "dict": lambda: consume({"w": t.tensor}),
        }
        if t.model.device.is_capture:
            with self.raises("DL001", t.model.births, errors.CaptureGuardError):
                calls[how]()
            return
        result = calls[how]()
        if how == "ensure":
            assert result is t.tensor

    @rule(a=tensors, b=tensors, create=st.booleans())
    def training_block(self, a: Entry, b: Entry, create: bool) -> None:
        """Inside ``guards.training()`` a capture tensor may not be created or used."""
        if create:
            with self.raises("DL001", None, errors.CaptureGuardError), guards.training():
                dispatch.placeholder((2,), name="inside_training")
            return
        joined = join(a.model.device, b.model.device)
        if joined is None or np.dtype(bool) in (np.dtype(a.tensor.dtype), np.dtype(b.tensor.dtype)):
            return
        if joined.is_capture:
            with self.raises("DL001", None, errors.CaptureGuardError), guards.training():
                a.tensor + b.tensor
            return
        with guards.training():
            a.tensor + b.tensor

    @rule(t=tensors, how=st.sampled_from(["numpy", "backward", "float"]))
    def off_mode(self, t: Entry, how: str) -> None:
        """Mode "off" skips the early checks, but a capture tensor has no data behind it, so
        reading it or differentiating it still raises."""
        if not t.model.device.is_capture:
            return
        calls: dict[str, tuple[str, Callable[[], Any]]] = {
            "numpy": ("DL003", t.tensor.numpy),
            "float": ("DL003", lambda: float(t.tensor)),
            "backward": ("DL001", t.tensor.backward),
        }
        rule_id, call = calls[how]
        with guards.mode("off"), self.raises(rule_id, None):
            call()

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def handed_arrays_are_never_mutated(self) -> None:
        for array, copy in self.handed:
            identical(array, copy)

    @invariant()
    def devices_are_equal_exactly_when_the_contract_says(self) -> None:
        for a in self.all_devices[-4:]:
            for b in self.all_devices:
                assert (a.device == b.device) == (a.kind == b.kind), (a, b)
                if a.kind == b.kind:
                    assert hash(a.device) == hash(b.device)


RuntimeMachine.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
test_runtime_state_machine = RuntimeMachine.TestCase
