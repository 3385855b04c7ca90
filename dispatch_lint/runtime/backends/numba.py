"""The Numba kernel table and the fused replay of captured programs on ``Numba()``.

Which kernel is compiled was decided by measuring against NumPy (issue 5; 2 cores):

- arithmetic, comparisons, ``neg abs relu sqrt``: ``numba.vectorize`` ufuncs (``cache=True``).
  They are real NumPy ufuncs, so they broadcast, and calling one costs what calling ``np.add``
  costs (0.8 us at 1k float32 elements; a ``DUFunc`` wrapper would cost 1.2 us, so the raw
  ``.ufunc`` is kept). Each is compiled the first time it is used, not at import.
- ``exp log tanh pow``: NumPy's ufuncs for eager ops (Numba's own ``math.exp`` calls scalar libm:
  ``exp`` of 4M float32, NumPy 1.8 ms, Numba 9.3 ms). A replay computes exp, log, tanh and
  sigmoid inside its fused kernels with the vectorised functions of ``fusion_math``.
- ``sigmoid``: the reference formula ``0.5 * (tanh(0.5 * x) + 1)`` with NumPy's ``tanh`` and a
  compiled tail, in one buffer.
- ``matmul``: NumPy's BLAS call (Numba's own ``np.dot`` needs SciPy, not a dependency, and a
  compiled loop is far slower than BLAS).
- ``sum mean max``: NumPy's. A compiled reduction along rows ran 4x slower than NumPy's
  pairwise SIMD sum (its sequential accumulator does not vectorize) and only 1.2x faster
  along columns, not worth a second code path.
- shape ops and casts move no arithmetic: NumPy's.

On bool arrays NumPy refuses ``-`` (``sub``, ``neg``) and takes ``sqrt`` in float16; a compiled
loop can neither raise nor return float16, so those three kernels hand booleans to NumPy.

``run_program`` is what ``Program.run(..., device=Numba())`` calls: see ``fusion``. Its
replays may differ from NumPy's results by the ulps ``fusion_math`` states.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

import numba
import numpy as np

from dispatch_lint.runtime import fusion
from dispatch_lint.runtime.backends.numpy import NumPyKernels

__all__ = ["KERNELS", "NumbaKernels", "run_program"]

Axis = int | tuple[int, ...] | None

# Loop signatures. NumPy picks the first loop its inputs cast to safely, so the order (narrow
# to wide) gives NumPy's result dtypes: int64 + float32 -> float64, bool + float32 -> float32.
_ARITHMETIC = [
    "int64(int64, int64)",
    "float32(float32, float32)",
    "float64(float64, float64)",
]
# bool + bool is "or", bool * bool is "and", as in NumPy.
_LOGICAL = ["boolean(boolean, boolean)", *_ARITHMETIC]
# Integers and booleans divide as float64, as in NumPy.
_DIVISION = [
    "float64(boolean, boolean)",
    "float32(float32, float32)",
    "float64(float64, float64)",
]
_COMPARISON = [
    "boolean(boolean, boolean)",
    "boolean(int64, int64)",
    "boolean(float32, float32)",
    "boolean(float64, float64)",
]
_SIGNED = ["int64(int64)", "float32(float32)", "float64(float64)"]
# abs and relu of a bool are the bool itself.
_UNSIGNED_OK = ["boolean(boolean)", *_SIGNED]
_FLOATING = ["float32(float32)", "float64(float64)"]


def _add(a, b):  # type: ignore[no-untyped-def]
    return a + b


def _sub(a, b):  # type: ignore[no-untyped-def]
    return a - b


def _mul(a, b):  # type: ignore[no-untyped-def]
    return a * b


def _div(a, b):  # type: ignore[no-untyped-def]
    return a / b


def _lt(a, b):  # type: ignore[no-untyped-def]
    return a < b


def _le(a, b):  # type: ignore[no-untyped-def]
    return a <= b


def _gt(a, b):  # type: ignore[no-untyped-def]
    return a > b


def _ge(a, b):  # type: ignore[no-untyped-def]
    return a >= b


def _eq(a, b):  # type: ignore[no-untyped-def]
    return a == b


def _ne(a, b):  # type: ignore[no-untyped-def]
    return a != b


def _neg(x):  # type: ignore[no-untyped-def]
    return -x


def _abs(x):  # type: ignore[no-untyped-def]
    return abs(x)


def _relu(x):  # type: ignore[no-untyped-def]
    # Like np.maximum(x, 0): NaN stays NaN ("x < 0" is False for NaN).
    return x if not (x < 0) else x - x


def _sqrt(x):  # type: ignore[no-untyped-def]
    return np.sqrt(x)


def _sigmoid_tail(t):  # type: ignore[no-untyped-def]
    half = t - t + 0.5  # 0.5 in t's own type, so float32 stays float32
    return half * (t + 1)


#: kernel name -> (scalar function, loop signatures) of the compiled element-wise kernels.
_COMPILED: dict[str, tuple[Callable[..., Any], list[str]]] = {
    "add": (_add, _LOGICAL),
    "sub": (_sub, _ARITHMETIC),
    "mul": (_mul, _LOGICAL),
    "div": (_div, _DIVISION),
    "lt": (_lt, _COMPARISON),
    "le": (_le, _COMPARISON),
    "gt": (_gt, _COMPARISON),
    "ge": (_ge, _COMPARISON),
    "eq": (_eq, _COMPARISON),
    "ne": (_ne, _COMPARISON),
    "neg": (_neg, _SIGNED),
    "abs": (_abs, _UNSIGNED_OK),
    "relu": (_relu, _UNSIGNED_OK),
    "sqrt": (_sqrt, _FLOATING),
    "sigmoid_tail": (_sigmoid_tail, _FLOATING),
}

_compile_lock = threading.Lock()
# NumPy's built-in dtypes are singletons: an identity test is the cheapest check.
_BOOL = np.dtype(np.bool_)


class _CompiledOnFirstUse:
    """A kernel-table attribute that compiles its ufunc on first access and then stores it in
    the instance ``__dict__``, which shadows this (non-data) descriptor from then on: later
    calls cost a plain attribute lookup, as on the NumPy table."""

    def __init__(self, kernel: str) -> None:
        self.kernel = kernel
        self.attribute = kernel

    def __set_name__(self, owner: type, attribute: str) -> None:
        self.attribute = attribute

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        with _compile_lock:
            kernel = instance.__dict__.get(self.attribute)
            if kernel is None:
                function, signatures = _COMPILED[self.kernel]
                kernel = numba.vectorize(signatures, cache=True)(function).ufunc
                instance.__dict__[self.attribute] = kernel
        return kernel


class NumbaKernels(NumPyKernels):
    """The ``Numba()`` kernel table: the NumPy table's names, compiled where that pays.

    Kernels not compiled (see the module docstring) are inherited from ``NumPyKernels``.
    """

    name = "numba"

    add = _CompiledOnFirstUse("add")
    _sub = _CompiledOnFirstUse("sub")
    mul = _CompiledOnFirstUse("mul")
    div = _CompiledOnFirstUse("div")
    lt = _CompiledOnFirstUse("lt")
    le = _CompiledOnFirstUse("le")
    gt = _CompiledOnFirstUse("gt")
    ge = _CompiledOnFirstUse("ge")
    eq = _CompiledOnFirstUse("eq")
    ne = _CompiledOnFirstUse("ne")
    _neg = _CompiledOnFirstUse("neg")
    abs = _CompiledOnFirstUse("abs")
    relu = _CompiledOnFirstUse("relu")  # type: ignore[assignment]
    _sqrt = _CompiledOnFirstUse("sqrt")
    sigmoid_tail = _CompiledOnFirstUse("sigmoid_tail")

    # Booleans go to NumPy: its TypeError for "-" on booleans, its float16 square root.
    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:  # type: ignore[override]
        """``a - b`` with broadcasting."""
        if a.dtype is _BOOL and b.dtype is _BOOL:
            return np.subtract(a, b)
        return self._sub(a, b)  # type: ignore[no-any-return]

    def neg(self, x: np.ndarray) -> np.ndarray:  # type: ignore[override]
        """``-x``."""
        if x.dtype is _BOOL:
            return np.negative(x)
        return self._neg(x)  # type: ignore[no-any-return]

    def sqrt(self, x: np.ndarray) -> np.ndarray:  # type: ignore[override]
        """The square root, in NumPy's result dtype."""
        if x.dtype is _BOOL:
            return np.sqrt(x)
        return self._sqrt(x)  # type: ignore[no-any-return]

    def sigmoid(self, x: np.ndarray) -> np.ndarray:  # type: ignore[override]
        """``0.5 * (tanh(0.5 * x) + 1)``: NumPy's SIMD tanh, then one compiled pass in place."""
        if x.dtype.kind != "f":
            return NumPyKernels.sigmoid(x)
        t = np.multiply(x, x.dtype.type(0.5))
        np.tanh(t, out=t)
        return self.sigmoid_tail(t, out=t)  # type: ignore[no-any-return]


KERNELS = NumbaKernels()


def run_program(program: Any, arrays: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Run a captured ``Program`` on ``Numba()``: planned once, fused, buffers reused.

    ``arrays`` are the program's inputs by name, already checked by ``Program.run`` against the
    placeholders' shapes and dtypes. Returns one new array per program output.
    """
    return fusion.run_conformed(program, arrays, KERNELS)
