"""Replaying captured programs on ``Numba()``: same results as NumPy, planned once, fused.

Compiles are kept few: the programs reuse the same shapes and constants, hypothesis runs a
fixed (derandomized) set of examples, and fused kernels land in Numba's disk cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import fusion, fusion_codegen, fusion_stream, fusion_threads
from dispatch_lint.runtime.backends.numba import KERNELS as NUMBA
from dispatch_lint.runtime.errors import DispatchError
from dispatch_lint.runtime.fusion_codegen import RangeKernel

RNG = np.random.default_rng(20)
INPUTS = {
    "x": (RNG.standard_normal((4, 5)) * 2).astype(np.float32),
    "y": (RNG.standard_normal((5,)) * 2).astype(np.float32),
    "n": RNG.integers(-3, 4, size=(4, 1)).astype(np.int64),
    "w": (RNG.standard_normal((5, 5))).astype(np.float64),
}


def placeholders(cap: dispatch.Device) -> list[dispatch.Tensor]:
    return [
        dispatch.placeholder(
            INPUTS[name].shape, device=cap, name=name, dtype=INPUTS[name].dtype
        )
        for name in INPUTS
    ]


def inputs_of(program: dispatch.Program) -> dict[str, np.ndarray]:
    return {name: INPUTS[name] for name in program.inputs}


def assert_same(expected: object, actual: object) -> None:
    expected_tensors = expected if isinstance(expected, tuple) else (expected,)
    actual_tensors = actual if isinstance(actual, tuple) else (actual,)
    assert len(actual_tensors) == len(expected_tensors)
    for want, got in zip(expected_tensors, actual_tensors):
        assert got.device == dispatch.Numba()
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        np.testing.assert_allclose(
            got.numpy(), want.numpy(), rtol=2e-5, atol=1e-5, equal_nan=True
        )


UNARY = ["neg", "abs", "relu", "sqrt", "exp", "log", "tanh", "sigmoid"]
BINARY = ["add", "sub", "mul", "div", "lt", "ge", "eq"]
SCALARS = [2.0, 0.5, 3]


def apply(op: str, a: dispatch.Tensor, b: object) -> dispatch.Tensor:
    if op == "neg":
        return -a
    if op in UNARY:
        return getattr(a, op)()
    if op == "pow":
        return a**b
    if op == "sum0":
        return a.sum(axis=0)
    if op == "mean_keep":
        return a.mean(axis=-1, keepdims=True)
    if op == "max":
        return a.max()
    if op == "matmul":
        return a @ b
    symbol = {
        "add": "__add__",
        "sub": "__sub__",
        "mul": "__mul__",
        "div": "__truediv__",
        "lt": "__lt__",
        "ge": "__ge__",
        "eq": "__eq__",
    }[op]
    return getattr(a, symbol)(b)


@st.composite
def programs(draw: st.DrawFn) -> dispatch.Program:
    cap = dispatch.Capture()
    pool = placeholders(cap)
    for _ in range(draw(st.integers(1, 10))):
        op = draw(
            st.sampled_from(
                [*UNARY, *BINARY, "pow", "sum0", "mean_keep", "max", "matmul"]
            )
        )
        a = draw(st.sampled_from(pool))
        if op == "pow":
            b: object = draw(st.sampled_from([2, 3]))
        elif op == "matmul":
            # w is (5, 5): a @ w works for every a whose last dimension is 5
            b = pool[3]
        else:
            b = draw(st.sampled_from([*pool, *SCALARS]))
        try:
            pool.append(apply(op, a, b))
        except (DispatchError, TypeError, ValueError):
            reject()  # an op the runtime refuses eagerly (shapes, bool arithmetic)
    outputs = draw(st.lists(st.sampled_from(pool[4:]), min_size=1, max_size=2))
    return dispatch.export(*outputs)


@settings(
    max_examples=50,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(programs())
def test_replay_on_numba_equals_numpy(program: dispatch.Program) -> None:
    arrays = inputs_of(program)
    expected = program.run(arrays, device=dispatch.NumPy())
    assert_same(expected, program.run(arrays, device=dispatch.Numba()))
    # The second run goes through the cached plan and the reused workspace.
    assert_same(expected, program.run(arrays, device=dispatch.Numba()))
    assert_generated_kernels_write_apart(program)


def assert_generated_kernels_write_apart(
    program: dispatch.Program, arrays: dict[str, np.ndarray] = INPUTS
) -> None:
    """Runs the program's plan step by step and checks that no generated kernel writes into
    memory it reads (Numba's loop would then run unvectorised)."""
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    values = list(plan._template)
    for index, name in plan._inputs:
        values[index] = arrays[name]
    workspace: list[np.ndarray | None] = [None] * plan._workspace_size
    with np.errstate(all="ignore"):
        for step in plan._flat_steps():
            if isinstance(step, fusion._UfuncStep) and step.fused:
                out = step.buffer(workspace)
                for argument in step.arguments:
                    assert not np.shares_memory(out, values[argument])
            step.execute(values, workspace)


def arithmetic_chain() -> dispatch.Program:
    cap = dispatch.Capture()
    x, y, n, _ = placeholders(cap)
    return dispatch.export(((x * 2.0 + y) * x - 3.0) / (y + 2.0) * x + y - n)


def transcendental_chain() -> dispatch.Program:
    cap = dispatch.Capture()
    x = placeholders(cap)[0]
    return dispatch.export(x.tanh().exp().sqrt().log())


def test_arithmetic_chain_runs_as_one_fused_kernel() -> None:
    program = arithmetic_chain()
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    assert len(plan.steps) == 1
    assert plan.fused_kernels == 1
    expected = program.run(inputs_of(program))
    assert_same(expected, program.run(inputs_of(program), device=dispatch.Numba()))


def test_a_transcendental_chain_runs_as_one_fused_kernel() -> None:
    program = transcendental_chain()
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    # tanh, exp, sqrt and log in one kernel, one pass, no workspace buffer.
    assert (len(plan.steps), plan.fused_kernels, len(plan.slots)) == (1, 1, 0)
    (step,) = plan.steps
    assert isinstance(step.ufunc, RangeKernel)
    assert_generated_kernels_write_apart(program)
    assert_same(
        program.run(inputs_of(program)), program.run(inputs_of(program), device="numba")
    )


def test_second_run_reuses_the_plan_and_compiles_nothing() -> None:
    program = arithmetic_chain()
    arrays = inputs_of(program)
    program.run(arrays, device=dispatch.Numba())
    before = fusion.stats()
    program.run(arrays, device=dispatch.Numba())
    after = fusion.stats()
    assert after.plans_built == before.plans_built
    assert after.plans_reused == before.plans_reused + 1
    assert after.kernels_compiled == before.kernels_compiled


def test_the_same_chain_in_a_new_program_reuses_the_compiled_kernel() -> None:
    arithmetic_chain().run(inputs_of(arithmetic_chain()), device=dispatch.Numba())
    before = fusion.stats()
    program = arithmetic_chain()
    program.run(inputs_of(program), device=dispatch.Numba())
    after = fusion.stats()
    assert after.plans_built == before.plans_built + 1
    assert after.kernels_compiled == before.kernels_compiled
    assert after.kernels_reused == before.kernels_reused + 1


def test_results_of_one_run_are_not_overwritten_by_the_next() -> None:
    program = transcendental_chain()
    first = program.run({"x": INPUTS["x"]}, device=dispatch.Numba()).numpy().copy()
    kept = program.run({"x": INPUTS["x"]}, device=dispatch.Numba())
    program.run({"x": INPUTS["x"] * 0.5}, device=dispatch.Numba())
    np.testing.assert_array_equal(kept.numpy(), first)


def test_an_intermediate_that_is_also_an_output_is_kept() -> None:
    cap = dispatch.Capture()
    x, y, _, _ = placeholders(cap)
    shared = x * y + 1.0
    program = dispatch.export(shared, (shared * shared - x).relu(), (shared > 0.0))
    arrays = inputs_of(program)
    assert_same(program.run(arrays), program.run(arrays, device=dispatch.Numba()))


def test_threads_running_one_program_get_their_own_results() -> None:
    program = transcendental_chain()
    scales = [0.25, 0.5, 1.0, 2.0]
    numba = dispatch.Numba()
    expected = [
        program.run({"x": INPUTS["x"] * s}, device=numba).numpy() for s in scales
    ]
    failures: list[str] = []

    def worker(index: int) -> None:
        for _ in range(20):
            got = program.run(
                {"x": INPUTS["x"] * scales[index]}, device=dispatch.Numba()
            )
            if not np.array_equal(got.numpy(), expected[index], equal_nan=True):
                failures.append(f"thread {index}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(scales))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_and_pow_fuse_with_their_arithmetic_neighbours(dtype: str) -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 5), device=cap, name="x", dtype=dtype)
    program = dispatch.export(((x * 3.0) ** 2).sigmoid() * 2.0 - 1.0)
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    # x*3, **2, the sigmoid, *2 and -1: one kernel.
    assert (len(plan.steps), plan.fused_kernels) == (1, 1)
    arrays = {"x": INPUTS["x"].astype(dtype)}
    assert_same(program.run(arrays), program.run(arrays, device=dispatch.Numba()))


def test_a_buffer_read_inside_a_fused_group_lives_until_the_group_runs() -> None:
    # v is read by "v * 2", which only runs as part of the group rooted at "... + b";
    # exp(x) runs in between and must not take v's buffer.
    cap = dispatch.Capture()
    x, y, _, _ = placeholders(cap)
    v = x * y + 1.0
    squashed = v.tanh()
    doubled = v * 2.0
    b = x.exp()
    program = dispatch.export(doubled + b, squashed)
    arrays = inputs_of(program)
    assert_same(program.run(arrays), program.run(arrays, device=dispatch.Numba()))


def kernel_kinds(plan: fusion.ProgramPlan) -> list[str]:
    """What each generated kernel of a plan is: "range", "loop" or "ufunc"."""
    return [
        "range"
        if isinstance(step.ufunc, RangeKernel)
        else "ufunc"
        if isinstance(step.ufunc, np.ufunc)
        else "loop"
        for step in plan._flat_steps()
        if isinstance(step, fusion._UfuncStep) and step.fused
    ]


@pytest.mark.parametrize(
    ("name", "shape"),
    [("row", (5,)), ("row2d", (1, 5)), ("column", (4, 1)), ("one", (1,))],
)
def test_a_2d_group_with_a_broadcast_argument_runs_as_a_loop_kernel(
    name: str, shape: tuple[int, ...]
) -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 5), device=cap, name="x", dtype="float32")
    b = dispatch.placeholder(shape, device=cap, name=name, dtype="float32")
    w = dispatch.placeholder((5, 5), device=cap, name="w", dtype="float32")
    # A bias add after a matmul, fused with the tanh and the rest reading the same bias;
    # and a lone bias add.
    program = dispatch.export(((x @ w + b).tanh() * 2.0 - b) / b, x @ w + b)
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    assert kernel_kinds(plan) == ["loop", "loop"]
    rng = np.random.default_rng(7)
    arrays = {
        "x": rng.standard_normal((4, 5)).astype(np.float32),
        "w": rng.standard_normal((5, 5)).astype(np.float32),
        # zeros: the loop divides as NumPy does (inf and nan, no ZeroDivisionError)
        name: np.where(rng.random(shape) < 0.3, 0, rng.standard_normal(shape)).astype(
            np.float32
        ),
    }
    assert_same(program.run(arrays), program.run(arrays, device=dispatch.Numba()))
    assert_generated_kernels_write_apart(program, arrays)


