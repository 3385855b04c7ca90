"""Fused replay on every core: large element-wise steps run in chunks on a thread pool, with
the single-threaded results bit for bit, from any number of calling threads."""

from __future__ import annotations

import threading
import time
import warnings
import weakref
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import fusion, fusion_codegen, fusion_threads
from dispatch_lint.runtime.backends.numba import KERNELS as NUMBA
from dispatch_lint.runtime.fusion_codegen import RangeKernel

# Large enough that the default plan chunks the element-wise steps over (ROWS, COLS).
ROWS, COLS = 4100, 260
assert ROWS * COLS >= fusion.CHUNK_THRESHOLD
RNG = np.random.default_rng(30)
INPUTS = {
    "x": (RNG.standard_normal((ROWS, COLS)) * 2).astype(np.float32),
    "y": (RNG.standard_normal((COLS,)) * 2).astype(np.float32),  # broadcast along rows
    "r": (RNG.standard_normal((ROWS, 1)) * 2).astype(np.float32),  # along columns
    "n": RNG.integers(-3, 4, size=(ROWS, COLS)).astype(np.int64),
}
UNSPLIT = {"chunk_threshold": 1 << 62, "parallel_work": 1 << 62}
# Odd, tiny chunks: many of them, the last one short (and range kernels on the team).
TINY = {"chunk_threshold": 1, "chunk_work": 3000, "parallel_work": 0}
TIMED_CHOICE = fusion_threads.HelperPolicy.__call__


@pytest.fixture(autouse=True, scope="module")
def helpers_always_join() -> Iterator[None]:
    """The replays here run on a pool of two helpers that always join (the policy would
    leave the caller alone where helpers time slower, as on a busy machine), and range
    kernels on a team of two helpers, in odd chunks (many, their edges off the blocks)."""
    pool = fusion_threads.ChunkPool(2)
    team = fusion_threads.Team(2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fusion_threads, "_pool", pool)
        patch.setattr(fusion_threads, "_team", team)
        patch.setattr(fusion_codegen, "CHUNK", 50_000 + 3)
        patch.setattr(fusion_threads.HelperPolicy, "__call__", lambda self: True)
        yield
    pool.close()
    team.close()


def placeholders(cap: dispatch.Device) -> dict[str, dispatch.Tensor]:
    return {
        name: dispatch.placeholder(
            value.shape, device=cap, name=name, dtype=value.dtype
        )
        for name, value in INPUTS.items()
    }


def run_plan(program: dispatch.Program, **options: int) -> list[np.ndarray]:
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA, **options)
    return plan.run({name: INPUTS[name] for name in program.inputs})


def assert_identical(expected: list[np.ndarray], actual: list[np.ndarray]) -> None:
    assert len(actual) == len(expected)
    for want, got in zip(expected, actual):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)  # bit for bit (NaN equals NaN)


UNARY = ["neg", "abs", "relu", "sqrt", "exp", "log", "tanh", "sigmoid"]
BINARY = ["__add__", "__sub__", "__mul__", "__truediv__", "__lt__", "__ge__"]


@st.composite
def programs(draw: st.DrawFn) -> dispatch.Program:
    """Element-wise chains over the inputs, with broadcasting, a reduction or a transpose."""
    cap = dispatch.Capture()
    pool = list(placeholders(cap).values())
    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "scalar", "other"]))
        a = draw(st.sampled_from(pool))
        if kind == "unary":
            op = draw(st.sampled_from(UNARY))
            pool.append(-a if op == "neg" else getattr(a, op)())
        elif kind in ("binary", "scalar"):
            b = draw(st.sampled_from(pool if kind == "binary" else [2.0, 0.5, 3]))
            if a.dtype == np.bool_ and not isinstance(b, float):
                continue  # NumPy refuses "-" on booleans; not what is tested here
            pool.append(getattr(a, draw(st.sampled_from(BINARY)))(b))
        elif a.shape == (ROWS, COLS) and a.dtype != np.bool_:
            # A reduction and a transpose between chunked runs.
            if draw(st.booleans()):
                pool.append(a.sum(axis=0))
            else:
                pool.append((a.T * 2.0).T)
    outputs = draw(st.lists(st.sampled_from(pool[len(INPUTS) :] or pool), max_size=2))
    return dispatch.export(*(outputs or [pool[-1]]))


