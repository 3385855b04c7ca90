"""Transcendental functions for fused kernels: arithmetic the compiler turns into SIMD code.

A generated kernel that called ``math.exp`` would call the C library once per element, and
such a loop is never vectorised (a chain with one ``tanh`` measured 20-40x slower than
NumPy's loop in issue 5). The functions here are written as arithmetic only: a range
reduction, a polynomial, and the exponent put together from its bits, with every special
case chosen by a select rather than a branch, so LLVM vectorises a loop calling them (8
float32 or 4 float64 lanes with AVX2) and a chain of element-wise nodes, transcendental or
not, stays one pass over memory. The approach is the one of Cephes, SLEEF and XLA; the
coefficients are this module's own minimax fits (``tests/runtime/fit_math_polynomials.py``
derives them again).

Accuracy is measured, not assumed (``tests/runtime/test_numba_math.py`` asserts these
bounds): against float64 NumPy for float32 and ``numpy.longdouble`` for float64, over
every 8192nd float32 bit pattern (all exponents, both signs) or random float64 bit
patterns, dense values where the functions bend, and the edge cases (0, -0, denormals,
+-inf, NaN, where ``tanh`` and ``sigmoid`` saturate and ``exp`` overflows or underflows to
a denormal). Largest error measured, in units in the last place of the correctly rounded
result (ulp), on a machine with fused multiply-add (a wider sweep of 7e7 float32 values
and 4.5e6 float64 ones found the same):

========  =======  =======  =====
function  float32  float64  bound
========  =======  =======  =====
exp       1.00     1.05     1.1
log       0.83     0.80     1.0
tanh      2.51     2.54     2.6
sigmoid   2.30     2.21     2.4
========  =======  =======  =====

(NumPy's own float32 loops measured 2.4 ulp for exp, 3.6 for log and 1.4 for tanh on the
same sweep.)

``sqrt`` is the IEEE square root (correctly rounded), ``abs`` and ``relu`` are exact, and NaN, +-inf,
-0 and denormals give what NumPy gives (``tanh(-0.0)`` is -0.0, ``log(-1)`` is NaN,
``exp(-100.0)`` in float32 the nearest denormal). Results may differ from NumPy's by the
ulp above, and between machines with and without fused multiply-add by a rounding.

Under ``NUMBA_DISABLE_JIT`` these functions cannot run (their bit-level helpers are
compiler intrinsics), and fused kernels leave transcendental nodes to NumPy.

Each function is ``name_f32`` / ``name_f64`` (``exp_f32``...); ``FUNCTIONS`` maps an op name
and dtype to the name a generated kernel imports.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = [
    "FUNCTIONS",
    "exp_f32",
    "exp_f64",
    "log_f32",
    "log_f64",
    "sigmoid_f32",
    "sigmoid_f64",
    "tanh_f32",
    "tanh_f64",
]

# ---------------------------------------------------------------------------------------------
# Bit-level helpers. Each compiles to one or two instructions that have vector forms; a
# ``math.frexp`` or ``math.ldexp`` would be a call, which stops the loop from vectorising.

_FLOATS = {
    types.float32: (ir.FloatType(), 32, 23, 127),
    types.float64: (ir.DoubleType(), 64, 52, 1023),
}


def _float_layout(ty):  # type: ignore[no-untyped-def]
    return _FLOATS.get(ty)


@intrinsic
def _fmuladd(typingctx, a, b, c):  # type: ignore[no-untyped-def]
    """``a * b + c``, fused into one rounding where the machine has FMA (``llvm.fmuladd``)."""
    if not (a == b == c and _float_layout(a) is not None):
        return None

    def codegen(context, builder, signature, arguments):  # type: ignore[no-untyped-def]
        llty = _float_layout(signature.return_type)[0]
        function = builder.module.declare_intrinsic(
            "llvm.fmuladd", [llty], ir.FunctionType(llty, [llty] * 3)
        )
        return builder.call(function, arguments)

    return a(a, b, c), codegen


@intrinsic
def _copysign(typingctx, magnitude, sign):  # type: ignore[no-untyped-def]
    """``magnitude`` with the sign bit of ``sign`` (-0.0 keeps its sign)."""
    if not (magnitude == sign and _float_layout(magnitude) is not None):
        return None

    def codegen(context, builder, signature, arguments):  # type: ignore[no-untyped-def]
        llty = _float_layout(signature.return_type)[0]
        function = builder.module.declare_intrinsic(
            "llvm.copysign", [llty], ir.FunctionType(llty, [llty] * 2)
        )
        return builder.call(function, arguments)

    return magnitude(magnitude, sign), codegen


def _bit_function(build):  # type: ignore[no-untyped-def]
    """An intrinsic ``f(x) -> same float type`` whose code ``build(builder, x, layout,
    integer)`` writes, ``layout`` being x's ``_FLOATS`` entry and ``integer`` the integer
    type of its width."""

    def typer(typingctx, x):  # type: ignore[no-untyped-def]
        layout = _float_layout(x)
        if layout is None:
            return None

        def codegen(context, builder, signature, arguments):  # type: ignore[no-untyped-def]
            return build(builder, arguments[0], layout, ir.IntType(layout[1]))

        return x(x), codegen

    typer.__doc__ = build.__doc__
    return intrinsic(typer)


@_bit_function
def _pow2(builder, k, layout, integer):  # type: ignore[no-untyped-def]
    """``2 ** k`` for an integer-valued ``k`` within the normal exponent range, built from
    its exponent bits."""
    llty, _, mantissa, bias = layout
    biased = builder.add(builder.fptosi(k, integer), integer(bias))
    return builder.bitcast(builder.shl(biased, integer(mantissa)), llty)


@_bit_function
def _exponent(builder, x, layout, integer):  # type: ignore[no-untyped-def]
    """The unbiased binary exponent of a positive normal ``x``, as a float of x's type."""
    llty, _, mantissa, bias = layout
    bits = builder.bitcast(x, integer)
    exponent = builder.sub(builder.lshr(bits, integer(mantissa)), integer(bias))
    return builder.sitofp(exponent, llty)


