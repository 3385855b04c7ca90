"""Analysis cost per module as a project grows (issue 4): it must grow about linearly, not with
the square of the number of modules.

The generated project of N modules has both shapes that stress summaries: a chain (module i
wraps module i-1's factory, so a capture tensor born in module 0 travels through every one of
them) and a wide fan-out (every module imports one hub whose helpers call the sinks, and one
module in ten hands the hub the chain's capture tensor). One process, the engine alone
(``engine.analyze``: parse, summaries, rules, positions), medians of ``--repeat`` runs::

    python benchmarks/scaling_bench.py [--sizes 50 200 800] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from dispatch_lint.analyzer import engine

HUB = '''\
from dispatch_lint import runtime as dispatch


def train(t):
    """A sink for the fan-out: differentiates whatever it is given."""
    return t.backward()


def read(t):
    return t.numpy()


def real(shape):
    return dispatch.ones(shape, device=dispatch.Autodiff(dispatch.NumPy()))
'''

FIRST = """\
from dispatch_lint import runtime as dispatch


def make0():
    return dispatch.placeholder((4,), device=dispatch.Capture(), name="x")
"""

LINK = '''\
from pkg.hub import read, real, train
from pkg.mod{previous} import make{previous}


def make{index}():
    """Module {index} of the chain: wraps the previous factory."""
    value = make{previous}()
    return value * 2


def step{index}():
    weights = real((4,))
    return train(weights * 3)
'''

CALLS_HUB = """

def leak{index}():
    return read(make{index}())
"""


def project(size: int) -> list[engine.SourceFile]:
    """The package ``pkg``: a hub and ``size - 1`` chained modules."""
    files = [
        engine.SourceFile("pkg/__init__.py", b"", "pkg"),
        engine.SourceFile("pkg/hub.py", HUB.encode(), "pkg.hub"),
        engine.SourceFile("pkg/mod0.py", FIRST.encode(), "pkg.mod0"),
    ]
    for index in range(1, size - 1):
        text = LINK.format(index=index, previous=index - 1)
        if index % 10 == 0:
            text += CALLS_HUB.format(index=index)
        files.append(
            engine.SourceFile(f"pkg/mod{index}.py", text.encode(), f"pkg.mod{index}")
        )
    return files


def measure(size: int, repeat: int) -> tuple[float, int, int]:
    """Median seconds to analyse a project of ``size`` modules, its findings and errors."""
    files = project(size)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = engine.analyze(files)
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(result.diagnostics), len(result.errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 800])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    first: float | None = None
    print(
        f"{'modules':>8} {'seconds':>9} {'ms/module':>10} {'vs first':>9} "
        f"{'findings':>9} {'errors':>7}"
    )
    for size in args.sizes:
        seconds, findings, errors = measure(size, args.repeat)
        per_module = seconds / size
        first = first or per_module
        print(
            f"{size:>8} {seconds:>9.2f} {per_module * 1000:>10.2f} "
            f"{per_module / first:>8.2f}x {findings:>9} {errors:>7}"
        )
    print(
        "linear growth keeps ms/module flat (vs first about 1x); quadratic grows it with N"
    )


if __name__ == "__main__":
    main()
