"""Derive the polynomial coefficients of ``dispatch_lint.runtime.fusion_math`` again.

    python tests/runtime/fit_math_polynomials.py

A minimax fit (the Remez exchange) in ``numpy.longdouble`` (x86's 80-bit type, 11 bits more
than float64), of the functions ``fusion_math`` approximates after its range reduction:

- exp:  P(r) = (e**r - 1 - r) / r**2 on |r| <= ln(2) / 2, minimising the relative error of
  e**r = 1 + r + r**2 P(r) (weight r**2 / e**r);
- log:  R(z) = (log((1 + s) / (1 - s)) - 2 s) / (s z), z = s**2, 0 <= s <= (sqrt 2 - 1) /
  (sqrt 2 + 1), minimising the error R adds to log(1 + f) = 2 s + s z R (weight z / 2).

Both target functions are evaluated from their Taylor series, which converge fast on these
intervals (no cancellation, unlike ``exp(r) - 1 - r`` in floating point). Not run by the
test suite: it prints the coefficients and the fit's error, to be compared with the module.
"""

from __future__ import annotations

import math

import numpy as np

L = np.longdouble


def solve(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Gaussian elimination with partial pivoting in long double (numpy.linalg has none)."""
    a, b = matrix.astype(L), vector.astype(L)
    n = len(b)
    for k in range(n):
        pivot = k + int(np.argmax(np.abs(a[k:, k])))
        a[[k, pivot]], b[[k, pivot]] = a[[pivot, k]], b[[pivot, k]]
        factors = a[k + 1 :, k] / a[k, k]
        a[k + 1 :] -= factors[:, None] * a[k]
        b[k + 1 :] -= factors * b[k]
    x = np.zeros(n, L)
    for k in reversed(range(n)):
        x[k] = (b[k] - a[k, k + 1 :] @ x[k + 1 :]) / a[k, k]
    return x


def remez(target, weight, low, high, degree, iterations=12, grid=20001):  # type: ignore[no-untyped-def]
    """Coefficients c[0..degree] minimising max |weight(t) (sum c[k] t**k - target(t))|
    on [low, high]; returns them and that maximum."""
    t = np.linspace(L(low), L(high), grid)
    t = t[t != 0]
    values, weights = target(t), weight(t)
    points = degree + 2
    chebyshev = (1 - np.cos(np.pi * np.arange(points) / (points - 1))) / 2
    reference = np.round(chebyshev * (len(t) - 1)).astype(int)
    for _ in range(iterations):
        x = t[reference]
        system = np.stack(
            [x**k for k in range(degree + 1)]
            + [(-1.0) ** np.arange(points) / weights[reference]],
            axis=1,
        )
        solution = solve(system, values[reference])
        coefficients = solution[:-1]
        error = (sum(c * t**k for k, c in enumerate(coefficients)) - values) * weights
        # The new reference: the largest error of each run of one sign.
        sign = np.where(error >= 0, 1, -1)
        runs = np.split(np.arange(len(t)), np.flatnonzero(np.diff(sign)) + 1)
        extrema = [int(run[np.argmax(np.abs(error[run]))]) for run in runs]
        while len(extrema) > points:  # drop the smaller end
            ends = np.abs(error[[extrema[0], extrema[-1]]])
            extrema = extrema[1:] if ends[0] < ends[1] else extrema[:-1]
        if len(extrema) < points:
            break
        reference = np.array(extrema)
    return coefficients, float(np.max(np.abs(error)))


FACTORIALS = [L(math.factorial(k)) for k in range(40)]


def exp_target(r: np.ndarray) -> np.ndarray:
    return sum(r**k / FACTORIALS[k + 2] for k in range(30))  # type: ignore[no-any-return]


def log_target(z: np.ndarray) -> np.ndarray:
    return sum(2 * z**j / L(2 * j + 3) for j in range(30))  # type: ignore[no-any-return]


def main() -> None:
    half_ln2 = np.log(L(2)) / 2
    s_max = (np.sqrt(L(2)) - 1) / (np.sqrt(L(2)) + 1)
    fits = [
        ("exp P", exp_target, lambda r: r * r / np.exp(r), -half_ln2, half_ln2, (4, 9)),
        ("log R", log_target, lambda z: z / 2, L(0), s_max**2, (2, 6)),
    ]
    for name, target, weight, low, high, degrees in fits:
        for degree, precision in zip(degrees, ("float32", "float64")):
            coefficients, error = remez(target, weight, low, high, degree)
            print(f"{name}, {precision} (degree {degree}): relative error {error:.2g}")
            for c in coefficients:
                print(f"    {float(c)!r},")
    ln2 = np.log(L(2))
    for precision, bits in (("float32", 16), ("float64", 42)):
        # ln 2 = hi + lo with hi of ``bits`` significant bits: n * hi is exact.
        mantissa, exponent = np.frexp(ln2)
        hi = np.ldexp(np.round(np.ldexp(mantissa, bits)), int(exponent) - bits)
        print(f"ln2 split, {precision}: hi {float(hi)!r}, lo {float(ln2 - hi)!r}")


if __name__ == "__main__":
    main()
