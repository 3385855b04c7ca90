"""``Tensor`` and the functions that create tensors.

A tensor is one of three things, told apart by its slots:

- real plain (NumPy/Numba): ``_data`` is an ndarray, ``_node`` is None;
- real autodiff: ``_data`` is an ndarray, ``_node`` its ``TapeNode`` (None when untracked);
- capture (capture device, or autodiff over one): ``_data`` is None, ``_node`` is its index in
  the capture graph and ``_origin`` the ``Origin`` where it (or what it came from) was born.

Eager ops on plain tensors of one device take a fast path (one ``is`` check, one kernel call,
one tensor); everything else goes through ``_apply``, which checks devices, records capture
nodes and autodiff tape nodes.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import numpy as np

from dispatch_lint.runtime import autodiff, modes, ops
from dispatch_lint.runtime.capture import Node
from dispatch_lint.runtime.devices import Autodiff, Capture, Device, NumPy
from dispatch_lint.runtime.devices import device as as_device
from dispatch_lint.runtime.errors import (
    AutodiffTransferError,
    CaptureAutodiffError,
    CaptureDataError,
    CaptureGuardError,
    CaptureTransferError,
    DeviceMismatchError,
    Origin,
    RequiresAutodiffError,
    user_origin,
)

__all__ = [
    "Tensor",
    "abs",
    "arange",
    "exp",
    "from_array",
    "from_numpy",
    "full",
    "lift",
    "log",
    "matmul",
    "max",
    "mean",
    "ones",
    "placeholder",
    "rand",
    "relu",
    "reshape",
    "sigmoid",
    "sqrt",
    "sum",
    "tanh",
    "tensor",
    "transpose",
    "zeros",
]

_ndarray = np.ndarray
_asarray = np.asarray


class Tensor:
    """A tensor on a device: real (NumPy, Numba, autodiff over them) or capture (no data).

    Build one with ``dispatch.tensor(...)`` (or ``Tensor(data, device=..., dtype=...)``),
    ``zeros``, ``ones``, ``full``, ``arange``, ``rand``, ``from_numpy`` or ``placeholder``.
    """

    __slots__ = ("_data", "_device", "_node", "_origin")
    # ``ndarray + tensor`` must defer to ``Tensor.__radd__`` instead of converting the tensor.
    __array_priority__ = 1000

    def __init__(
        self, data: Any, device: Device | str | None = None, dtype: Any = None
    ) -> None:
        made = tensor(data, device=device, dtype=dtype)
        self._data = made._data
        self._device = made._device
        self._node = made._node
        self._origin = made._origin

    # -- properties -------------------------------------------------------------------------

    @property
    def device(self) -> Device:
        """The device this tensor lives on."""
        return self._device

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape (known for capture tensors too)."""
        data = self._data
        if data is not None:
            return data.shape
        return self._graph_node().shape

    @property
    def dtype(self) -> np.dtype:
        """The ``numpy.dtype`` (compares equal to its name: ``t.dtype == "float32"``)."""
        data = self._data
        if data is not None:
            return data.dtype
        return self._graph_node().dtype

    @property
    def ndim(self) -> int:
        """The number of dims."""
        return len(self.shape)

    @property
    def is_capture(self) -> bool:
        """True for a capture tensor: a placeholder with no data."""
        return self._data is None

    @property
    def is_autodiff(self) -> bool:
        """True for a tensor on an ``Autodiff(...)`` device."""
        return self._device.is_autodiff

    @property
    def origin(self) -> Origin | None:
        """Where a capture tensor (or the capture tensor it came from) was born; else None."""
        return self._origin

    def _graph_node(self) -> Node:
        return self._device._capture.graph.nodes[self._node]

    # -- data -------------------------------------------------------------------------------

    def _read(self, what: str) -> np.ndarray:
        data = self._data
        if data is None:
            raise CaptureDataError(f"{what} on {self._describe()}", self._origin)
        return data

    def numpy(self) -> np.ndarray:
        """The data as a NumPy array (DL003 on a capture tensor)."""
        return _asarray(self._read(".numpy()"))

    def item(self) -> Any:
        """The single element as a Python number (DL003 on a capture tensor)."""
        data = self._read(".item()")
        if data.size != 1:
            raise ValueError(
                f".item() needs a tensor with one element, got shape {data.shape}"
            )
        return data.item()

    def tolist(self) -> Any:
        """The data as nested Python lists (DL003 on a capture tensor)."""
        return self._read(".tolist()").tolist()

    def __float__(self) -> float:
        return float(self._single("float()"))

    def __int__(self) -> int:
        return int(self._single("int()"))

    def __bool__(self) -> bool:
        return bool(self._single("bool() (using a tensor as a condition)"))

    def _single(self, what: str) -> Any:
        data = self._read(what)
        if data.size != 1:
            raise ValueError(
                f"{what} needs a tensor with one element, got shape {data.shape} "
                "(the truth value of a larger tensor is ambiguous)"
            )
        return data.item()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        data = self._read("np.asarray()")
        if dtype is not None:
            return data.astype(dtype, copy=bool(copy))
        return np.array(data, copy=True) if copy else data

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        data = self._read(f"format(t, {spec!r})")
        if data.size != 1:
            raise TypeError(
                f"format spec {spec!r} needs a one-element tensor, got {data.shape}"
            )
        return format(data.item(), spec)

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __repr__(self) -> str:
        if self._data is None:
            return (
                f"tensor(<capture {self._node_text()}>, shape={self.shape}, "
                f"dtype={self.dtype}, device={self._device!r})"
            )
        body = np.array2string(self._data, separator=", ", threshold=64)
        tracked = ", tracked" if self._node is not None else ""
        return f"tensor({body}, dtype={self.dtype}, device={self._device!r}{tracked})"

    __str__ = __repr__

    def _node_text(self) -> str:
        node = self._graph_node()
        if node.op == "input":
            return f"placeholder {node.attrs['name']!r}, node #{self._node}"
        return f"node #{self._node} {node.op}"

    def _describe(self) -> str:
        return f"a capture tensor ({self._node_text()}, on {self._device!r})"

    __hash__ = object.__hash__

    # -- autodiff ---------------------------------------------------------------------------

    def _autodiff_call(self, call: str) -> None:
        if self._data is None:
            raise CaptureAutodiffError(
                f"{call} was called on {self._describe()}", self._origin
            )
        if not self._device.is_autodiff:
            raise RequiresAutodiffError(
                f"{call} was called on a tensor on the plain device {self._device!r}"
            )

    def require_grad(self) -> Tensor:
        """Make this autodiff tensor a leaf to differentiate; returns it.

        Like burn, a tensor computed from others becomes a fresh leaf: its history is dropped,
        so ``w = (w - lr * g).require_grad()`` starts each training step with a short tape.
        """
        self._autodiff_call(".require_grad()")
        if self._data.dtype.kind != "f":
            raise TypeError(
                f"only float tensors can require gradients, got {self.dtype}"
            )
        if self._node is None or self._node.op != "leaf":
            self._node = autodiff.leaf()
        return self

    def backward(self) -> autodiff.Gradients:
        """Gradients of this tensor (summed, if not a scalar) w.r.t. every required tensor."""
        self._autodiff_call(".backward()")
        return autodiff.backward(self._node, self._data)

    def grad(self, grads: autodiff.Gradients) -> Tensor | None:
        """This tensor's gradient in ``grads`` as a plain tensor on the inner device, or None."""
        self._autodiff_call(".grad()")
        if not isinstance(grads, autodiff.Gradients):
            raise TypeError(
                f".grad() takes the Gradients of backward(), got {type(grads).__name__}"
            )
        array = grads.array_for(self._node)
        if array is None:
            return None
        return _real(array, self._device.inner)

    def inner(self) -> Tensor:
        """The same data on the inner (plain) device, not tracked."""
        self._autodiff_call(".inner()")
        return _real(self._data, self._device.inner)

    # -- moves ------------------------------------------------------------------------------

    def to_device(self, device: Device | str) -> Tensor:
        """This tensor on ``device`` (a device or a device string).

        A capture tensor stays on its own capture device (DL002 anywhere else); moves between
        autodiff and plain devices are DL007; a real tensor moved onto a capture device
        becomes a constant of that capture graph.
        """
        target = as_device(device)
        source = self._device
        if self._data is None:
            if target == source:
                return self
            raise CaptureTransferError(
                f".to_device({target!r}) was called on {self._describe()}", self._origin
            )
        if source.is_autodiff != target.is_autodiff:
            raise AutodiffTransferError(
                f".to_device({target!r}) was called on a tensor on {source!r}"
            )
        if target == source:
            return self
        if target._capture is not None:
            return _constant(self._data, target, _birth())
        node = None
        if self._node is not None:
            node = autodiff.TapeNode(
                "copy", (self._node,), (self._data,), self._data, None
            )
        return _real(np.array(self._data, copy=True), target, node)

    def astype(self, dtype: Any) -> Tensor:
        """This tensor converted to ``dtype``."""
        return _apply("astype", (self,), {"dtype": ops.as_dtype(dtype)})

    # -- operations -------------------------------------------------------------------------

    def exp(self) -> Tensor:
        """Element-wise e**x."""
        return _unary("exp", self)

    def log(self) -> Tensor:
        """Element-wise natural logarithm."""
        return _unary("log", self)

    def sqrt(self) -> Tensor:
        """Element-wise square root."""
        return _unary("sqrt", self)

    def tanh(self) -> Tensor:
        """Element-wise hyperbolic tangent."""
        return _unary("tanh", self)

    def sigmoid(self) -> Tensor:
        """Element-wise logistic function."""
        return _unary("sigmoid", self)

    def relu(self) -> Tensor:
        """Element-wise max(x, 0); its gradient at 0 is 0."""
        return _unary("relu", self)

    def abs(self) -> Tensor:
        """Element-wise absolute value; its gradient at 0 is 0."""
        return _unary("abs", self)

    def __neg__(self) -> Tensor:
        return _unary("neg", self)

    def __abs__(self) -> Tensor:
        return _unary("abs", self)

    def __pos__(self) -> Tensor:
        return self

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over ``axis`` (an int, a tuple, or None for all)."""
        return _reduce("sum", self, axis, keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over ``axis``."""
        return _reduce("mean", self, axis, keepdims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over ``axis`` (gradient split equally among ties)."""
        return _reduce("max", self, axis, keepdims)

    def reshape(self, *shape: Any) -> Tensor:
        """The same elements in ``shape`` (ints or one tuple; one -1 is inferred)."""
        target = shape[0] if len(shape) == 1 else shape
        return _apply(
            "reshape", (self,), {"shape": ops.reshape_target(self.shape, target)}
        )

    def transpose(self, *axes: Any) -> Tensor:
        """Permute dims: none reverses them; a full permutation as NumPy; two axes swap them."""
        return _apply(
            "transpose", (self,), {"axes": ops.transpose_axes(self.ndim, axes)}
        )

    @property
    def T(self) -> Tensor:
        """The dims reversed."""
        return _apply("transpose", (self,), {"axes": None})

    def matmul(self, other: Any) -> Tensor:
        """Matrix product (1-d and batched operands as ``numpy.matmul``)."""
        return _binary("matmul", self, other)


def _fast_binary(op: str) -> Callable[[Tensor, Any], Any]:
    def method(self: Tensor, other: Any) -> Any:
        d = self._device
        kernels = d._kernels
        if kernels is not None and other.__class__ is Tensor and other._device is d:
            try:
                out = getattr(kernels, op)(self._data, other._data)
            except Exception:  # noqa: BLE001 - any kernel failure is re-diagnosed below
                # Re-run through the checked path: it raises an error that names the problem.
                return _binary(op, self, other)
            if out.__class__ is not _ndarray:
                out = _asarray(out)
            result = _new(Tensor)
            result._data = out
            result._device = d
            result._node = None
            result._origin = None
            return result
        return _binary(op, self, other)

    method.__name__ = f"__{op}__"
    return method


def _reflected(op: str) -> Callable[[Tensor, Any], Any]:
    def method(self: Tensor, other: Any) -> Any:
        return _binary(op, self, other, reflected=True)

    method.__name__ = f"__r{op}__"
    return method


_new = object.__new__
for _op, _dunder in (
    ("add", "add"),
    ("sub", "sub"),
    ("mul", "mul"),
    ("div", "truediv"),
    ("pow", "pow"),
    ("matmul", "matmul"),
    ("lt", "lt"),
    ("le", "le"),
    ("gt", "gt"),
    ("ge", "ge"),
    ("eq", "eq"),
    ("ne", "ne"),
):
    setattr(Tensor, f"__{_dunder}__", _fast_binary(_op))
    if _op not in ops.COMPARISONS:
        setattr(Tensor, f"__r{_dunder}__", _reflected(_op))


# -- the checked path --------------------------------------------------------------------------


def _real(
    data: np.ndarray, dev: Device, node: autodiff.TapeNode | None = None
) -> Tensor:
    result = _new(Tensor)
    result._data = data
    result._device = dev
    result._node = node
    result._origin = None
    return result


def _birth() -> Origin | None:
    """Where a capture tensor is being born (None in guard mode off)."""
    return None if modes.get_mode() == "off" else user_origin()


def _check_training(origin: Origin | None) -> None:
    if modes.in_training():
        raise CaptureGuardError(
            "a capture tensor was created or used inside guards.training()", origin
        )


def _record(dev: Device, node: Node, origin: Origin | None) -> Tensor:
    """Append a validated node to ``dev``'s capture graph; the capture tensor it makes."""
    _check_training(origin)
    index = dev._capture.graph.add(node, origin)
    result = _new(Tensor)
    result._data = None
    result._device = dev
    result._node = index
    result._origin = origin
    return result


def _constant(array: np.ndarray, dev: Device, origin: Origin | None) -> Tensor:
    value = np.array(array, copy=True)
    node = Node(
        "const", (), MappingProxyType({"value": value}), value.shape, value.dtype
    )
    return _record(dev, node, origin)


def _join_devices(op: str, a: Tensor, b: Tensor) -> Device:
    """The device of ``a <op> b``, or DL008."""
    da, db = a._device, b._device
    if da is db:
        return da
    ca, cb = da._capture, db._capture
    if ca is not None or cb is not None:
        # Capture checks first: a capture tensor with anything but its own graph is DL008.
        if ca is cb:
            return da if da.is_autodiff else db
        capture = a if ca is not None else b
        raise DeviceMismatchError(
            f"{ops.spelled(op)} between a tensor on {da!r} and a tensor on {db!r}",
            capture._origin,
        )
    if da == db:
        return da
    if da.is_autodiff != db.is_autodiff and da._base == db._base:
        return da if da.is_autodiff else db
    raise DeviceMismatchError(
        f"{ops.spelled(op)} between a tensor on {da!r} and a tensor on {db!r}"
    )


def _operand_array(value: Any, like: Tensor) -> np.ndarray | None:
    """A Python scalar or NumPy array as the array of a constant operand, else None."""
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
    elif isinstance(value, (bool, int, float)):
        # Python scalars are weakly typed, as in NumPy 2 and PyTorch: float32 + 2.0 stays
        # float32, and a capture graph records the constant with the very same dtype.
        array = np.asarray(value, dtype=np.result_type(like.dtype, value))
    else:
        return None
    if array.dtype not in ops.SUPPORTED_DTYPES:
        raise TypeError(f"cannot combine a tensor with a value of dtype {array.dtype}")
    return array


def _binary(op: str, a: Tensor, b: Any, reflected: bool = False) -> Any:
    if b.__class__ is not Tensor and not isinstance(b, Tensor):
        array = _operand_array(b, a)
        if array is None:
            return NotImplemented
        dev = a._device
        if dev._capture is None:
            b = _real(array, dev)
        else:
            # Validate before recording the constant: a failed op leaves no trace in the graph.
            shapes, dtypes = (a.shape, array.shape), (a.dtype, array.dtype)
            if reflected:
                shapes, dtypes = shapes[::-1], dtypes[::-1]
            ops.infer(op, shapes, dtypes, {})
            b = _constant(array, dev, a._origin)
    if reflected:
        a, b = b, a
    return _apply(op, (a, b), {})


def _unary(op: str, x: Tensor) -> Tensor:
    d = x._device
    kernels = d._kernels
    if kernels is not None:
        try:
            out = getattr(kernels, op)(x._data)
        except Exception:  # noqa: BLE001 - the checked path names the problem
            return _apply(op, (x,), {})
        if out.__class__ is not _ndarray:
            out = _asarray(out)
        return _real(out, d)
    return _apply(op, (x,), {})


def _reduce(op: str, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    attrs = {"axis": ops.normalize_axis(axis, x.ndim, op), "keepdims": bool(keepdims)}
    return _apply(op, (x,), attrs)


def _apply(op: str, inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> Tensor:
    """Run (or record) ``op`` on tensors after checking their devices."""
    dev = inputs[0]._device
    if len(inputs) == 2 and inputs[1]._device is not dev:
        dev = _join_devices(op, inputs[0], inputs[1])
    if dev._capture is not None:
        shape, dtype = ops.infer(
            op, tuple(t.shape for t in inputs), tuple(t.dtype for t in inputs), attrs
        )
        origin = next((t._origin for t in inputs if t._origin is not None), None)
        node = Node(
            op, tuple(t._node for t in inputs), MappingProxyType(attrs), shape, dtype
        )
        return _record(dev, node, origin)
    arrays = tuple(t._data for t in inputs)
    try:
        if attrs:
            out = _run_kernel(dev._compute, op, arrays, attrs)
        else:
            out = getattr(dev._compute, op)(*arrays)
    except Exception as exc:
        # Name the problem in the user's terms; never surface a bare NumPy error.
        ops.infer(
            op, tuple(a.shape for a in arrays), tuple(a.dtype for a in arrays), attrs
        )
        raise ValueError(
            f"{ops.spelled(op)} failed on tensors of shapes "
            f"{', '.join(str(a.shape) for a in arrays)} and dtypes "
            f"{', '.join(str(a.dtype) for a in arrays)}: {exc}"
        ) from exc
    if out.__class__ is not _ndarray:
        out = _asarray(out)
    node = None
    if dev.is_autodiff and op in ops.DIFFERENTIABLE and out.dtype.kind == "f":
        parents = tuple([t._node for t in inputs])
        if parents[0] is not None or parents[-1] is not None:
            node = autodiff.TapeNode(op, parents, arrays, out, attrs)
    return _real(out, dev, node)


def _run_kernel(
    kernels: Any, op: str, arrays: tuple[np.ndarray, ...], attrs: dict[str, Any]
) -> Any:
    kernel = getattr(kernels, op)
    if op in ops.REDUCTIONS:
        return kernel(arrays[0], attrs["axis"], attrs["keepdims"])
    if op == "reshape":
        return kernel(arrays[0], attrs["shape"])
    if op == "transpose":
        return kernel(arrays[0], attrs["axes"])
    if op == "astype":
        return kernel(arrays[0], attrs["dtype"])
    return kernel(*arrays)


# -- creation --------------------------------------------------------------------------------


def _target(dev: Device | str | None) -> Device:
    return NumPy() if dev is None else as_device(dev)


def from_array(array: np.ndarray, dev: Device) -> Tensor:
    """A tensor holding ``array`` on ``dev`` (a constant node on a capture device)."""
    if array.dtype not in ops.SUPPORTED_DTYPES:
        raise TypeError(
            f"dtype {array.dtype} is not supported; use float32, float64, int64, int32 or bool"
        )
    if dev._capture is not None:
        return _constant(array, dev, _birth())
    return _real(array, dev)


def _default_dtype(array: np.ndarray) -> np.ndarray:
    # Python floats default to float32 and ints to int64, as in PyTorch.
    kind = array.dtype.kind
    if kind == "f":
        return array.astype(np.float32)
    if kind in "iu":
        return array.astype(np.int64)
    if kind == "b":
        return array
    raise TypeError(f"tensor data must be numbers or bools, got {array.dtype} data")


def tensor(data: Any, device: Device | str | None = None, dtype: Any = None) -> Tensor:
    """A tensor from a number, nested lists, a NumPy array or a real tensor (copied).

    Python floats give float32 and ints int64; NumPy arrays keep their dtype.
    """
    dev = _target(device)
    wanted = None if dtype is None else ops.as_dtype(dtype)
    if isinstance(data, Tensor):
        data = data._read("dispatch.tensor(t)")
    try:
        if isinstance(data, (np.ndarray, np.generic)):
            array = np.array(data, dtype=wanted, copy=True)
        else:
            array = np.array(data)
            if array.dtype == object or array.dtype.kind in "USV":
                raise TypeError(
                    f"tensor data must be numbers or bools, got {data!r:.80}"
                )
            array = _default_dtype(array) if wanted is None else array.astype(wanted)
    except ValueError as exc:
        raise ValueError(
            f"tensor data is not a rectangular array of numbers: {exc}"
        ) from None
    return from_array(array, dev)


def from_numpy(array: np.ndarray, device: Device | str | None = None) -> Tensor:
    """A tensor over a NumPy array (no copy on a real device); the dtype is kept."""
    if not isinstance(array, (np.ndarray, np.generic)):
        raise TypeError(
            f"from_numpy() takes a numpy.ndarray, got {type(array).__name__}"
        )
    return from_array(np.asarray(array), _target(device))


def _filled(shape: Any, value: Any, device: Device | str | None, dtype: Any) -> Tensor:
    dims = ops.normalize_shape(shape)
    wanted = ops.as_dtype("float32" if dtype is None else dtype)
    return from_array(np.full(dims, value, dtype=wanted), _target(device))


def zeros(shape: Any, device: Device | str | None = None, dtype: Any = None) -> Tensor:
    """A tensor of zeros (float32 unless ``dtype`` says otherwise)."""
    return _filled(shape, 0, device, dtype)


def ones(shape: Any, device: Device | str | None = None, dtype: Any = None) -> Tensor:
    """A tensor of ones (float32 unless ``dtype`` says otherwise)."""
    return _filled(shape, 1, device, dtype)


def full(
    shape: Any, fill_value: Any, device: Device | str | None = None, dtype: Any = None
) -> Tensor:
    """A tensor filled with ``fill_value`` (float32 unless ``dtype`` says otherwise)."""
    if not isinstance(fill_value, (numbers.Number, np.generic)) or isinstance(
        fill_value, complex
    ):
        raise TypeError(f"full() takes a number as fill value, got {fill_value!r}")
    return _filled(shape, fill_value, device, dtype)


def arange(
    start: Any,
    stop: Any = None,
    step: Any = None,
    device: Device | str | None = None,
    dtype: Any = None,
) -> Tensor:
    """Evenly spaced values in [start, stop): int64 for int arguments, else float32."""
    bounds = [v for v in (start, stop, step) if v is not None]
    for v in bounds:
        if not isinstance(v, (numbers.Real, np.generic)):
            raise TypeError(f"arange() takes numbers, got {v!r}")
    if step is not None and step == 0:
        raise ValueError("arange() step must not be zero")
    if stop is None:
        start, stop = 0, start
    array = np.arange(start, stop, 1 if step is None else step)
    if dtype is None:
        array = _default_dtype(array)
    else:
        array = array.astype(ops.as_dtype(dtype))
    return from_array(array, _target(device))


def rand(
    shape: Any,
    seed: int | None = None,
    device: Device | str | None = None,
    dtype: Any = None,
) -> Tensor:
    """Uniform random values in [0, 1) (float32 unless ``dtype``); ``seed`` makes them fixed."""
    dims = ops.normalize_shape(shape)
    wanted = ops.as_dtype("float32" if dtype is None else dtype)
    if wanted.kind != "f":
        raise TypeError(f"rand() makes float tensors, got dtype {wanted}")
    array = np.random.default_rng(seed).random(dims).astype(wanted)
    return from_array(array, _target(device))


def placeholder(
    shape: Any,
    device: Device | str | None = None,
    name: str | None = None,
    dtype: Any = "float32",
) -> Tensor:
    """A named program input on a capture device (a fresh ``Capture()`` when none is given)."""
    dims = ops.normalize_shape(shape)
    wanted = ops.as_dtype(dtype)
    dev = Capture() if device is None else as_device(device)
    if dev._capture is None:
        raise ValueError(
            f"placeholder() needs a capture device (Capture() or Autodiff(Capture())), got "
            f"{dev!r}; create real data with dispatch.tensor/zeros instead"
        )
    graph = dev._capture.graph
    if name is None:
        name = graph.fresh_name()
    elif not isinstance(name, str) or not name:
        raise TypeError(f"placeholder name must be a non-empty string, got {name!r}")
    node = Node("input", (), MappingProxyType({"name": name}), dims, wanted)
    return _record(dev, node, _birth())


def lift(t: Tensor, target: Autodiff) -> Tensor:
    """``Autodiff(d).wrap(t)``: ``t`` (on ``d``) as an untracked tensor on ``Autodiff(d)``."""
    if not isinstance(t, Tensor):
        raise TypeError(f"wrap() takes a tensor, got {type(t).__name__}")
    if t._device == target:
        return t
    inner = target.inner
    if t._data is None:
        if t._device != inner:
            raise CaptureTransferError(
                f"{target!r}.wrap() was given {t._describe()}", t._origin
            )
        result = _new(Tensor)
        result._data = None
        result._device = target
        result._node = t._node
        result._origin = t._origin
        return result
    if t._device != inner:
        raise ValueError(
            f"{target!r}.wrap() takes a tensor on {inner!r}, got one on {t._device!r}"
        )
    return _real(t._data, target)


# -- the ops as functions (``dispatch.exp(t)`` as ``torch.exp(t)``) -----------------------------
# ``abs``, ``sum`` and ``max`` shadow the builtins from here on; nothing in this module uses
# the builtins, and users reach these as ``dispatch.sum`` only.


def exp(t: Tensor) -> Tensor:
    """``t.exp()``."""
    return t.exp()


def log(t: Tensor) -> Tensor:
    """``t.log()``."""
    return t.log()


def sqrt(t: Tensor) -> Tensor:
    """``t.sqrt()``."""
    return t.sqrt()


def tanh(t: Tensor) -> Tensor:
    """``t.tanh()``."""
    return t.tanh()


def sigmoid(t: Tensor) -> Tensor:
    """``t.sigmoid()``."""
    return t.sigmoid()


def relu(t: Tensor) -> Tensor:
    """``t.relu()``."""
    return t.relu()


def abs(t: Tensor) -> Tensor:
    """``t.abs()``."""
    return t.abs()


def sum(t: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``t.sum(axis, keepdims)``."""
    return t.sum(axis=axis, keepdims=keepdims)


def mean(t: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``t.mean(axis, keepdims)``."""
    return t.mean(axis=axis, keepdims=keepdims)


def max(t: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``t.max(axis, keepdims)``."""
    return t.max(axis=axis, keepdims=keepdims)


def matmul(a: Tensor, b: Any) -> Tensor:
    """``a @ b``."""
    return (
        _binary("matmul", a, b)
        if isinstance(a, Tensor)
        else _binary("matmul", b, a, True)
    )


def reshape(t: Tensor, *shape: Any) -> Tensor:
    """``t.reshape(*shape)``."""
    return t.reshape(*shape)


def transpose(t: Tensor, *axes: Any) -> Tensor:
    """``t.transpose(*axes)``."""
    return t.transpose(*axes)