def test_groups_at_full_shape_and_beyond_2d_stay_ufuncs() -> None:
    cap = dispatch.Capture()
    x, y, _, _ = placeholders(cap)
    cube = dispatch.placeholder((2, 4, 5), device=cap, name="c", dtype="float32")
    program = dispatch.export(x * 2.0 + x, cube * 2.0 + y)
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    # full shape: a range kernel; broadcast beyond 2-d: a ufunc.
    assert kernel_kinds(plan) == ["range", "ufunc"]


def test_a_large_result_is_reused_only_once_nothing_holds_it() -> None:
    size = fusion.RECYCLE_BYTES // 4
    cap = dispatch.Capture()
    x = dispatch.placeholder((size,), device=cap, name="x", dtype="float32")
    program = dispatch.export(x * 2.0 + 1.0)
    numba = dispatch.Numba()

    def run(value: float) -> dispatch.Tensor:
        result = program.run({"x": np.full(size, value, np.float32)}, device=numba)
        assert isinstance(result, dispatch.Tensor)
        return result

    def address(tensor: dispatch.Tensor) -> int:
        return int(tensor.numpy().ctypes.data)

    first = run(1.0)
    kept = address(first)
    second = run(2.0)  # ``first`` is held: a new array
    assert address(second) != kept
    assert (first.numpy() == 3.0).all() and (second.numpy() == 5.0).all()
    kept = address(second)
    del first, second
    third = run(3.0)  # nothing holds the last array: it is written again
    assert address(third) == kept and (third.numpy() == 7.0).all()
    view, exported = third.numpy()[1:], memoryview(third.numpy())
    del third
    fourth = run(4.0)  # a view and a buffer export hold it
    assert address(fourth) != kept
    assert (view == 7.0).all() and exported[0] == 7.0 and (fourth.numpy() == 9.0).all()