@settings(
    max_examples=30,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(programs())
def test_chunked_replay_equals_single_threaded_replay_and_numpy(
    program: dispatch.Program,
) -> None:
    expected = run_plan(program, **UNSPLIT)
    assert_identical(expected, run_plan(program, **TINY))
    assert_identical(expected, run_plan(program))
    arrays = {name: INPUTS[name] for name in program.inputs}
    eager = program.run(arrays, device=dispatch.NumPy())
    replayed = program.run(arrays, device=dispatch.Numba())
    for want, got in zip(
        eager if isinstance(eager, tuple) else (eager,),
        replayed if isinstance(replayed, tuple) else (replayed,),
    ):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(
            got.numpy(), want.numpy(), rtol=2e-5, atol=1e-5, equal_nan=True
        )


def chain() -> dispatch.Program:
    cap = dispatch.Capture()
    p = placeholders(cap)
    x, y, r = p["x"], p["y"], p["r"]
    return dispatch.export((((x * 2.0 + y) * r).tanh() * x - y).exp() / (r.abs() + 1.0))


def test_a_chain_of_large_element_wise_steps_runs_as_one_chunked_run() -> None:
    program = chain()
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    # One loop kernel (y and r broadcast), chunked by rows.
    assert len(plan.steps) == 1
    assert plan.chunked_steps == 1
    assert plan.fused_kernels == 1


def test_a_chain_at_full_shape_runs_as_one_range_kernel_on_the_team() -> None:
    cap = dispatch.Capture()
    p = placeholders(cap)
    x, n = p["x"], p["n"]
    program = dispatch.export(((x * 2.0 + n).tanh() * x - n).exp().sqrt())
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA, **TINY)
    (step,) = plan.steps
    assert isinstance(step.ufunc, RangeKernel) and plan.chunked_steps == 0
    whole = fusion.plan_program(program.nodes, program.outputs, NUMBA, **UNSPLIT)
    assert_identical(whole.run(INPUTS), plan.run(INPUTS))


def test_without_helpers_a_chunked_run_computes_whole_arrays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    program = chain()
    expected = run_plan(program, **UNSPLIT)
    monkeypatch.setattr(fusion_threads, "_pool", fusion_threads.ChunkPool(0))
    assert_identical(expected, run_plan(program, **TINY))


def test_the_team_joins_from_the_work_of_a_kernel_not_its_size() -> None:
    size = 100_000
    cap = dispatch.Capture()
    x = dispatch.placeholder((size,), device=cap, name="x", dtype="float32")
    arithmetic = dispatch.export(x * 2.0 + 1.0)
    transcendental = dispatch.export(x.tanh().exp().sqrt().log())
    kernels = [
        fusion.plan_program(p.nodes, p.outputs, NUMBA).steps[0].ufunc
        for p in (arithmetic, transcendental)
    ]
    assert [size >= k.parallel_from for k in kernels] == [False, True]


def test_small_steps_are_not_chunked() -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((64, 64), device=cap, name="x", dtype="float32")
    program = dispatch.export((x * 2.0 + 1.0).tanh())
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    assert plan.chunked_steps == 0


def test_a_step_reading_a_transposed_workspace_buffer_runs_whole() -> None:
    # t's buffer is free once "t.T + t" has read it, so that step writes into it in place;
    # a chunk writing rows of it must not race chunks still reading its columns.
    cap = dispatch.Capture()
    x = dispatch.placeholder((600, 600), device=cap, name="x", dtype="float64")
    t = x.tanh()
    program = dispatch.export((t.T + t).exp())
    data = np.random.default_rng(31).standard_normal((600, 600))
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA, **TINY)
    whole = fusion.plan_program(program.nodes, program.outputs, NUMBA, **UNSPLIT)
    expected = np.exp(np.tanh(data).T + np.tanh(data))
    np.testing.assert_array_equal(plan.run({"x": data})[0], whole.run({"x": data})[0])
    np.testing.assert_allclose(plan.run({"x": data})[0], expected, rtol=1e-12)
    # tanh on the team; "(t.T + t).exp()" whole, as the ufunc of its kernel (t.T is not
    # contiguous), never in chunks.
    assert plan.chunked_steps == 0


def test_chunked_steps_raise_no_floating_point_warnings() -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((ROWS, COLS), device=cap, name="x", dtype="float32")
    program = dispatch.export((x * 1e30).exp().log() / (x - x))
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA, **TINY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (result,) = plan.run({"x": INPUTS["x"]})
    with np.errstate(all="ignore"):
        expected = np.log(np.exp(INPUTS["x"] * np.float32(1e30))) / (
            INPUTS["x"] - INPUTS["x"]
        )
    np.testing.assert_array_equal(result, expected)


