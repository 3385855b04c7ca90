"""The ``Numba()`` kernel table computes what the NumPy reference table computes, op by op,
and eager tensors and gradients on ``Numba()`` equal those on ``NumPy()``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime.backends import kernels_for
from dispatch_lint.runtime.backends.numba import KERNELS as NUMBA
from dispatch_lint.runtime.backends.numpy import KERNELS as NUMPY

DTYPES = [np.bool_, np.int64, np.float32, np.float64]
BINARY = ["add", "sub", "mul", "div", "pow", "lt", "le", "gt", "ge", "eq", "ne"]
UNARY = ["neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs"]


def sample(dtype: type, shape: tuple[int, ...], seed: int) -> np.ndarray:
    values = np.random.default_rng(seed).standard_normal(shape) * 3
    if dtype is np.bool_:
        return values > 0
    return values.astype(dtype)


def same(expected: np.ndarray, actual: np.ndarray) -> None:
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6, equal_nan=True)


def outcome(kernel, *args):  # type: ignore[no-untyped-def]
    with np.errstate(all="ignore"):
        try:
            return kernel(*args)
        except (TypeError, ValueError) as error:
            return error


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("left, right", list(itertools.product(DTYPES, DTYPES)))
def test_binary_kernel_matches_numpy_with_broadcasting(
    op: str, left: type, right: type
) -> None:
    a, b = sample(left, (3, 4), 1), sample(right, (4,), 2)
    expected = outcome(getattr(NUMPY, op), a, b)
    actual = outcome(getattr(NUMBA, op), a, b)
    if isinstance(expected, Exception):
        assert type(actual) is type(expected)
        assert str(actual) == str(expected)
    else:
        same(expected, actual)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_kernel_matches_numpy(op: str, dtype: type) -> None:
    x = sample(dtype, (5, 3), 3)
    expected = outcome(getattr(NUMPY, op), x)
    actual = outcome(getattr(NUMBA, op), x)
    if isinstance(expected, Exception):
        assert type(actual) is type(expected)
        assert str(actual) == str(expected)
    else:
        same(expected, actual)


@pytest.mark.parametrize("op", ["sum", "mean", "max"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_kernel_matches_numpy(op: str, axis: object, keepdims: bool) -> None:
    x = sample(np.float32, (3, 4, 5), 4)
    same(getattr(NUMPY, op)(x, axis, keepdims), getattr(NUMBA, op)(x, axis, keepdims))


def test_matmul_shape_and_cast_kernels_match_numpy() -> None:
    a, b = sample(np.float32, (2, 3, 4), 5), sample(np.float32, (4, 6), 6)
    same(NUMPY.matmul(a, b), NUMBA.matmul(a, b))
    same(NUMPY.reshape(a, (6, 4)), NUMBA.reshape(a, (6, 4)))
    same(NUMPY.transpose(a, (2, 0, 1)), NUMBA.transpose(a, (2, 0, 1)))
    same(NUMPY.astype(a, np.dtype(np.int64)), NUMBA.astype(a, np.dtype(np.int64)))


def test_numba_device_runs_the_numba_kernel_table() -> None:
    assert kernels_for(dispatch.Numba()) is NUMBA


def test_eager_tensors_on_numba_equal_numpy() -> None:
    data = sample(np.float32, (4, 3), 7)
    results = []
    for device in (dispatch.NumPy(), dispatch.Numba()):
        x = dispatch.tensor(data, device=device)
        y = ((x * 2.0 + 1.0) / (x.abs() + 1.0)).relu() - x.sigmoid()
        results.append(((y @ x.T).sum(axis=0), (x > 0.5)))
    same(results[0][0].numpy(), results[1][0].numpy())
    same(results[0][1].numpy(), results[1][1].numpy())


def test_gradients_over_numba_equal_gradients_over_numpy() -> None:
    rng = np.random.default_rng(8)
    x_data = rng.standard_normal((8, 5)).astype(np.float32)
    w_data = rng.standard_normal((5, 3)).astype(np.float32)
    b_data = rng.standard_normal((3,)).astype(np.float32)
    grads = []
    for inner in (dispatch.NumPy(), dispatch.Numba()):
        device = dispatch.Autodiff(inner)
        x = dispatch.tensor(x_data, device=device)
        w = dispatch.tensor(w_data, device=device).require_grad()
        b = dispatch.tensor(b_data, device=device).require_grad()
        hidden = (x @ w + b).tanh()
        loss = ((hidden.sigmoid() - 0.5) ** 2).mean() + (hidden.relu() / 3.0).sum()
        found = loss.backward()
        gw, gb = w.grad(found), b.grad(found)
        assert gw is not None and gb is not None
        assert gw.device == inner
        grads.append((gw.numpy(), gb.numpy()))
    for expected, actual in zip(grads[0], grads[1]):
        same(expected, actual)
