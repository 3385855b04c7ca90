"""Tensors: creation and dtypes, every op against NumPy, data reads, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import Tensor

DEVICES = [dispatch.NumPy(), dispatch.Numba(), dispatch.Autodiff(dispatch.NumPy())]


def test_default_dtypes_follow_pytorch() -> None:
    assert dispatch.tensor([1.0, 2.0]).dtype == "float32"
    assert dispatch.tensor([1, 2]).dtype == "int64"
    assert dispatch.tensor([True, False]).dtype == "bool"
    assert dispatch.tensor(np.array([1.0])).dtype == "float64"
    assert dispatch.from_numpy(np.array([1], dtype=np.int32)).dtype == "int32"
    for made in (
        dispatch.zeros((2, 3)),
        dispatch.ones(3),
        dispatch.full((2,), 7),
        dispatch.rand(4),
    ):
        assert made.dtype == "float32"
    assert (
        dispatch.arange(5).dtype == "int64"
        and dispatch.arange(0.0, 1.0, 0.25).dtype == "float32"
    )
    assert dispatch.tensor([1, 2], dtype="float64").dtype == "float64"
    assert Tensor([1.0], device="numba").device == dispatch.Numba()


def test_creation_values() -> None:
    assert dispatch.zeros((2, 2)).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert dispatch.full(2, 1.5, dtype="float64").tolist() == [1.5, 1.5]
    assert dispatch.arange(1, 7, 2).tolist() == [1, 3, 5]
    a, b = dispatch.rand((3,), seed=4), dispatch.rand((3,), seed=4)
    assert a.tolist() == b.tolist() and all(0 <= v < 1 for v in a.tolist())
    array = np.arange(3.0)
    assert dispatch.from_numpy(array).numpy() is array
    assert dispatch.tensor(array).numpy() is not array


def test_properties() -> None:
    t = dispatch.ones((2, 3), device="autodiff:numpy")
    assert t.shape == (2, 3) and t.ndim == 2 and len(t) == 2
    assert t.is_autodiff and not t.is_capture and not dispatch.is_capture(t)
    assert dispatch.is_capture(dispatch.placeholder((1,))) and not dispatch.is_capture(
        3
    )


BINARY = {
    "+": (lambda a, b: a + b, np.add),
    "-": (lambda a, b: a - b, np.subtract),
    "*": (lambda a, b: a * b, np.multiply),
    "/": (lambda a, b: a / b, np.true_divide),
    "**": (lambda a, b: a**b, np.power),
    "<": (lambda a, b: a < b, np.less),
    "<=": (lambda a, b: a <= b, np.less_equal),
    ">": (lambda a, b: a > b, np.greater),
    ">=": (lambda a, b: a >= b, np.greater_equal),
    "==": (lambda a, b: a == b, np.equal),
    "!=": (lambda a, b: a != b, np.not_equal),
}


@pytest.mark.parametrize("dev", DEVICES, ids=repr)
@pytest.mark.parametrize("symbol", sorted(BINARY))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_binary_ops_broadcast_like_numpy(
    symbol: str, dev: dispatch.Device, data: st.DataObject
) -> None:
    op, reference = BINARY[symbol]
    shapes = data.draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)
    )
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    a = data.draw(
        hnp.arrays(dtype, shapes.input_shapes[0], elements=st.floats(0.5, 2, width=32))
    )
    b = data.draw(
        hnp.arrays(dtype, shapes.input_shapes[1], elements=st.floats(0.5, 2, width=32))
    )
    result = op(dispatch.from_numpy(a, device=dev), dispatch.from_numpy(b, device=dev))
    expected = reference(a, b)
    assert result.device == dev and result.dtype == expected.dtype
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def test_scalars_mix_with_tensors_and_keep_the_tensor_dtype() -> None:
    t = dispatch.tensor([1.0, 2.0])
    assert (t + 1).dtype == "float32" and (2.0 * t).tolist() == [2.0, 4.0]
    assert (1.0 - t).tolist() == [0.0, -1.0] and (2.0 / t).tolist() == [2.0, 1.0]
    assert (2.0**t).tolist() == [2.0, 4.0]
    assert (dispatch.tensor([1, 2]) * 2).dtype == "int64"
    assert (dispatch.tensor([1, 2]) / 2).dtype == "float64"
    assert (np.array([1.0, 1.0], dtype=np.float32) + t).tolist() == [2.0, 3.0]
    assert (t > 1.5).dtype == "bool" and (t == 2.0).tolist() == [False, True]


def test_unary_reduction_and_shape_ops_match_numpy() -> None:
    x = np.array([[-1.5, 0.0, 2.0], [0.5, -0.25, 3.0]], dtype=np.float64)
    t = dispatch.from_numpy(x)
    with np.errstate(all="ignore"):
        checks = {
            "neg": ((-t).numpy(), -x),
            "exp": (t.exp().numpy(), np.exp(x)),
            "log": (t.abs().log().numpy(), np.log(np.abs(x))),
            "sqrt": (abs(t).sqrt().numpy(), np.sqrt(np.abs(x))),
            "tanh": (t.tanh().numpy(), np.tanh(x)),
            "sigmoid": (t.sigmoid().numpy(), 1 / (1 + np.exp(-x))),
            "relu": (t.relu().numpy(), np.maximum(x, 0)),
            "sum": (t.sum(axis=1).numpy(), x.sum(axis=1)),
            "mean": (t.mean(axis=(0, 1), keepdims=True).numpy(), x.mean(keepdims=True)),
            "max": (t.max(axis=-1).numpy(), x.max(axis=-1)),
            "reshape": (t.reshape(3, 2).numpy(), x.reshape(3, 2)),
            "T": (t.T.numpy(), x.T),
            "matmul": ((t @ t.T).numpy(), x @ x.T),
        }
    for name, (got, expected) in checks.items():
        np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=name)
    assert t.sum().shape == () and t.sum().item() == pytest.approx(x.sum())


def test_ops_as_functions_match_the_methods() -> None:
    t = dispatch.tensor([[1.0, -2.0], [3.0, 4.0]])
    for name in ("exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs"):
        expected = getattr(t.abs() if name in ("log", "sqrt") else t, name)().numpy()
        got = getattr(dispatch, name)(t.abs() if name in ("log", "sqrt") else t).numpy()
        np.testing.assert_array_equal(got, expected, err_msg=name)
    assert (
        dispatch.sum(t, axis=0).tolist() == [4.0, 2.0] and dispatch.max(t).item() == 4.0
    )
    assert dispatch.mean(t, axis=1, keepdims=True).tolist() == [[-0.5], [3.5]]
    assert dispatch.matmul(t, t).tolist() == (t @ t).tolist()
    assert dispatch.transpose(t).tolist() == t.T.tolist()
    assert dispatch.reshape(t, 4).tolist() == [1.0, -2.0, 3.0, 4.0]


def test_transpose_takes_a_permutation_or_two_axes_to_swap() -> None:
    x = dispatch.zeros((2, 3, 4))
    assert x.transpose(2, 0, 1).shape == (4, 2, 3)
    assert x.transpose((1, 0, 2)).shape == (3, 2, 4)
    assert x.transpose(0, 2).shape == (4, 3, 2)
    assert x.transpose().shape == (4, 3, 2)


def test_data_reads_on_real_tensors() -> None:
    t = dispatch.tensor([2.5])
    assert t.item() == 2.5 and float(t) == 2.5 and int(t) == 2 and bool(t)
    assert f"{t:.2f}" == "2.50" and format(t, "") == str(t)
    assert np.asarray(t).tolist() == [2.5]
    with pytest.raises(ValueError, match="ambiguous"):
        bool(dispatch.ones(2))
    with pytest.raises(ValueError, match="one element"):
        dispatch.ones(2).item()
    assert "tensor([2.5]" in repr(t) and "NumPy()" in repr(t)


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (
            lambda: dispatch.ones((2, 3)) + dispatch.ones(4),
            ValueError,
            r"\(2, 3\) and \(4,\) do not broadcast for \+",
        ),
        (lambda: dispatch.ones((2, 3)) @ dispatch.ones((2, 3)), ValueError, "@ shapes"),
        (lambda: dispatch.ones(3).sum(axis=1), ValueError, "out of range"),
        (lambda: dispatch.ones(6).reshape(4, 2), ValueError, "cannot reshape"),
        (lambda: dispatch.ones(6).transpose(1, 1), ValueError, "transpose"),
        (lambda: -dispatch.tensor([True]), TypeError, "not supported for dtype bool"),
        (lambda: dispatch.tensor([[1.0], [1.0, 2.0]]), ValueError, "rectangular"),
        (lambda: dispatch.tensor(["a"]), TypeError, "numbers"),
        (lambda: dispatch.tensor([1.0], dtype="complex64"), TypeError, "not supported"),
        (lambda: dispatch.tensor([1.0], dtype="floaty"), TypeError, "not a dtype"),
        (lambda: dispatch.zeros((2, -1)), ValueError, "negative"),
        (lambda: dispatch.zeros("big"), TypeError, "shape"),
        (lambda: dispatch.ones(2) + "a", TypeError, "unsupported operand"),
        (lambda: dispatch.ones(0).max(), ValueError, "empty"),
        (lambda: dispatch.tensor([2]) ** -1, ValueError, r"\*\* failed"),
    ],
)
def test_bad_input_is_a_clear_error(make, error: type, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=words):
        make()


def test_real_tensors_move_between_devices_with_their_data() -> None:
    t = dispatch.tensor([1.0, 2.0])
    moved = t.to_device(device="numba")
    assert moved.device == dispatch.Numba() and moved.tolist() == [1.0, 2.0]
    assert t.to_device(dispatch.NumPy()) is t
    x = dispatch.tensor([1.0, 2.0], device="autodiff:numpy").require_grad()
    y = x.to_device("autodiff:numba")
    assert y.device == dispatch.Autodiff(dispatch.Numba())
    assert x.grad((y * y).sum().backward()).tolist() == [2.0, 4.0]
