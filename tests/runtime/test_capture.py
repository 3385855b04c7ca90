"""Capture -> export -> run gives what eager execution gives; programs survive JSON."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import Tensor
from dispatch_lint.runtime.errors import CaptureDataError

X = np.linspace(-1.5, 1.5, 6).reshape(2, 3)
Y = np.array([0.5, -0.25, 2.0])
W = np.arange(9, dtype=np.float64).reshape(3, 3) / 10

Step = Callable[[Tensor, Tensor, Callable[[np.ndarray], Tensor]], Tensor]

# Each step maps a (2, 3) value to a (2, 3)-broadcastable value; ``y`` is the second input and
# ``const`` turns an array into a tensor on the current device (a constant when capturing).
STEPS: dict[str, Step] = {
    "tanh": lambda v, y, const: v.tanh(),
    "sigmoid": lambda v, y, const: v.sigmoid(),
    "relu": lambda v, y, const: v.relu(),
    "abs": lambda v, y, const: abs(v),
    "neg": lambda v, y, const: -v,
    "exp": lambda v, y, const: v.tanh().exp(),
    "log": lambda v, y, const: (v.abs() + 1.0).log(),
    "sqrt": lambda v, y, const: (v * v + 0.5).sqrt(),
    "add_input": lambda v, y, const: v + y,
    "rsub_scalar": lambda v, y, const: 2.0 - v,
    "mul_scalar": lambda v, y, const: v * 0.75,
    "div_input": lambda v, y, const: v / (y * y + 1.0),
    "rdiv": lambda v, y, const: 1.0 / (v.abs() + 1.0),
    "pow": lambda v, y, const: v**2,
    "sub_const": lambda v, y, const: v - const(W[:1]),
    "matmul_const": lambda v, y, const: (v + const(np.zeros((2, 3)))) @ const(W),
    "sum_keep": lambda v, y, const: v.sum(axis=0, keepdims=True),
    "mean_keep": lambda v, y, const: v.mean(axis=-1, keepdims=True),
    "max_keep": lambda v, y, const: v.max(axis=1, keepdims=True),
    "transpose_back": lambda v, y, const: v.T.transpose(),
    "reshape_back": lambda v, y, const: v.reshape(-1).reshape(v.shape),
    "compare": lambda v, y, const: (v > y).astype("float64") * v,
}


def run_chain(names: list[str], x: Tensor, y: Tensor, dev: dispatch.Device) -> Tensor:
    def const(array: np.ndarray) -> Tensor:
        return dispatch.tensor(array, dtype="float64").to_device(dev)

    v = x
    for name in names:
        v = STEPS[name](v, y, const)
    return v * 1.0 + x.sum() + y.max()


@settings(max_examples=40, deadline=None)
@given(names=st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=6))
def test_export_then_run_equals_eager(names: list[str]) -> None:
    eager = run_chain(
        names,
        dispatch.tensor(X, dtype="float64"),
        dispatch.tensor(Y, dtype="float64"),
        dispatch.NumPy(),
    )
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x", dtype="float64")
    y = dispatch.placeholder((3,), device=cap, name="y", dtype="float64")
    out = run_chain(names, x, y, cap)
    assert out.is_capture and out.shape == eager.shape and out.dtype == eager.dtype

    program = dispatch.export(out)
    result = program.run({"x": X, "y": Y})
    assert not result.is_capture and result.device == dispatch.NumPy()
    np.testing.assert_allclose(result.numpy(), eager.numpy(), rtol=1e-12, atol=1e-12)

    again = dispatch.Program.from_json(program.to_json()).run({"x": X, "y": Y})
    np.testing.assert_allclose(again.numpy(), eager.numpy(), rtol=1e-12, atol=1e-12)


def test_program_inputs_are_named_and_outputs_ordered() -> None:
    cap = dispatch.Capture()
    a = dispatch.placeholder((2,), device=cap, name="a")
    b = dispatch.placeholder((2,), device=cap, name="b")
    program = dispatch.export(a + b, a * b)
    assert list(program.inputs) == ["a", "b"]
    assert program.inputs["a"].shape == (2,) and program.inputs["a"].dtype == "float32"
    total, product = program.run({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    assert total.tolist() == [4.0, 6.0] and product.tolist() == [3.0, 8.0]


def test_export_keeps_only_what_the_outputs_need() -> None:
    cap = dispatch.Capture()
    a = dispatch.placeholder((2,), device=cap, name="a")
    b = dispatch.placeholder((2,), device=cap, name="b")
    unused = b.exp()
    program = dispatch.export(a * 2.0)
    assert list(program.inputs) == ["a"]
    assert unused.is_capture
    assert program.run({"a": [1.0, 2.0]}).tolist() == [2.0, 4.0]


def test_real_tensor_moved_onto_a_capture_device_is_a_constant() -> None:
    cap = dispatch.Capture()
    weight = dispatch.tensor([[1.0, 2.0], [3.0, 4.0]]).to_device(cap)
    assert weight.is_capture
    x = dispatch.placeholder((2,), device=cap, name="x")
    assert dispatch.replay(x @ weight, {"x": [1.0, 1.0]}).tolist() == [4.0, 6.0]


def test_replay_returns_one_tensor_or_a_tuple_on_the_requested_device() -> None:
    x = dispatch.placeholder((3,), name="x")
    inputs = {"x": np.array([1.0, 4.0, 9.0], dtype=np.float32)}
    one = dispatch.replay(x.sqrt(), inputs)
    assert isinstance(one, Tensor) and one.tolist() == [1.0, 2.0, 3.0]
    pair = dispatch.replay([x.sqrt(), x.sum()], inputs, device="autodiff:numpy")
    assert isinstance(pair, tuple) and len(pair) == 2
    assert pair[1].device == dispatch.Autodiff(dispatch.NumPy())
    assert pair[1].item() == 14.0


def test_run_on_autodiff_gives_trainable_tensors() -> None:
    x = dispatch.placeholder((2,), name="x")
    result = dispatch.export(x * 3.0).run(
        {"x": [1.0, 2.0]}, device=dispatch.Autodiff(dispatch.NumPy())
    )
    result.require_grad()
    assert result.grad((result * result).sum().backward()).tolist() == [6.0, 12.0]


def test_run_accepts_real_tensors_and_casts_lists() -> None:
    x = dispatch.placeholder((2,), name="x", dtype="float64")
    program = dispatch.export(x + 1.0)
    assert program.run(
        {"x": dispatch.tensor([1.0, 2.0], dtype="float64")}
    ).tolist() == [2.0, 3.0]
    assert program.run({"x": [1, 2]}).dtype == "float64"


def test_comparisons_give_bool_tensors_when_captured_and_eager() -> None:
    x = dispatch.placeholder((3,), name="x")
    captured = x > 0.5
    assert captured.dtype == "bool"
    out = dispatch.replay(captured, {"x": [0.0, 1.0, 0.5]})
    assert out.dtype == "bool" and out.tolist() == [False, True, False]


def test_json_round_trip_keeps_every_node() -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x", dtype="float64")
    k = dispatch.tensor([1, 2, 3]).to_device(cap)
    out = (x.sum(axis=(0,), keepdims=False) * k).reshape(3, 1).transpose().max(axis=1)
    program = dispatch.export(out, x.astype("int64"))
    text = program.to_json()
    data = json.loads(text)
    assert data["format_version"] == 1
    loaded = dispatch.Program.from_json(text)
    assert loaded == program and loaded.to_json() == text
    assert loaded != dispatch.export(out)
    assert [n.op for n in loaded.nodes] == [n.op for n in program.nodes]
    assert [n.shape for n in loaded.nodes] == [n.shape for n in program.nodes]
    first, second = loaded.run({"x": X})
    expected = (X.sum(axis=0) * np.array([1, 2, 3])).max()
    assert first.tolist() == [expected]
    assert second.dtype == "int64"


def test_json_of_another_format_version_is_a_clear_value_error() -> None:
    program = dispatch.export(dispatch.placeholder((1,), name="x") * 2.0)
    data = json.loads(program.to_json())
    data["format_version"] = 99
    with pytest.raises(ValueError, match="format_version 99"):
        dispatch.Program.from_json(json.dumps(data))
    with pytest.raises(ValueError, match="format_version"):
        dispatch.Program.from_json("{}")
    with pytest.raises(ValueError, match="invalid JSON"):
        dispatch.Program.from_json("not json")


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda d: d["nodes"][2].update(op="launch"), "unknown op 'launch'"),
        (lambda d: d["nodes"][2].update(inputs=[0]), "has 1 inputs, expected 2"),
        (lambda d: d["nodes"][2].update(inputs=[0, 5]), "refers to a later node"),
        (lambda d: d["nodes"][0].update(attrs={}), "lacks name"),
        (lambda d: d["nodes"][0].update(dtype="complex64"), "not supported"),
        (lambda d: d.update(outputs=[9]), "output refers to no node"),
        (lambda d: d.pop("nodes"), "malformed program JSON"),
    ],
)
def test_malformed_program_json_is_a_clear_value_error(edit, words: str) -> None:  # type: ignore[no-untyped-def]
    program = dispatch.export(dispatch.placeholder((1,), name="x") * 2.0)
    data = json.loads(program.to_json())
    edit(data)
    with pytest.raises((ValueError, TypeError), match=words):
        dispatch.Program.from_json(json.dumps(data))


@pytest.mark.parametrize(
    ("inputs", "error", "words"),
    [
        ({"x": [1.0, 2.0], "z": [1.0]}, ValueError, "unknown program input.*'z'"),
        ({}, ValueError, "missing program input.*'x'"),
        (
            {"x": [1.0, 2.0, 3.0]},
            ValueError,
            r"'x' has shape \(3,\); the placeholder is \(2,\)",
        ),
        ({"x": ["a", "b"]}, TypeError, "'x' has dtype <U1; the placeholder is float32"),
        ({"x": [[1.0], [2.0, 3.0]]}, ValueError, "'x' is not a rectangular array"),
        ({"x": 5.0}, ValueError, r"'x' has shape \(\); the placeholder is \(2,\)"),
    ],
)
def test_bad_program_inputs_name_the_problem(
    inputs: dict, error: type, words: str
) -> None:
    program = dispatch.export(dispatch.placeholder((2,), name="x") * 2.0)
    with pytest.raises(error, match=words):
        program.run(inputs)


def test_inputs_are_cast_within_their_kind_but_never_truncated() -> None:
    f = dispatch.placeholder((2,), name="f")
    i = dispatch.placeholder((2,), name="i", dtype="int64")
    assert dispatch.export(f).run({"f": np.ones(2)}).dtype == "float32"
    assert dispatch.export(f).run({"f": np.arange(2)}).tolist() == [0.0, 1.0]
    assert dispatch.export(i).run({"i": np.arange(2, dtype=np.int32)}).dtype == "int64"
    with pytest.raises(
        TypeError, match="'i' has dtype float64; the placeholder is int64"
    ):
        dispatch.export(i).run({"i": np.array([1.5, 2.0])})


def test_run_refuses_capture_inputs_and_capture_devices() -> None:
    x = dispatch.placeholder((2,), name="x")
    program = dispatch.export(x * 2.0)
    with pytest.raises(CaptureDataError):
        program.run({"x": dispatch.placeholder((2,))})
    with pytest.raises(ValueError, match="real device"):
        program.run({"x": [1.0, 2.0]}, device=dispatch.Capture())


def test_export_refuses_real_tensors_and_two_capture_devices() -> None:
    with pytest.raises(ValueError, match="capture tensors"):
        dispatch.export(dispatch.zeros(2))
    with pytest.raises(ValueError, match="one capture device"):
        dispatch.export(dispatch.placeholder((1,)), dispatch.placeholder((1,)))
    with pytest.raises(ValueError, match="at least one"):
        dispatch.export()


def test_a_failed_operation_leaves_the_graph_usable() -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4,\) do not broadcast"):
        x + dispatch.placeholder((4,), device=cap, name="bad")
    with pytest.raises(ValueError, match="@ shapes"):
        x @ x
    with pytest.raises(ValueError, match="out of range"):
        x.sum(axis=2)
    with pytest.raises(ValueError, match="cannot reshape"):
        x.reshape(4, 2)
    with pytest.raises(ValueError, match="do not broadcast"):
        x * np.ones(4)
    with pytest.raises(ValueError, match="@ needs tensors with at least 1 dim"):
        2.0 @ x
    recorded = len(cap.graph.nodes)
    assert recorded == 2  # the placeholders: no failed op left a node behind
    y = (x * 2.0).sum(axis=1)
    assert dispatch.replay(y, {"x": np.ones((2, 3), np.float32)}).tolist() == [6.0, 6.0]


def test_repr_of_a_capture_tensor_shows_device_shape_dtype_and_node_never_data() -> (
    None
):
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    text = repr(x)
    assert (
        "capture" in text and "'x'" in text and "(2, 3)" in text and "float32" in text
    )
    assert repr(cap) in text and repr(cap).startswith("Capture@test_capture.py:")
    e = x.exp()
    assert str(e) == repr(e) and "exp" in repr(e)
    assert f"{x}" == str(x) and len(x) == 2


def test_placeholders_need_a_capture_device_and_unique_names() -> None:
    with pytest.raises(ValueError, match="needs a capture device"):
        dispatch.placeholder((2,), device=dispatch.NumPy())
    cap = dispatch.Capture()
    dispatch.placeholder((2,), device=cap, name="x")
    with pytest.raises(ValueError, match="already has a placeholder named 'x'"):
        dispatch.placeholder((2,), device=cap, name="x")
    auto = dispatch.placeholder((2,), device=cap)
    assert auto.is_capture and dispatch.export(auto).inputs.keys() == {"input1"}


def test_exporting_the_same_outputs_again_reuses_the_program_and_its_caches() -> None:
    x = dispatch.placeholder((2,), name="x")
    y = (x * 2.0).exp()
    program = dispatch.export(y)
    assert dispatch.export(y) is program
    x.sum()  # the graph grows; the cut for y does not change
    assert dispatch.export(y) is program and dispatch.export(y, x) is not program
