"""Accuracy of the transcendental functions that fused kernels compute (``fusion_math``).

Each function runs as the replay runs it: a lone node of a captured program on ``Numba()``
becomes one generated range kernel. The results are compared in ulps (units in the last
place of the correctly rounded result) against float64 NumPy for float32, and against
``numpy.longdouble`` for float64, over a sweep of the whole range and the edge cases.
"""

from __future__ import annotations

import numpy as np
import pytest

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import fusion
from dispatch_lint.runtime.backends.numba import KERNELS as NUMBA

#: The largest errors that ``fusion_math``'s docstring states, in ulps.
#: sqrt is IEEE's, correctly rounded: 0.5 ulp from the exact root at most.
BOUNDS = {"exp": 1.1, "log": 1.0, "tanh": 2.6, "sigmoid": 2.4, "sqrt": 0.5}
FUNCTIONS = tuple(BOUNDS)
SWEEP = 1 << 20


def edge_cases(dtype: type) -> np.ndarray:
    info = np.finfo(dtype)
    tiny, smallest = info.smallest_normal, info.smallest_subnormal
    values = [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        -np.nan,
        1.0,
        -1.0,
        2.0,
        0.5,
        smallest,
        -smallest,
        smallest * 3,
        tiny,
        -tiny,
        tiny * (1 - info.eps),
        info.max,
        -info.max,
        info.eps,
        -info.eps,
        # exp: last finite result, first overflow, denormal results, first zero
        88.72283,
        88.72284,
        709.782712893384,
        709.7827128933841,
        -87.33654,
        -87.4,
        -100.0,
        -103.972,
        -103.973,
        -104.0,
        -708.4,
        -740.0,
        -745.1,
        -745.2,
        -1e4,
        1e4,
        # tanh: where it rounds to +-1; sigmoid likewise
        9.01,
        9.02,
        -9.02,
        19.06,
        19.07,
        -19.07,
        36.7,
        -36.7,
        1e-20,
        -1e-20,
        # log near 1 and at the sqrt(2) split
        1 + info.eps,
        1 - info.epsneg,
        1.4142135,
        1.4142136,
        0.70710677,
        0.70710678,
    ]
    return np.array(values, dtype=dtype)


