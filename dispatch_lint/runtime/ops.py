"""The operations of the runtime: their names, arity, and shape and dtype rules.

Capture tensors have no data, so every recorded node needs its shape and dtype computed from
its inputs' alone; eager operations use the same rules to turn a NumPy failure deep inside a
kernel into an error that names the operation and the offending shapes or dtypes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dispatch_lint.runtime.backends.numpy import KERNELS

__all__ = [
    "BINARY",
    "COMPARISONS",
    "DIFFERENTIABLE",
    "REDUCTIONS",
    "SUPPORTED_DTYPES",
    "SYMBOLS",
    "UNARY",
    "as_dtype",
    "infer",
    "normalize_axis",
    "normalize_shape",
    "reshape_target",
    "spelled",
    "transpose_axes",
]

UNARY = frozenset({"neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs"})
COMPARISONS = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})
BINARY = frozenset({"add", "sub", "mul", "div", "pow"}) | COMPARISONS
REDUCTIONS = frozenset({"sum", "mean", "max"})
#: Ops whose result carries a gradient (comparisons and casts to non-float do not).
DIFFERENTIABLE = (
    UNARY | BINARY | REDUCTIONS | {"matmul", "reshape", "transpose", "astype"}
) - (COMPARISONS)

#: How an op is spelled in user code, for error messages.
SYMBOLS = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "div": "/",
    "pow": "**",
    "matmul": "@",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
    "neg": "unary -",
}

#: The dtypes a tensor may have: what the kernels (NumPy and Numba) support.
SUPPORTED_DTYPES = frozenset(
    np.dtype(name)
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
    )
)


def spelled(op: str) -> str:
    """``'+'`` for ``add``, ``'exp'`` for ``exp``: how the user wrote the op."""
    return SYMBOLS.get(op, op)


def as_dtype(value: Any) -> np.dtype:
    """A supported ``numpy.dtype`` from a dtype, a name (``"float32"``) or a type."""
    try:
        dtype = np.dtype(value)
    except TypeError:
        raise TypeError(
            f"{value!r} is not a dtype; use one of float32, float64, int64, bool"
        ) from None
    if dtype not in SUPPORTED_DTYPES:
        raise TypeError(
            f"dtype {dtype} is not supported; use one of float32, float64, int64, int32, bool"
        )
    return dtype


def normalize_shape(shape: Any, what: str = "shape") -> tuple[int, ...]:
    """A shape tuple from an int or a sequence of non-negative ints."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        dims: tuple[Any, ...] = (shape,)
    elif isinstance(shape, (tuple, list)):
        dims = tuple(shape)
    else:
        raise TypeError(f"{what} must be an int or a tuple of ints, got {shape!r}")
    for dim in dims:
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            raise TypeError(f"{what} must contain only ints, got {shape!r}")
        if dim < 0:
            raise ValueError(f"{what} must not contain negative sizes, got {shape!r}")
    return tuple(int(d) for d in dims)


def normalize_axis(axis: Any, ndim: int, op: str) -> int | tuple[int, ...] | None:
    """``axis=`` of a reduction, checked against ``ndim`` and made non-negative."""
    if axis is None:
        return None
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    result = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(
                f"{op}(axis=...) takes an int or a tuple of ints, got {axis!r}"
            )
        if not -ndim <= a < ndim:
            raise ValueError(
                f"{op}(axis={axis!r}) is out of range for a tensor with {ndim} dims"
            )
        result.append(int(a) % ndim)
    if len(set(result)) != len(result):
        raise ValueError(f"{op}(axis={axis!r}) repeats an axis")
    if isinstance(axis, (tuple, list)):
        return tuple(result)
    return result[0]


def reshape_target(shape: tuple[int, ...], target: Any) -> tuple[int, ...]:
    """The concrete shape ``reshape(target)`` gives a tensor of ``shape`` (one -1 allowed)."""
    if isinstance(target, (int, np.integer)):
        target = (target,)
    if not isinstance(target, (tuple, list)) or not all(
        isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in target
    ):
        raise TypeError(f"reshape takes ints or a tuple of ints, got {target!r}")
    dims = [int(d) for d in target]
    size = int(np.prod(shape, dtype=np.int64))
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise ValueError(f"cannot reshape a tensor of shape {shape} to {tuple(dims)}")
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise ValueError(
                f"cannot reshape a tensor of shape {shape} to {tuple(dims)}"
            )
        dims[dims.index(-1)] = size // known
    if int(np.prod(dims, dtype=np.int64)) != size:
        raise ValueError(
            f"cannot reshape a tensor of shape {shape} (size {size}) to {tuple(dims)}"
        )
    return tuple(dims)