@_bit_function
def _significand(builder, x, layout, integer):  # type: ignore[no-untyped-def]
    """A positive normal ``x`` scaled by a power of two into [1, 2)."""
    llty, _, mantissa, bias = layout
    fraction = builder.and_(builder.bitcast(x, integer), integer((1 << mantissa) - 1))
    return builder.bitcast(builder.or_(fraction, integer(bias << mantissa)), llty)


# ---------------------------------------------------------------------------------------------
# The functions, generated once per precision from the same algorithm.


class _Precision:
    """The constants of one floating-point type."""

    def __init__(
        self,
        ftype: type,
        ln2_hi: float,
        ln2_lo: float,
        exp_poly: tuple[float, ...],
        log_poly: tuple[float, ...],
        exp_range: tuple[float, float],
        tanh_limit: float,
    ) -> None:
        f = ftype
        self.ftype = f
        self.one, self.two, self.half, self.zero = f(1), f(2), f(0.5), f(0)
        self.log2e = f(1 / math.log(2))
        # 1.5 * 2**mantissa: adding it rounds to an integer, subtracting it gives that integer.
        self.shifter = f(1.5 * 2.0 ** np.finfo(f).nmant)
        # ln 2 = hi + lo, hi with few enough bits that n * hi is exact for every n used.
        self.ln2_hi, self.ln2_lo = f(ln2_hi), f(ln2_lo)
        self.exp_poly = tuple(f(c) for c in exp_poly)
        self.log_poly = tuple(f(c) for c in log_poly)
        # exp clamps its argument here: below, the result is 0; above, inf.
        self.exp_low, self.exp_high = f(exp_range[0]), f(exp_range[1])
        # tanh(x) rounds to +-1 from here on; clamping keeps 2 ** n finite.
        self.tanh_limit = f(tanh_limit)
        self.tiny = f(np.finfo(f).smallest_normal)
        # Denormal inputs of log are scaled into the normal range by 2 ** scale_bits.
        self.scale_bits = np.finfo(f).nmant + 1
        self.scale = f(2.0**self.scale_bits)
        self.sqrt2 = f(math.sqrt(2))
        self.inf, self.nan = f(np.inf), f(np.nan)


# Coefficients: minimax fits (long double Remez) of
#   exp:  P(r) ~ (e**r - 1 - r) / r**2   on |r| <= ln(2) / 2, so e**r = 1 + r + r**2 P(r);
#   log:  R(z) ~ (log((1 + s) / (1 - s)) - 2 s) / (s z), z = s**2, s <= (sqrt 2 - 1) / (sqrt 2 + 1).
# Relative error of the fit alone: exp 3.1e-9 / 7.7e-18, log 8.1e-10 / 1.2e-18 (float32 /
# float64), well below half an ulp.
_F32 = _Precision(
    np.float32,
    ln2_hi=0.693145751953125,
    ln2_lo=1.4286068203094287e-06,
    exp_poly=(
        0.49999993451700897,
        0.16666520689846134,
        0.04166838736278955,
        0.008368709822973776,
        0.0013814613184743175,
    ),
    log_poly=(0.666667763816209, 0.3997754157552018, 0.29871727760189515),
    exp_range=(-105.0, 89.0),
    tanh_limit=9.5,
)
_F64 = _Precision(
    np.float64,
    ln2_hi=0.6931471805598903,
    ln2_lo=5.497924164543644e-14,
    exp_poly=(
        0.500000000000001,
        0.16666666666666674,
        0.041666666666522065,
        0.00833333333332223,
        0.0013888888947794728,
        0.00019841269886486637,
        2.4801487357456354e-05,
        2.7557242477114925e-06,
        2.763264357595045e-07,
        2.510999221846368e-08,
    ),
    log_poly=(
        0.6666666666666734,
        0.3999999999941451,
        0.28571428742425503,
        0.2222219856936499,
        0.18183564518255327,
        0.15314045842267682,
        0.1479599454180316,
    ),
    exp_range=(-746.0, 710.0),
    tanh_limit=19.5,
)