def sweep(dtype: type) -> np.ndarray:
    """Every 8192nd float32 bit pattern of each sign (all exponents, spread mantissas);
    for float64, random bit patterns; plus dense values where the functions bend."""
    rng = np.random.default_rng(40)
    if dtype is np.float32:
        steps = np.arange(SWEEP // 4, dtype=np.uint64) * 8192 + 1234
        patterns = np.concatenate([steps, steps | (1 << 31)]).astype(np.uint32)
        spread = patterns.view(np.float32)
    else:
        patterns = rng.integers(0, 1 << 64, size=SWEEP // 2, dtype=np.uint64)
        spread = patterns.view(np.float64)
    dense = np.concatenate(
        [
            rng.uniform(-1, 1, SWEEP // 8),
            rng.uniform(-20, 20, SWEEP // 8),
            rng.uniform(0, 4, SWEEP // 8),
            rng.uniform(-750, 750, SWEEP // 16),
        ]
    ).astype(dtype)
    values = np.concatenate([edge_cases(dtype), spread, dense])
    return np.resize(values, SWEEP).astype(dtype)


def exact(name: str, x: np.ndarray) -> np.ndarray:
    """The function in a wider type: float64 for float32, long double for float64."""
    with np.errstate(all="ignore"):  # signalling NaN bit patterns among the sweep
        wide = x.astype(np.float64 if x.dtype == np.float32 else np.longdouble)
        if name == "sigmoid":
            e = np.exp(-np.abs(wide))
            return np.where(wide >= 0, 1 / (1 + e), e / (1 + e))  # type: ignore[no-any-return]
        return getattr(np, name)(wide)  # type: ignore[no-any-return]


def ulps(got: np.ndarray, wide: np.ndarray) -> np.ndarray:
    """|got - exact| in ulps of the correctly rounded result; 0 where they are equal (NaN
    and NaN, inf and inf), inf where one is NaN or inf and the other is not."""
    with np.errstate(over="ignore"):
        rounded = wide.astype(got.dtype)
    same = (got == rounded) | (np.isnan(got) & np.isnan(rounded))
    with np.errstate(all="ignore"):
        spacing = np.spacing(np.abs(rounded)).astype(wide.dtype)
        error = np.abs(got.astype(wide.dtype) - wide) / spacing
    error = np.where(np.isfinite(got) & np.isfinite(rounded), error, np.inf)
    return np.where(same, 0.0, error).astype(np.float64)


@pytest.fixture(scope="module", params=["float32", "float64"])
def replayed(
    request: pytest.FixtureRequest,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The sweep of one dtype, and each function's replayed results over it."""
    dtype = np.dtype(request.param).type
    if dtype is np.float64 and np.finfo(np.longdouble).nmant < 63:
        pytest.skip("no long double wider than float64 here to measure float64 against")
    cap = dispatch.Capture()
    x = dispatch.placeholder((SWEEP,), device=cap, name="x", dtype=request.param)
    program = dispatch.export(*(getattr(x, name)() for name in FUNCTIONS))
    values = sweep(dtype)
    results = program.run({"x": values}, device=dispatch.Numba())
    return values, {name: r.numpy() for name, r in zip(FUNCTIONS, results)}


def test_every_function_is_a_generated_kernel() -> None:
    cap = dispatch.Capture()
    x = dispatch.placeholder((8,), device=cap, name="x", dtype="float32")
    program = dispatch.export(*(getattr(x, name)() for name in FUNCTIONS))
    plan = fusion.plan_program(program.nodes, program.outputs, NUMBA)
    assert plan.fused_kernels == len(FUNCTIONS)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_within_the_stated_ulps_over_the_range(
    replayed: tuple[np.ndarray, dict[str, np.ndarray]], name: str
) -> None:
    values, results = replayed
    error = ulps(results[name], exact(name, values))
    worst = int(np.argmax(error))
    assert error[worst] <= BOUNDS[name], (
        f"{name}({values[worst]!r}) = {results[name][worst]!r}: "
        f"{error[worst]:.2f} ulp, more than {BOUNDS[name]}"
    )


@pytest.mark.parametrize("name", FUNCTIONS)
def test_special_values_are_what_numpy_gives(
    replayed: tuple[np.ndarray, dict[str, np.ndarray]], name: str
) -> None:
    values, results = replayed
    count = len(edge_cases(values.dtype.type))
    with np.errstate(over="ignore"):
        want = exact(name, values[:count]).astype(values.dtype)
    got = results[name][:count]
    # (sqrt near 1 is left out: the long double reference rounds twice there)
    special = (
        ~np.isfinite(want) | (want == 0) | ((np.abs(want) == 1) & (name != "sqrt"))
    )
    np.testing.assert_array_equal(got[special], want[special])
    # the sign of zero too: tanh(-0.0) is -0.0, exp(-inf) is +0.0
    signed = special & ~np.isnan(want)
    assert (np.signbit(got[signed]) == np.signbit(want[signed])).all()


def test_a_loop_calling_the_functions_is_vectorised() -> None:
    # The point of fusion_math: a loop over elements runs in SIMD lanes, not one call per
    # element. LLVM's optimised IR names the vector types it computes in.
    import re

    import numba

    from dispatch_lint.runtime import fusion_math

    @numba.njit(error_model="numpy")
    def loop(x, out):  # type: ignore[no-untyped-def]
        for i in range(x.shape[0]):
            out[i] = fusion_math.log_f32(fusion_math.tanh_f32(x[i]))

    x = np.linspace(0.1, 3, 64, dtype=np.float32)
    out = np.empty_like(x)
    loop(x, out)
    np.testing.assert_allclose(out, np.log(np.tanh(x)), rtol=1e-6, atol=1e-6)
    code = loop.inspect_llvm(loop.signatures[0])
    lanes = {int(n) for n in re.findall(r"<(\d+) x float>", code)}
    assert lanes and max(lanes) >= 4, "the loop over tanh and log is not vectorised"
