"""Reverse-mode gradients agree with central finite differences, in float64.

Every differentiable op is checked through ``loss = sum(op(x) * w)`` with a fixed random ``w``,
so the whole vector-Jacobian product is tested, not just its sum; broadcast shapes included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import Tensor

AD = dispatch.Autodiff(dispatch.NumPy())
EXAMPLES = settings(max_examples=25, deadline=None)


def check_gradients(
    fn: Callable[..., Tensor],
    *arrays: np.ndarray,
    rtol: float = 1e-5,
    atol: float = 1e-7,
) -> None:
    """Compare the autodiff gradient of ``sum(fn(*xs) * w)`` with central differences."""
    xs = [dispatch.tensor(a, device=AD, dtype="float64").require_grad() for a in arrays]
    out = fn(*xs)
    weights = np.random.default_rng(0).uniform(0.5, 1.5, size=out.shape)
    grads = (out * weights).sum().backward()

    def loss(values: Sequence[np.ndarray]) -> float:
        plain = [dispatch.tensor(v, dtype="float64") for v in values]
        return float((fn(*plain).numpy() * weights).sum())

    eps = 1e-6
    for i, array in enumerate(arrays):
        numeric = np.zeros_like(array, dtype=np.float64)
        for index in np.ndindex(array.shape):
            up = [a.astype(np.float64) for a in arrays]
            down = [a.astype(np.float64) for a in arrays]
            up[i][index] += eps
            down[i][index] -= eps
            numeric[index] = (loss(up) - loss(down)) / (2 * eps)
        analytic = xs[i].grad(grads)
        assert analytic is not None
        assert analytic.shape == array.shape
        assert analytic.device == dispatch.NumPy()
        np.testing.assert_allclose(analytic.numpy(), numeric, rtol=rtol, atol=atol)


def values(
    low: float, high: float, shape: st.SearchStrategy | tuple[int, ...]
) -> st.SearchStrategy:
    return hnp.arrays(np.float64, shape, elements=st.floats(low, high))


small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)
away_from_zero = st.floats(0.1, 2.0).flatmap(lambda v: st.sampled_from([v, -v]))

UNARY: dict[str, tuple[float, float]] = {
    "neg": (-2, 2),
    "exp": (-2, 2),
    "log": (0.2, 3),
    "sqrt": (0.2, 3),
    "tanh": (-2, 2),
    "sigmoid": (-3, 3),
}


@pytest.mark.parametrize("op", sorted(UNARY))
@EXAMPLES
@given(data=st.data())
def test_unary_gradients(op: str, data: st.DataObject) -> None:
    low, high = UNARY[op]
    x = data.draw(values(low, high, small_shapes))
    check_gradients(lambda t: getattr(t, op)() if op != "neg" else -t, x)


@pytest.mark.parametrize("op", ["relu", "abs"])
@EXAMPLES
@given(x=hnp.arrays(np.float64, small_shapes, elements=away_from_zero))
def test_kinked_unary_gradients_away_from_the_kink(op: str, x: np.ndarray) -> None:
    check_gradients(lambda t: getattr(t, op)(), x)


@pytest.mark.parametrize("op", ["relu", "abs"])
def test_subgradient_at_zero_is_zero(op: str) -> None:
    x = dispatch.tensor([0.0, 2.0, -2.0], device=AD, dtype="float64").require_grad()
    grads = getattr(x, op)().sum().backward()
    expected = [0.0, 1.0, 0.0] if op == "relu" else [0.0, 1.0, -1.0]
    assert x.grad(grads).tolist() == expected


BINARY: dict[str, tuple[tuple[float, float], tuple[float, float], Callable]] = {
    "add": ((-2, 2), (-2, 2), lambda a, b: a + b),
    "sub": ((-2, 2), (-2, 2), lambda a, b: a - b),
    "mul": ((-2, 2), (-2, 2), lambda a, b: a * b),
    "div": ((-2, 2), (0.5, 2), lambda a, b: a / b),
    "pow": ((0.5, 2), (-2, 2), lambda a, b: a**b),
}


@pytest.mark.parametrize("op", sorted(BINARY))
@EXAMPLES
@given(data=st.data())
def test_binary_gradients_with_broadcasting(op: str, data: st.DataObject) -> None:
    (a_range, b_range, fn) = BINARY[op]
    shapes = data.draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)
    )
    a = data.draw(values(*a_range, shapes.input_shapes[0]))
    b = data.draw(values(*b_range, shapes.input_shapes[1]))
    check_gradients(fn, a, b)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_scalar_operands_on_either_side(op: str) -> None:
    fn = BINARY[op][2]
    x = np.array([[0.7, 1.3], [1.9, 0.6]])
    check_gradients(lambda t: fn(t, 1.5), x)
    check_gradients(lambda t: fn(1.5, t), x)


@st.composite
def matmul_shapes(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    m, k, n, batch = (draw(st.integers(1, 3)) for _ in range(4))
    left = draw(st.sampled_from([(k,), (m, k), (batch, m, k), (1, m, k)]))
    right = draw(st.sampled_from([(k,), (k, n), (batch, k, n)]))
    return left, right


@EXAMPLES
@given(data=st.data())
def test_matmul_gradients_for_vectors_matrices_and_batches(data: st.DataObject) -> None:
    left, right = data.draw(matmul_shapes())
    a = data.draw(values(-2, 2, left))
    b = data.draw(values(-2, 2, right))
    check_gradients(lambda x, y: x @ y, a, b)
    check_gradients(lambda x, y: x.matmul(y), a, b)


@st.composite
def reduction_case(draw: st.DrawFn, unique: bool) -> tuple[np.ndarray, object, bool]:
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3))
    # Distinct values well apart for max: a finite difference across a tie is meaningless.
    elements = (
        st.integers(-30, 30).map(lambda v: v / 10) if unique else st.floats(-2, 2)
    )
    x = draw(hnp.arrays(np.float64, shape, elements=elements, unique=unique))
    axis = draw(
        st.none()
        | st.integers(-len(shape), len(shape) - 1)
        | hnp.valid_tuple_axes(len(shape), min_size=1)
    )
    return x, axis, draw(st.booleans())


@pytest.mark.parametrize("op", ["sum", "mean"])
@EXAMPLES
@given(case=reduction_case(unique=False))
def test_reduction_gradients_with_axis(
    op: str, case: tuple[np.ndarray, object, bool]
) -> None:
    x, axis, keepdims = case
    check_gradients(lambda t: getattr(t, op)(axis=axis, keepdims=keepdims), x)


@EXAMPLES
@given(case=reduction_case(unique=True))
def test_max_gradient_goes_to_the_maximum(
    case: tuple[np.ndarray, object, bool],
) -> None:
    x, axis, keepdims = case
    check_gradients(lambda t: t.max(axis=axis, keepdims=keepdims), x)


def test_max_gradient_is_split_among_ties() -> None:
    x = dispatch.tensor([3.0, 1.0, 3.0], device=AD, dtype="float64").require_grad()
    assert x.grad(x.max().backward()).tolist() == [0.5, 0.0, 0.5]


@EXAMPLES
@given(x=values(-2, 2, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)))
def test_reshape_and_transpose_gradients(x: np.ndarray) -> None:
    check_gradients(lambda t: t.reshape(-1), x)
    check_gradients(lambda t: t.reshape((x.size, 1)), x)
    check_gradients(lambda t: t.T, x)
    check_gradients(lambda t: t.transpose(), x)
    if x.ndim == 3:
        check_gradients(lambda t: t.transpose(1, 2, 0), x)
        check_gradients(lambda t: t.transpose(0, 2), x)


def test_gradient_accumulates_over_a_tensor_used_twice_and_a_chain() -> None:
    x = np.array([[0.3, -1.2, 0.8], [1.5, 0.2, -0.4]])
    w = np.array([[0.5], [-1.0], [2.0]])
    check_gradients(
        lambda a, b: ((a @ b).tanh() * a.sum(axis=1, keepdims=True)).sigmoid(), x, w
    )


def test_mixed_autodiff_and_plain_operand_is_tracked() -> None:
    x = dispatch.tensor([1.0, 2.0], device=AD).require_grad()
    plain = dispatch.tensor([3.0, 4.0])
    y = x * plain
    assert y.device == AD and y.is_autodiff
    grads = y.sum().backward()
    assert x.grad(grads).tolist() == [3.0, 4.0]


def test_gradients_keep_the_input_dtype_and_live_on_the_inner_device() -> None:
    x = dispatch.ones((2, 2), device=AD).require_grad()
    grads = (x * 3.0).sum().backward()
    g = x.grad(grads)
    assert g.dtype == "float32" and g.device == dispatch.NumPy() and not g.is_autodiff


def test_non_scalar_backward_seeds_with_ones() -> None:
    x = dispatch.tensor([1.0, 2.0], device=AD).require_grad()
    assert x.grad((x * x).backward()).tolist() == [2.0, 4.0]


def test_grad_of_a_tensor_not_required_is_none() -> None:
    x = dispatch.tensor([1.0, 2.0], device=AD).require_grad()
    c = dispatch.tensor([1.0, 1.0], device=AD)
    grads = (x * c).sum().backward()
    assert c.grad(grads) is None
    assert grads.get(x).tolist() == [1.0, 1.0]


def test_require_grad_makes_a_leaf_and_drops_history() -> None:
    w = dispatch.tensor([1.0, 2.0], device=AD).require_grad()
    for _ in range(3):
        grads = (w * w).sum().backward()
        # A training step: the update is tracked (mixes autodiff with a plain gradient) ...
        w = (w - w.grad(grads) * 0.25).require_grad()
    # ... and require_grad() cuts it, so each step differentiates only its own loss.
    grads = (w * w).sum().backward()
    assert w.tolist() == [0.125, 0.25]
    assert w.grad(grads).tolist() == [0.25, 0.5]
    h = (w * 2.0).require_grad()
    grads = (h * h).sum().backward()
    assert h.grad(grads).tolist() == [0.5, 1.0] and w.grad(grads) is None


def test_only_float_tensors_require_grad() -> None:
    with pytest.raises(TypeError, match="float"):
        dispatch.tensor([1, 2], device=AD).require_grad()


def test_inner_drops_tracking_and_wrap_lifts() -> None:
    x = dispatch.tensor([1.0, 2.0], device=AD).require_grad()
    inner = x.inner()
    assert inner.device == dispatch.NumPy() and not inner.is_autodiff
    lifted = AD.wrap(inner)
    assert lifted.device == AD and lifted.tolist() == [1.0, 2.0]
    assert AD.from_inner(inner).device == AD
    assert x.grad((lifted * x).sum().backward()).tolist() == [1.0, 2.0]