def _stream_plan(
    dtype: str, shape: tuple[int, ...], hidden_output: bool = False
) -> tuple[dispatch.Program, fusion.ProgramPlan]:
    cap = dispatch.Capture()
    x = dispatch.placeholder(shape, device=cap, name="x", dtype=dtype)
    y = dispatch.placeholder(shape, device=cap, name="y", dtype=dtype)
    if (
        hidden_output
    ):  # an intermediate that is also an output: read again, never streamed
        hidden = x * 2.0 + y
        program = dispatch.export(
            ((hidden * x - 3.0) / (y + 2.0)) * x + y, hidden.tanh()
        )
    else:
        program = dispatch.export(((x * 2.0 + y) * x - 3.0) / (y + 2.0) * x + y)
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA, stream_bytes=0)
    return program, plan


@pytest.mark.skipif(not fusion_stream.AVAILABLE, reason="streaming stores are x86-64's")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_large_fused_output_is_streamed_with_the_same_bits(dtype: str) -> None:
    block = fusion_stream.BLOCK
    _, plan = _stream_plan(dtype, (3 * block + 21,))
    assert plan.streamed_kernels == 1
    step = next(
        s for s in plan._flat_steps() if isinstance(s, fusion._UfuncStep) and s.streamed
    )
    names = dict(plan._inputs)
    assert [names[i] for i in step.arguments] == ["x", "y"]
    rng = np.random.default_rng(11)
    for length in (1, 15, block - 1, block, block + 17, 3 * block + 21):
        x = rng.standard_normal(length).astype(dtype)
        y = np.where(rng.random(length) < 0.1, -2.0, rng.random(length) + 1).astype(
            dtype
        )
        with np.errstate(all="ignore"):
            expected = ((x * 2.0 + y) * x - 3.0) / (y + 2.0) * x + y
        # Outputs that start on a cache line, 4 bytes after one, and off the element grid
        # (the streamed part starts at the next 64-byte boundary, or nowhere).
        size = np.dtype(dtype).itemsize
        raw = np.empty(length * size + 2 * fusion_stream.ALIGNMENT, np.uint8)
        base = -raw.ctypes.data % fusion_stream.ALIGNMENT
        for offset in (0, 4, 1):
            out = raw[base + offset : base + offset + length * size].view(dtype)
            assert step.ufunc(x, y, out) is out
            np.testing.assert_array_equal(out, expected)
    # Non-contiguous arguments take the ufunc instead.
    wide = rng.standard_normal(2 * block).astype(dtype)
    out = np.empty(block, dtype)
    step.ufunc(wide[::2], wide[1::2], out)
    np.testing.assert_array_equal(
        out,
        ((wide[::2] * 2.0 + wide[1::2]) * wide[::2] - 3.0)
        / (wide[1::2] + 2.0)
        * wide[::2]
        + wide[1::2],
    )