def transpose_axes(ndim: int, axes: tuple[Any, ...]) -> tuple[int, ...] | None:
    """A full permutation from ``transpose``'s arguments.

    No axes reverses the dims (NumPy's ``.T``); a full permutation is used as given (NumPy);
    two axes on a tensor with other than 2 dims swap those two (PyTorch's ``transpose``).
    """
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if not axes:
        return None
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"transpose takes ints, got {axes!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"transpose axis {a} is out of range for {ndim} dims")
    norm = [int(a) % ndim for a in axes]
    if len(norm) == 2 and ndim != 2:
        perm = list(range(ndim))
        perm[norm[0]], perm[norm[1]] = perm[norm[1]], perm[norm[0]]
        return tuple(perm)
    if sorted(norm) != list(range(ndim)):
        raise ValueError(
            f"transpose axes {axes!r} are not a permutation of {ndim} dims"
        )
    return tuple(norm)


def _probe_dtype(
    op: str, dtypes: tuple[np.dtype, ...], attrs: Mapping[str, Any]
) -> np.dtype:
    # The result dtype is whatever the reference kernel gives on one-element arrays of the
    # input dtypes: this follows NumPy's promotion exactly, including int / int -> float64.
    probes = [np.ones((), dtype=d) for d in dtypes]
    with np.errstate(all="ignore"):
        try:
            if op in REDUCTIONS:
                out = getattr(KERNELS, op)(probes[0], None, False)
            elif op == "astype":
                out = KERNELS.astype(probes[0], attrs["dtype"])
            elif op == "matmul":
                out = np.multiply(probes[0], probes[1])
            else:
                out = getattr(KERNELS, op)(*probes)
        except TypeError:
            names = " and ".join(str(d) for d in dtypes)
            raise TypeError(
                f"{spelled(op)} is not supported for dtype {names}"
            ) from None
    dtype = np.asarray(out).dtype
    if dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"{spelled(op)} on {dtypes} gives unsupported dtype {dtype}")
    return dtype


def _matmul_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    if not a or not b:
        raise ValueError(f"@ needs tensors with at least 1 dim, got shapes {a} and {b}")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(
            f"@ shapes {a} and {b} do not match: {a2[-1]} (last dim of the left) != "
            f"{b2[-2]} ({'the only' if len(b) == 1 else 'second-to-last'} dim of the right)"
        )
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise ValueError(
            f"@ batch dims of shapes {a} and {b} do not broadcast"
        ) from None
    shape = batch + (a2[-2], b2[-1])
    if len(a) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(b) == 1:
        shape = shape[:-1]
    return shape


def _reduced_shape(
    shape: tuple[int, ...], axis: Any, keepdims: bool
) -> tuple[int, ...]:
    axes = (
        set(range(len(shape)))
        if axis is None
        else set(axis if isinstance(axis, tuple) else (axis,))
    )
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def infer(
    op: str,
    shapes: tuple[tuple[int, ...], ...],
    dtypes: tuple[np.dtype, ...],
    attrs: Mapping[str, Any],
) -> tuple[tuple[int, ...], np.dtype]:
    """The result shape and dtype of ``op``; a ValueError/TypeError that names the problem.

    ``attrs`` must already be normalized (``axis`` non-negative, ``shape`` concrete).
    """
    if op in UNARY:
        return shapes[0], _probe_dtype(op, dtypes, attrs)
    if op in BINARY:
        try:
            shape = np.broadcast_shapes(shapes[0], shapes[1])
        except ValueError:
            raise ValueError(
                f"shapes {shapes[0]} and {shapes[1]} do not broadcast for {spelled(op)}"
            ) from None
        return tuple(shape), _probe_dtype(op, dtypes, attrs)
    if op == "matmul":
        shape = _matmul_shape(shapes[0], shapes[1])
        if np.dtype(bool) in dtypes:
            raise TypeError("@ is not supported for bool tensors")
        return shape, _probe_dtype(op, dtypes, attrs)
    if op in REDUCTIONS:
        axis = attrs.get("axis")
        shape = shapes[0]
        if op == "max":
            axes = (
                range(len(shape))
                if axis is None
                else (axis if isinstance(axis, tuple) else (axis,))
            )
            if any(shape[a] == 0 for a in axes):
                raise ValueError(f"max over an empty axis of a tensor of shape {shape}")
        return _reduced_shape(
            shape, axis, bool(attrs.get("keepdims", False))
        ), _probe_dtype(op, dtypes, attrs)
    if op == "reshape":
        return tuple(attrs["shape"]), dtypes[0]
    if op == "transpose":
        axes = attrs.get("axes")
        shape = shapes[0]
        if axes is None:
            return shape[::-1], dtypes[0]
        return tuple(shape[a] for a in axes), dtypes[0]
    if op == "astype":
        return shapes[0], as_dtype(attrs["dtype"])
    raise ValueError(f"unknown operation {op!r}")
