"""Runtime benchmark (issue 5): fused replay on Numba(), eager dispatch cost, guard overhead.

Every figure is a ratio against a baseline measured in the same run: the cases of one table
row are timed in turn, round after round (interleaved, so a noisy neighbour hits them alike),
and the median of the rounds is kept. The first run of each program on ``Numba()`` (planning
plus compiling, into a fresh kernel cache) is timed separately and never mixed in, and the
next few runs, in which the plan learns whether helper threads pay, are not timed.

    python benchmarks/runtime_bench.py           # sizes 1e4..4e6, float32 and float64
    python benchmarks/runtime_bench.py --quick   # fewer sizes and rounds

Prints the issue's goals next to the measured figures (PASS/MISS); asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

# One BLAS thread: on a small shared machine, BLAS threads spinning for a core turn a 0.1 ms
# matmul into 15 ms of noise. Eager and replay run the same BLAS, so the ratios are fair.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np

Case = Callable[[], object]


def interleaved(cases: dict[str, Case], rounds: int) -> dict[str, float]:
    """Median seconds per call of each case, timing the cases in turn for ``rounds`` rounds.

    Fast cases are timed in batches (calibrated to about 2 ms) so the clock's resolution and
    the loop itself do not dominate. Each round times the cases in a new (seeded) order.
    """
    batch = {}
    for name, case in cases.items():
        case()  # warm: first-call costs are measured elsewhere
        start = time.perf_counter()
        case()
        once = max(time.perf_counter() - start, 1e-7)
        batch[name] = max(1, min(10_000, int(2e-3 / once)))
    samples: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    shuffle = random.Random(0).shuffle
    for _ in range(rounds):
        # A new order every round: a case timed right after a large eager run finds its
        # inputs evicted from the cache (4M float32: about 0.3 ms more), and each case
        # should follow each other case as often as the others do.
        shuffle(names)
        for name in names:
            case, count = cases[name], batch[name]
            start = time.perf_counter()
            for _ in range(count):
                case()
            samples[name].append((time.perf_counter() - start) / count)
    return {name: statistics.median(values) for name, values in samples.items()}


# ---------------------------------------------------------------------------------------------
# The benchmark programs: each as a captured program and as the same NumPy code, eagerly.


@dataclass(frozen=True)
class Workload:
    program: object  # dispatch.Program
    inputs: dict[str, np.ndarray]
    eager: Case  # the same computation in plain NumPy, one temporary per operation
    floor: Case  # the least work any plan must do (one pass, or the matmuls alone)


def arithmetic_chain(dispatch, size: int, dtype: str) -> Workload:  # type: ignore[no-untyped-def]
    """Eight element-wise arithmetic operations on two inputs."""
    cap = dispatch.Capture()
    x = dispatch.placeholder((size,), device=cap, name="x", dtype=dtype)
    y = dispatch.placeholder((size,), device=cap, name="y", dtype=dtype)
    program = dispatch.export(((x * 2.0 + y) * x - 3.0) / (y + 2.0) * x + y)
    rng = np.random.default_rng(0)
    xs = rng.random(size).astype(dtype)
    ys = (rng.random(size) + 1).astype(dtype)
    out = np.empty(size, dtype)
    return Workload(
        program,
        {"x": xs, "y": ys},
        lambda: ((xs * 2.0 + ys) * xs - 3.0) / (ys + 2.0) * xs + ys,
        lambda: np.add(xs, ys, out=out),
    )


def transcendental_chain(dispatch, size: int, dtype: str) -> Workload:  # type: ignore[no-untyped-def]
    """tanh, exp, sqrt, log one after the other."""
    cap = dispatch.Capture()
    x = dispatch.placeholder((size,), device=cap, name="x", dtype=dtype)
    program = dispatch.export(x.tanh().exp().sqrt().log())
    xs = np.random.default_rng(1).standard_normal(size).astype(dtype)
    out = np.empty(size, dtype)
    return Workload(
        program,
        {"x": xs},
        lambda: np.log(np.sqrt(np.exp(np.tanh(xs)))),
        lambda: np.negative(xs, out=out),
    )


def mlp_forward(dispatch, size: int, dtype: str) -> Workload:  # type: ignore[no-untyped-def]
    """A two-layer tanh MLP of width 64 on ``size // 64`` rows."""
    rows, width = max(1, size // 64), 64
    cap = dispatch.Capture()
    x = dispatch.placeholder((rows, width), device=cap, name="x", dtype=dtype)
    w1 = dispatch.placeholder((width, width), device=cap, name="w1", dtype=dtype)
    b1 = dispatch.placeholder((width,), device=cap, name="b1", dtype=dtype)
    w2 = dispatch.placeholder((width, width), device=cap, name="w2", dtype=dtype)
    b2 = dispatch.placeholder((width,), device=cap, name="b2", dtype=dtype)
    program = dispatch.export(((x @ w1 + b1).tanh() @ w2 + b2).sigmoid())
    rng = np.random.default_rng(2)
    arrays = {
        "x": rng.standard_normal((rows, width)).astype(dtype),
        "w1": (rng.standard_normal((width, width)) / 8).astype(dtype),
        "b1": rng.standard_normal(width).astype(dtype),
        "w2": (rng.standard_normal((width, width)) / 8).astype(dtype),
        "b2": rng.standard_normal(width).astype(dtype),
    }
    xs, w1s, b1s, w2s, b2s = arrays.values()
    hidden, out = np.empty((rows, width), dtype), np.empty((rows, width), dtype)

    def eager() -> np.ndarray:
        z = np.tanh(xs @ w1s + b1s) @ w2s + b2s
        return 0.5 * (np.tanh(0.5 * z) + 1)

    def floor() -> np.ndarray:
        np.matmul(xs, w1s, out=hidden)
        return np.matmul(hidden, w2s, out=out)

    return Workload(program, arrays, eager, floor)


WORKLOADS = {
    "arithmetic": arithmetic_chain,
    "transcendental": transcendental_chain,
    "mlp": mlp_forward,
}


# ---------------------------------------------------------------------------------------------
# Sections.


#: Replays run before a program is timed, after its first run: enough for the helper
#: policy to time its chunked runs with and without helpers and retry the slower way once
#: (``fusion_threads.HelperPolicy``), as a program replayed many times has.
SETTLING_RUNS = 16


def helper_gain(program) -> str:  # type: ignore[no-untyped-def]
    """Seconds alone / with helpers of the program's first chunked run, as its plan's policy
    last timed them ("-": nothing chunked, or not timed both ways yet)."""
    for plan in program.cache.get("fusion.plans", {}).values():
        for timing in plan.helper_timings:
            if len(timing) == 2:
                return f"{timing[False] / timing[True]:.2f}x"
    return "-"


def bench_replay(dispatch, sizes, dtypes, rounds):  # type: ignore[no-untyped-def]
    """eager/replay and replay/floor for every workload, size and dtype; first-run times."""
    from dispatch_lint.runtime import fusion, fusion_threads
    from dispatch_lint.runtime.backends.numba import KERNELS

    pool = fusion_threads.pool()
    print(
        f"Fused replay on Numba() (medians of interleaved rounds; up to {pool.helpers + 1}"
        " threads when that times faster; '1 thread' is the same plan unchunked)"
    )
    header = f"{'program':<15}{'size':>9} {'dtype':<8}{'eager ms':>10}{'replay ms':>11}"
    print(
        header
        + f"{'1 thread ms':>12}{'floor ms':>10}{'eager/replay':>14}{'replay/floor':>14}"
        + f"{'first run s':>13}{'helpers gain':>15}"
    )
    results = {}
    numba = dispatch.Numba()
    for dtype in dtypes:
        for name, make in WORKLOADS.items():
            for size in sizes:
                work = make(dispatch, size, dtype)
                start = time.perf_counter()
                replayed = work.program.run(work.inputs, device=numba)
                first = time.perf_counter() - start
                expected = work.eager()
                np.testing.assert_allclose(
                    replayed.numpy(), expected, rtol=1e-4, atol=1e-5
                )
                # Warm-up: the plan's helper policy times its first runs both ways.
                for _ in range(SETTLING_RUNS):
                    work.program.run(work.inputs, device=numba)
                whole = fusion.plan_program(
                    work.program.nodes,
                    work.program.outputs,
                    KERNELS,
                    chunk_threshold=1 << 62,
                )
                times = interleaved(
                    {
                        "eager": work.eager,
                        "replay": lambda w=work: w.program.run(w.inputs, device=numba),
                        "whole": lambda w=work, p=whole: p.run(w.inputs),
                        "floor": work.floor,
                    },
                    rounds,
                )
                speedup = times["eager"] / times["replay"]
                overhead = times["replay"] / times["floor"]
                results[(name, size, dtype)] = (speedup, overhead)
                print(
                    f"{name:<15}{size:>9} {dtype:<8}{times['eager'] * 1e3:>10.3f}"
                    f"{times['replay'] * 1e3:>11.3f}{times['whole'] * 1e3:>12.3f}"
                    f"{times['floor'] * 1e3:>10.3f}"
                    f"{speedup:>13.2f}x{overhead:>13.2f}x{first:>13.3f}"
                    f"{helper_gain(work.program):>15}"
                )
    return results


def bench_guards(dispatch, rounds):  # type: ignore[no-untyped-def]
    """A loop of small (1k-element) ops in guard mode raise versus off."""
    from dispatch_lint.runtime import guards

    a = dispatch.tensor(np.random.default_rng(3).random(1000).astype(np.float32))
    b = dispatch.tensor(np.random.default_rng(4).random(1000).astype(np.float32))

    def loop() -> object:
        t = a
        for _ in range(50):
            t = (t + b) * b - a
        return t

    def in_mode(mode: str) -> Case:
        def run() -> object:
            with guards.mode(mode):
                return loop()

        return run

    times = interleaved({"raise": in_mode("raise"), "off": in_mode("off")}, rounds)
    overhead = times["raise"] / times["off"] - 1
    print(
        f"\nGuard overhead, 150 ops on 1k float32: raise {times['raise'] * 1e6:.1f} us, "
        f"off {times['off'] * 1e6:.1f} us -> {overhead * 100:+.1f}%"
    )
    return overhead


def bench_eager(dispatch, rounds):  # type: ignore[no-untyped-def]
    """Per-op time of eager dispatch against raw NumPy (and PyTorch when installed)."""
    try:
        import torch
    except ImportError:
        torch = None
    print("\nEager dispatch per op (add)")
    ratios = {}
    for size in (1, 1000):
        data = np.random.default_rng(5).random(size).astype(np.float32)
        t = dispatch.tensor(data)
        cases: dict[str, Case] = {
            "numpy": lambda data=data: np.add(data, data),
            "dispatch": lambda t=t: t + t,
        }
        if torch is not None:
            tt = torch.from_numpy(data.copy())
            cases["torch"] = lambda tt=tt: tt + tt
        times = interleaved(cases, rounds)
        ratios[size] = times["dispatch"] / times["numpy"]
        line = (
            f"  {size:>5} elements: numpy {times['numpy'] * 1e6:.2f} us, dispatch "
            f"{times['dispatch'] * 1e6:.2f} us ({ratios[size]:.2f}x numpy)"
        )
        if torch is not None:
            line += f", torch {times['torch'] * 1e6:.2f} us ({times['torch'] / times['numpy']:.2f}x)"
        print(line)
    return ratios


def bench_mlp_step(dispatch, rounds):  # type: ignore[no-untyped-def]
    """32x64 @ 64x64 tanh MLP, forward and backward, on Autodiff(NumPy()) and Autodiff(Numba())."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    w1, w2 = (rng.standard_normal((2, 64, 64)) / 8).astype(np.float32)
    b1, b2 = rng.standard_normal((2, 64)).astype(np.float32)

    def step_on(inner) -> Case:  # type: ignore[no-untyped-def]
        device = dispatch.Autodiff(inner)
        xt = dispatch.tensor(x, device=device)
        params = [
            dispatch.tensor(p, device=device).require_grad() for p in (w1, b1, w2, b2)
        ]

        def step() -> object:
            pw1, pb1, pw2, pb2 = params
            loss = (((xt @ pw1 + pb1).tanh() @ pw2 + pb2) ** 2).mean()
            grads = loss.backward()
            return [p.grad(grads) for p in params]

        return step

    cases = {"numpy": step_on(dispatch.NumPy()), "numba": step_on(dispatch.Numba())}
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tx = torch.from_numpy(x)
        tparams = [
            torch.from_numpy(p.copy()).requires_grad_() for p in (w1, b1, w2, b2)
        ]

        def torch_step() -> object:
            pw1, pb1, pw2, pb2 = tparams
            loss = ((torch.tanh(tx @ pw1 + pb1) @ pw2 + pb2) ** 2).mean()
            return torch.autograd.grad(loss, tparams)

        cases["torch"] = torch_step
    times = interleaved(cases, rounds)
    line = ", ".join(
        f"{name} {seconds * 1e6:.1f} us" for name, seconds in times.items()
    )
    print(f"\nSmall MLP step (forward + backward): Autodiff over {line}")
    return times["numpy"]


def goal(label: str, measured: str, passed: bool) -> None:
    print(f"  {'PASS' if passed else 'MISS'}  {label:<62} measured {measured}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and rounds")
    args = parser.parse_args(argv)
    # A fresh kernel cache, so "first run" is the real planning + compile time.
    os.environ["DISPATCH_LINT_KERNEL_CACHE"] = tempfile.mkdtemp(
        prefix="dispatch-lint-bench-"
    )
    from dispatch_lint import runtime as dispatch

    if args.quick:
        sizes, dtypes, rounds = (100_000, 4_000_000), ("float32",), 7
    else:
        sizes, dtypes, rounds = (
            (10_000, 100_000, 1_000_000, 4_000_000),
            ("float32", "float64"),
            15,
        )

    replay = bench_replay(dispatch, sizes, dtypes, rounds)
    guard = bench_guards(dispatch, rounds)
    eager = bench_eager(dispatch, rounds * 2)
    mlp = bench_mlp_step(dispatch, rounds * 2)

    print("\nGoals (issue 5)")
    big = 4_000_000
    arith, arith_floor = replay[("arithmetic", big, "float32")]
    trans, _ = replay[("transcendental", big, "float32")]
    goal(
        "arithmetic chain, 4M float32: eager / replay >= 10x",
        f"{arith:.2f}x",
        arith >= 10,
    )
    goal(
        "arithmetic chain, 4M float32: replay / one-pass floor <= 1.5x",
        f"{arith_floor:.2f}x",
        arith_floor <= 1.5,
    )
    goal(
        "transcendental chain, 4M float32: eager / replay >= 2x",
        f"{trans:.2f}x",
        trans >= 2,
    )
    slowest = min(
        (speedup, f"{name} {size} {dtype}")
        for (name, size, dtype), (speedup, _) in replay.items()
        if size >= 100_000
    )
    goal(
        "no program slower on Numba() than eager NumPy at size >= 1e5",
        f"slowest {slowest[0]:.2f}x ({slowest[1]})",
        slowest[0] >= 1,
    )
    goal(
        "guard overhead in raise mode <= 5% on 1k-element ops",
        f"{guard * 100:+.1f}%",
        guard <= 0.05,
    )
    goal(
        "eager add of 1k elements <= 2.6x NumPy's time",
        f"{eager[1000]:.2f}x",
        eager[1000] <= 2.6,
    )
    goal("small MLP step <= 100 us", f"{mlp * 1e6:.1f} us", mlp <= 100e-6)


if __name__ == "__main__":
    main()