_jit = numba.njit(error_model="numpy", cache=False)


def _horner(c: tuple[float, ...]):  # type: ignore[no-untyped-def]
    """``c[0] + c[1] x + ...`` as fused multiply-adds, unrolled at compile time."""
    if len(c) == 1:
        c0 = c[0]
        return _jit(lambda x: c0)
    head, rest = c[0], _horner(c[1:])
    return _jit(lambda x: _fmuladd(rest(x), x, head))


def _build(p: _Precision):  # type: ignore[no-untyped-def]
    one, two, half, zero = p.one, p.two, p.half, p.zero
    log2e, shifter, ln2_hi, ln2_lo = p.log2e, p.shifter, p.ln2_hi, p.ln2_lo
    exp_poly, log_poly = _horner(p.exp_poly), _horner(p.log_poly)
    low, high, limit = p.exp_low, p.exp_high, p.tanh_limit
    tiny, scale, scale_bits, sqrt2 = p.tiny, p.scale, p.ftype(p.scale_bits), p.sqrt2
    inf, nan = p.inf, p.nan

    @_jit
    def reduce(y):  # type: ignore[no-untyped-def]
        """y = n ln2 + r with n an integer, |r| <= ln2 / 2; returns n and e**r - 1."""
        n = _fmuladd(y, log2e, shifter) - shifter
        r = _fmuladd(n, -ln2_hi, y)
        r = _fmuladd(n, -ln2_lo, r)
        return n, _fmuladd(r * r, exp_poly(r), r)

    @_jit
    def exp(x):  # type: ignore[no-untyped-def]
        """e ** x."""
        # Selects, not min/max: their NaN order is the processor's (NaN is put right at
        # the end, whatever these give).
        y = x if x < high else high  # noqa: FURB136
        y = y if y > low else low  # noqa: FURB136
        n, q = reduce(y)
        # 2 ** n in two factors, each a normal number: the first product is exact, and
        # the second rounds once, to a denormal or to inf where the result is one.
        n1 = (n * half + shifter) - shifter
        return x if math.isnan(x) else ((one + q) * _pow2(n1)) * _pow2(n - n1)

    @_jit
    def tanh(x):  # type: ignore[no-untyped-def]
        """tanh x = (e**2|x| - 1) / (e**2|x| + 1), with e**y - 1 computed without
        cancellation: relative error stays small down to the smallest denormal."""
        a = abs(x)
        a = a if a < limit else limit  # noqa: FURB136  (as in exp)
        n, q = reduce(a + a)
        scaled = _pow2(n)
        expm1 = _fmuladd(scaled, q, scaled - one)
        return x if math.isnan(x) else _copysign(expm1 / (expm1 + two), x)

    @_jit
    def sigmoid(x):  # type: ignore[no-untyped-def]
        """1 / (1 + e**-x), as e**x / (1 + e**x) for negative x (no overflow, and the
        tiny results of large negative x keep their precision)."""
        e = exp(-abs(x))
        return (one if x >= zero else e) / (one + e)

    @_jit
    def log(x):  # type: ignore[no-untyped-def]
        """The natural logarithm: x = 2**k m, m in [sqrt(1/2), sqrt 2), f = m - 1,
        log(1 + f) = 2 atanh(f / (2 + f)) as an odd polynomial."""
        small = x < tiny
        y = x * scale if small else x
        k = _exponent(y) - (scale_bits if small else zero)
        m = _significand(y)
        big = m > sqrt2
        m = m * half if big else m
        k = k + one if big else k
        f = m - one
        s = f / (two + f)
        z = s * s
        r = z * log_poly(z)
        hfsq = half * f * f
        result = _fmuladd(k, ln2_hi, f - (hfsq - _fmuladd(s, hfsq + r, k * ln2_lo)))
        if not (x > zero):
            result = -inf if x == zero else nan
        return result if x < inf else x

    return exp, log, tanh, sigmoid


exp_f32, log_f32, tanh_f32, sigmoid_f32 = _build(_F32)
exp_f64, log_f64, tanh_f64, sigmoid_f64 = _build(_F64)

#: (op, dtype) -> the name of this module's function a generated kernel calls for it.
FUNCTIONS: dict[tuple[str, np.dtype], str] = {
    (op, np.dtype(dtype)): f"{op}_{suffix}"
    for op in ("exp", "log", "tanh", "sigmoid")
    for dtype, suffix in ((np.float32, "f32"), (np.float64, "f64"))
}