def test_concurrent_runs_of_chunked_plans_stay_correct() -> None:
    program = chain()
    scales = [0.25, 0.5, 1.0, 2.0]
    inputs = [
        {"x": INPUTS["x"] * s, "y": INPUTS["y"], "r": INPUTS["r"]} for s in scales
    ]
    single = fusion.plan_program(program.nodes, program.outputs, NUMBA, **UNSPLIT)
    expected = [single.run(arrays)[0] for arrays in inputs]
    failures: list[str] = []

    def worker(index: int) -> None:
        for _ in range(6):
            got = program.run(inputs[index], device=dispatch.Numba()).numpy()
            if not np.array_equal(got, expected[index], equal_nan=True):
                failures.append(f"thread {index}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(scales))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# ---------------------------------------------------------------------------------------------
# The pool itself.


@pytest.mark.parametrize("helpers", [0, 1, 3])
def test_the_pool_runs_every_chunk_exactly_once(helpers: int) -> None:
    pool = fusion_threads.ChunkPool(helpers)
    counts = [0] * 50
    lock = threading.Lock()

    def work(chunk: int) -> None:
        with lock:
            counts[chunk] += 1

    for _ in range(20):
        pool.run(work, len(counts))
    pool.close()
    assert counts == [20] * 50


def test_helpers_run_chunks_under_the_plan_error_state() -> None:
    # Two chunks; the first one claimed waits until the other has started, so the caller
    # and the helper run one each.
    pool = fusion_threads.ChunkPool(1)
    started = [threading.Event(), threading.Event()]
    seen: dict[int, tuple[int, dict[str, str]]] = {}

    def work(chunk: int) -> None:
        started[chunk].set()
        assert started[1 - chunk].wait(timeout=30)
        seen[chunk] = (threading.get_ident(), np.geterr())

    with np.errstate(all="ignore"):
        pool.run(work, 2)
    pool.close()
    assert {ident for ident, _ in seen.values()} != {threading.get_ident()}
    for _, state in seen.values():
        assert set(state.values()) == {"ignore"}


def test_a_finished_task_keeps_no_array_alive() -> None:
    # An output kept alive by a helper would make the next run allocate fresh memory.
    pool = fusion_threads.ChunkPool(1)
    array = np.ones(1000)
    alive = weakref.ref(array)

    def work(chunk: int, array: np.ndarray = array) -> None:
        array[chunk] = 0

    pool.run(work, 10)
    del work, array
    deadline = time.monotonic() + 10
    while alive() is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    pool.close()
    assert alive() is None


def test_without_helping_the_caller_runs_every_chunk() -> None:
    pool = fusion_threads.ChunkPool(2)
    runners: set[int] = set()
    pool.run(lambda chunk: runners.add(threading.get_ident()), 40, helping=False)
    pool.close()
    assert runners == {threading.get_ident()}


def run_windows(
    policy: fusion_threads.HelperPolicy, seconds: dict[bool, float], windows: int
) -> list[bool]:
    """The way each of ``windows`` windows ran, when a run takes ``seconds[way]``."""
    ways = []
    for _ in range(windows):
        way = policy.joining
        ways.append(way)
        for _ in range(policy.window):
            policy.record(way, seconds[way])
    return ways


def test_the_policy_keeps_the_faster_way_and_retries_the_other_less_and_less() -> None:
    policy = fusion_threads.HelperPolicy(window=3, explore_every=3)
    policy.record(True, 50.0)  # the first run (helpers starting) is not counted
    ways = run_windows(policy, {True: 1.0, False: 2.0}, 12)
    # Timed both ways first, then helpers; alone again after 3 windows, then after 6.
    T, F = True, False
    assert ways == [T, F, T, T, F, T, T, T, T, T, T, F]
    # The machine gets busy: helpers now take longer, and the policy follows.
    ways = run_windows(policy, {True: 3.0, False: 2.0}, 12)
    assert ways[-4:].count(False) >= 3


def test_the_policy_retries_soon_at_first_then_less_and_less() -> None:
    policy = fusion_threads.HelperPolicy(window=1, max_wait=4)
    policy.record(True, 50.0)
    ways = run_windows(policy, {True: 1.0, False: 2.0}, 16)
    T, F = True, False
    # Waits of 1, 2 and 4 windows between retries, then at most 4.
    assert ways == [T, F, T, F, T, T, F, T, T, T, T, F, T, T, T, T]


def test_the_policy_times_runs_of_its_own_way_only() -> None:
    policy = fusion_threads.HelperPolicy(window=2)
    policy.record(True, 50.0)  # the first run: not counted
    policy.record(False, 9.0)  # started before a switch: not counted
    policy.record(True, 1.0)
    policy.record(True, 3.0)
    assert policy.costs == {True: 2.0}
    assert policy.joining is False


def test_plans_time_their_chunked_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fusion_threads.HelperPolicy, "__call__", TIMED_CHOICE)
    program = chain()
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    policy = plan.steps[0].policy  # type: ignore[union-attr]
    arrays = {name: INPUTS[name] for name in program.inputs}
    for _ in range(1 + 2 * policy.window):  # the first run is not counted
        plan.run(arrays)
    assert set(policy.costs) == {True, False}


