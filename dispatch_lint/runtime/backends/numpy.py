"""The NumPy kernel table: the reference backend every other backend must agree with.

Element-wise kernels are the NumPy ufuncs themselves (class attributes, so calling one costs
no extra Python frame on the eager hot path).
"""

from __future__ import annotations

import numpy as np

__all__ = ["KERNELS", "NumPyKernels"]

Axis = int | tuple[int, ...] | None


#: Dtypes whose np.mean accumulates in the dtype itself (float16 accumulates in float32).
_SELF_ACCUMULATING = (np.dtype(np.float32), np.dtype(np.float64))


def _count(shape: tuple[int, ...], axis: int | tuple[int, ...]) -> int:
    count = 1
    for a in axis if isinstance(axis, tuple) else (axis,):
        count *= shape[a]
    return count


class NumPyKernels:
    """Kernels over ``numpy.ndarray``; binary kernels broadcast as NumPy does."""

    name = "numpy"

    neg = np.negative
    exp = np.exp
    log = np.log
    sqrt = np.sqrt
    tanh = np.tanh
    abs = np.abs

    add = np.add
    sub = np.subtract
    mul = np.multiply
    div = np.true_divide
    pow = np.power
    lt = np.less
    le = np.less_equal
    gt = np.greater
    ge = np.greater_equal
    eq = np.equal
    ne = np.not_equal
    matmul = np.matmul

    @staticmethod
    def sigmoid(x: np.ndarray) -> np.ndarray:
        # 1 / (1 + exp(-x)) overflows for large negative x; tanh form is stable everywhere.
        half = x.dtype.type(0.5) if x.dtype.kind == "f" else 0.5
        return half * (np.tanh(x * half) + 1)

    @staticmethod
    def relu(x: np.ndarray) -> np.ndarray:
        return np.maximum(x, x.dtype.type(0))

    @staticmethod
    def sum(x: np.ndarray, axis: Axis = None, keepdims: bool = False) -> np.ndarray:
        return np.asarray(np.sum(x, axis=axis, keepdims=keepdims))

    @staticmethod
    def mean(x: np.ndarray, axis: Axis = None, keepdims: bool = False) -> np.ndarray:
        if x.dtype in _SELF_ACCUMULATING:
            # What np.mean computes for these dtypes (the same sum, divided by the count),
            # without its Python-level argument handling: this sits on every training step.
            count = x.size if axis is None else _count(x.shape, axis)
            return np.asarray(
                np.true_divide(np.add.reduce(x, axis, None, None, keepdims), count)
            )
        return np.asarray(np.mean(x, axis=axis, keepdims=keepdims))

    @staticmethod
    def max(x: np.ndarray, axis: Axis = None, keepdims: bool = False) -> np.ndarray:
        return np.asarray(np.max(x, axis=axis, keepdims=keepdims))

    @staticmethod
    def reshape(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return np.reshape(x, shape)

    @staticmethod
    def transpose(x: np.ndarray, axes: tuple[int, ...] | None = None) -> np.ndarray:
        return np.transpose(x, axes)

    @staticmethod
    def astype(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        return np.asarray(x).astype(dtype)


KERNELS = NumPyKernels()