@pytest.mark.skipif(not fusion_stream.AVAILABLE, reason="streaming stores are x86-64's")
def test_a_streamed_program_replays_as_unstreamed_also_on_every_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    program, plan = _stream_plan("float32", (40, 1000), hidden_output=True)
    assert plan.streamed_kernels == 2  # the chain and the tanh; not the shared value
    rng = np.random.default_rng(12)
    arrays = {
        "x": rng.standard_normal((40, 1000)).astype(np.float32),
        "y": (rng.random((40, 1000)) + 1).astype(np.float32),
    }
    unstreamed = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    assert unstreamed.streamed_kernels == 0
    expected = unstreamed.run(arrays)
    # Odd chunks on a team of two helpers: many chunks, their edges off the blocks.
    monkeypatch.setattr(fusion_codegen, "CHUNK", 10_000 + 7)
    monkeypatch.setattr(fusion_threads, "_team", fusion_threads.Team(2))
    shared = fusion.plan_program(
        program.nodes, program.outputs, NUMBA, stream_bytes=0, parallel_work=0
    )
    for planned in (plan, shared):
        for want, got in zip(expected, planned.run(arrays)):
            np.testing.assert_array_equal(got, want)
    fusion_threads.team().close()
    eager = program.run(arrays, device=dispatch.NumPy())
    for want, got in zip(eager, expected):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def test_small_results_and_broadcast_groups_are_not_streamed() -> None:
    program = arithmetic_chain()  # y broadcasts over x's rows
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA, stream_bytes=0)
    assert plan.streamed_kernels == 0
    program, _ = _stream_plan("float32", (1000,), hidden_output=True)
    default = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    assert default.streamed_kernels == 0


def test_without_numba_compiling_nothing_is_streamed() -> None:
    # NUMBA_DISABLE_JIT runs kernels as Python, where the intrinsics of streaming stores,
    # of the team's atomics and of fusion_math do not exist.
    script = (
        "import numpy as np\n"
        "from dispatch_lint import runtime as dispatch\n"
        "from dispatch_lint.runtime import fusion\n"
        "from dispatch_lint.runtime.backends.numba import KERNELS\n"
        "cap = dispatch.Capture()\n"
        "x = dispatch.placeholder((100,), device=cap, name='x', dtype='float32')\n"
        "program = dispatch.export((x * 2.0 + x) * x, (x * 0.01).tanh().exp().log())\n"
        "plan = fusion.plan_program(program.nodes, program.outputs, KERNELS, stream_bytes=0)\n"
        "xs = np.arange(100, dtype=np.float32)\n"
        "assert plan.streamed_kernels == 0\n"
        "arithmetic, transcendental = plan.run({'x': xs})\n"
        "assert np.array_equal(arithmetic, (xs * 2.0 + xs) * xs)\n"
        "assert np.allclose(transcendental, np.tanh(xs * 0.01), rtol=1e-6, atol=1e-7)\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