def test_callers_on_several_threads_share_the_pool() -> None:
    pool = fusion_threads.ChunkPool(1)
    results: dict[int, list[int]] = {}

    def caller(number: int) -> None:
        seen: list[int] = []
        for _ in range(30):
            out = [0] * 16

            def work(chunk: int, out: list[int] = out) -> None:
                out[chunk] = chunk * number

            pool.run(work, len(out))
            seen.append(sum(out))
        results[number] = seen

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(1, 6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    pool.close()
    assert results == {n: [120 * n] * 30 for n in range(1, 6)}


def test_an_exception_in_a_chunk_reaches_the_caller() -> None:
    pool = fusion_threads.ChunkPool(1)

    def work(chunk: int) -> None:
        if chunk == 7:
            raise MemoryError("chunk 7")

    with pytest.raises(MemoryError, match="chunk 7"):
        pool.run(work, 12)
    pool.run(lambda chunk: None, 12)  # the pool still works
    pool.close()


def test_thread_count_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DISPATCH_LINT_THREADS", "3")
    assert fusion_threads.threads() == 3
    monkeypatch.setenv("DISPATCH_LINT_THREADS", "zero")
    with pytest.raises(ValueError, match="DISPATCH_LINT_THREADS"):
        fusion_threads.threads()
    monkeypatch.delenv("DISPATCH_LINT_THREADS")
    assert fusion_threads.threads() >= 1


# ---------------------------------------------------------------------------------------------
# The team of range kernels.


def test_a_range_kernel_runs_alone_while_its_policy_times_the_team_slower(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fusion_threads.HelperPolicy, "__call__", TIMED_CHOICE)
    team = fusion_threads.Team(1)
    monkeypatch.setattr(fusion_threads, "_team", team)
    cap = dispatch.Capture()
    x = dispatch.placeholder((ROWS, COLS), device=cap, name="x", dtype="float32")
    program = dispatch.export((x * 3.0 + 1.0).tanh())
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA, **TINY)
    kernel = plan.steps[0].ufunc
    posted: list[int] = []
    run = team.run
    monkeypatch.setattr(team, "run", lambda *a: posted.append(1) or run(*a))
    try:
        # As a busy machine times them: alone is faster.
        kernel.policy._started = True
        kernel.policy.costs = {True: 2.0, False: 1.0}
        kernel.policy.joining = False
        expected = plan.run(INPUTS)
        assert posted == [] and kernel.policy._samples  # timed alone
        kernel.policy.joining = True
        assert_identical(expected, plan.run(INPUTS))
        assert posted == [1]
    finally:
        team.close()


def test_a_closed_team_stops_its_helpers() -> None:
    team = fusion_threads.Team(2, spin_seconds=1e-4)
    threads = list(team._threads)
    team.close()
    for thread in threads:
        thread.join(timeout=10)
        assert not thread.is_alive()


@pytest.mark.parametrize("helpers", [0, 1, 3])
def test_a_range_kernel_computes_every_chunk_once_on_any_team(
    helpers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    team = fusion_threads.Team(helpers)
    monkeypatch.setattr(fusion_threads, "_team", team)
    cap = dispatch.Capture()
    x = dispatch.placeholder((ROWS, COLS), device=cap, name="x", dtype="float32")
    program = dispatch.export((x * 3.0 + 1.0).tanh())
    expected = fusion.plan_program(program.nodes, program.outputs, NUMBA, **UNSPLIT)
    shared = fusion.plan_program(program.nodes, program.outputs, NUMBA, **TINY)
    try:
        for _ in range(3):
            assert_identical(expected.run(INPUTS), shared.run(INPUTS))
    finally:
        team.close()


@pytest.mark.parametrize("chunk", [1, 7, 1000 + 7, 3 * 1024])
def test_a_range_kernel_gives_the_same_bits_in_chunks_of_any_size(chunk: int) -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((ROWS * COLS,), device=cap, name="x", dtype="float32")
    program = dispatch.export((x * 3.0 + 1.0).tanh().exp() * x)
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA, **UNSPLIT)
    (step,) = plan.steps
    data = INPUTS["x"].reshape(-1)
    expected = step.ufunc(data, np.empty_like(data))
    out = np.empty_like(data)
    counter = np.zeros(16, np.int64)
    # One caller claiming every chunk in turn; chunks off the blocks and the lines.
    assert step.ufunc.kernel(data, out, counter, chunk, 0, True) == 0
    assert counter[8] == counter[4] >= (len(data) - 16) // chunk  # 16: the head
    assert_identical([expected], [out])
