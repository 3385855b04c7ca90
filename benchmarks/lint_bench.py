"""Linter speed (issue 8): ``dispatch-lint`` against baselines measured in the same run.

Two corpora:

(a) a real package from the index that never uses the runtime: the ``accelerate`` wheel
    (``pip download accelerate --no-deps`` into a temporary folder, never kept), or, when the
    index cannot be reached, an installed pure-Python package (``--package rich``);
(b) ``fixtures/`` copied many times (``--copies 10``): code that uses the runtime throughout.

For each, in fresh subprocesses, medians of ``--repeat`` runs: dispatch-lint cold (no cache)
with ``--jobs 1`` and with the default (all cores), a cold run that writes the cache and the
warm rerun after it, and the baselines ``ast.parse`` only, libcst parse only, ``ruff check
--select ALL --no-cache``, and Fixit and flake8 when installed. It prints the times, the ratios
the goals are stated in, and PASS/MISS next to each goal. Nothing is asserted::

    python benchmarks/lint_bench.py [--copies 10] [--repeat 3] [--package NAME]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

AST_ONLY = """\
import ast, pathlib, sys
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    try:
        ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        pass
"""

LIBCST_ONLY = """\
import pathlib, sys
import libcst
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    try:
        libcst.parse_module(path.read_bytes())
    except Exception:
        pass
"""


@dataclass(frozen=True)
class Corpus:
    """A folder of Python files to lint, and what to call it."""

    name: str
    folder: Path

    def describe(self) -> str:
        files = list(self.folder.rglob("*.py"))
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        return f"{self.name}: {len(files)} files, {lines:,} lines"


@dataclass(frozen=True)
class Timing:
    """Medians of one measurement: wall time, and CPU time (user + system, workers
    included), which a machine busy with other work disturbs less."""

    wall: float
    cpu: float


def timed(
    command: list[str], cwd: Path, repeat: int, before: Callable[[], None] | None = None
) -> Timing:
    """``command`` run ``repeat`` times in ``cwd`` (``before`` each)."""
    walls, cpus = [], []
    for _ in range(repeat):
        if before is not None:
            before()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - used.ru_utime + after.ru_stime - used.ru_stime)
        if result.returncode not in (0, 1):
            tail = result.stderr.decode(errors="replace").strip().splitlines()[-1:]
            print(
                f"  warning: {' '.join(command[:4])} exited {result.returncode}: {tail}"
            )
    return Timing(statistics.median(walls), statistics.median(cpus))


def dispatch_lint(*argv: str) -> list[str]:
    return [sys.executable, "-m", "dispatch_lint", "--format", "json", *argv, "."]


def accelerate_corpus(work: Path) -> Corpus | None:
    """The accelerate wheel's sources, downloaded into ``work``; None when unreachable."""
    download = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "accelerate",
            "--no-deps",
            "--quiet",
            "-d",
            str(work / "wheel"),
        ],
        capture_output=True,
        check=False,
        timeout=300,
    )
    wheels = (
        sorted((work / "wheel").glob("accelerate-*.whl"))
        if download.returncode == 0
        else []
    )
    if not wheels:
        return None
    target = work / "accelerate"
    with zipfile.ZipFile(wheels[0]) as wheel:
        wheel.extractall(target)
    return Corpus(f"(a) {wheels[0].name}", target)


def installed_corpus(name: str, work: Path) -> Corpus:
    """A copy of the installed package ``name`` (the linter never writes to checked files,
    but a copy keeps the cache and any surprise out of site-packages)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"lint_bench: package {name!r} is not installed")
    source = Path(next(iter(spec.submodule_search_locations)))
    target = work / name
    shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    return Corpus(f"(a) installed package {name}", target)


def fixtures_corpus(work: Path, copies: int) -> Corpus:
    target = work / "fixtures"
    for copy in range(copies):
        shutil.copytree(
            FIXTURES,
            target / f"copy{copy}",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return Corpus(f"(b) fixtures/ x{copies}", target)


def measure(corpus: Corpus, repeat: int) -> dict[str, Timing]:
    """Every timing of one corpus, in seconds."""
    here = corpus.folder
    cache = here / ".dispatch_lint_cache"

    def drop_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    found: dict[str, Timing] = {}
    found["dispatch-lint --jobs 1 (cold)"] = timed(
        dispatch_lint("--no-cache", "--jobs", "1"), here, repeat
    )
    found["dispatch-lint (cold, default jobs)"] = timed(
        dispatch_lint("--no-cache"), here, repeat
    )
    found["dispatch-lint (cold, writes cache)"] = timed(
        dispatch_lint(), here, repeat, drop_cache
    )
    drop_cache()
    subprocess.run(dispatch_lint(), cwd=here, capture_output=True, check=False)
    found["dispatch-lint (warm cache)"] = timed(dispatch_lint(), here, repeat)
    drop_cache()
    found["ast.parse only"] = timed([sys.executable, "-c", AST_ONLY, "."], here, repeat)
    found["libcst parse only"] = timed(
        [sys.executable, "-c", LIBCST_ONLY, "."], here, repeat
    )
    ruff = shutil.which("ruff")
    if ruff:
        found["ruff --select ALL"] = timed(
            [
                ruff,
                "check",
                "--select",
                "ALL",
                "--no-cache",
                "--exit-zero",
                "--quiet",
                ".",
            ],
            here,
            repeat,
        )
    flake8 = shutil.which("flake8")
    if flake8:
        found["flake8"] = timed([flake8, "--exit-zero", "."], here, repeat)
    fixit = shutil.which("fixit")
    if fixit:
        found["fixit"] = timed([fixit, "lint", "."], here, repeat)
    return found


def report(
    corpus: Corpus,
    times: dict[str, Timing],
    goals: list[tuple[str, float, float, str]],
) -> None:
    """The timings as ratios to ruff (else libcst), then each goal, judged on wall time."""
    print(corpus.describe())
    base_name = (
        "ruff --select ALL" if "ruff --select ALL" in times else "libcst parse only"
    )
    base = times[base_name].wall
    print(f"  {'':<38} {'wall':>7}     {'vs ' + base_name.split()[0]:>8}   {'cpu':>7}")
    for what, timing in times.items():
        print(
            f"  {what:<38} {timing.wall:7.2f} s {timing.wall / base:7.2f}x "
            f"{timing.cpu:7.2f} s"
        )
    for label, value, limit, direction in goals:
        ok = value <= limit if direction == "<=" else value >= limit
        print(
            f"  goal {label:<52} {value:6.2f} {direction} {limit:<5} "
            f"{'PASS' if ok else 'MISS'}"
        )
    print()


def version_time(repeat: int) -> tuple[float, float]:
    """Median wall time of ``dispatch-lint --version`` and of a bare interpreter start."""
    here = Path.cwd()
    version = timed(
        [sys.executable, "-m", "dispatch_lint", "--version"], here, repeat * 3
    ).wall
    bare = timed([sys.executable, "-c", "pass"], here, repeat * 3).wall
    return version, bare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--copies", type=int, default=10, help="copies of fixtures/ (b)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement")
    parser.add_argument(
        "--package",
        default=None,
        help="lint this installed package as (a) instead of accelerate",
    )
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; medians of {args.repeat} runs\n")

    with tempfile.TemporaryDirectory(prefix="lint-bench-") as temporary:
        work = Path(temporary)
        plain = None if args.package else accelerate_corpus(work)
        if plain is None:
            plain = installed_corpus(args.package or "rich", work)
        times = measure(plain, args.repeat)
        cold = times["dispatch-lint (cold, default jobs)"].wall
        goals = []
        if "ruff --select ALL" in times:
            goals.append(
                (
                    "(a) cold, default jobs / ruff --select ALL",
                    cold / times["ruff --select ALL"].wall,
                    1.0,
                    "<=",
                )
            )
        report(plain, times, goals)

        heavy = fixtures_corpus(work, args.copies)
        times = measure(heavy, args.repeat)
        one = times["dispatch-lint --jobs 1 (cold)"]
        default = times["dispatch-lint (cold, default jobs)"]
        goals = [
            (
                "(b) --jobs 1 / libcst parse only",
                one.wall / times["libcst parse only"].wall,
                1.5,
                "<=",
            ),
            (
                "(b) speed-up of default jobs over --jobs 1",
                one.wall / default.wall,
                1.7,
                ">=",
            ),
            (
                "(b) warm rerun / cold run",
                times["dispatch-lint (warm cache)"].wall
                / times["dispatch-lint (cold, writes cache)"].wall,
                0.1,
                "<=",
            ),
        ]
        report(heavy, times, goals)
        cores = os.cpu_count() or 1
        # On a machine shared with other work, wall-clock speed-ups say little; the CPU
        # the workers add over one process says how much parallelism costs.
        print(
            f"  default jobs use {default.cpu / one.cpu:.2f}x the CPU of --jobs 1; "
            f"on idle cores the speed-up would be about "
            f"{min(cores, one.cpu * cores / default.cpu):.2f}x at most\n"
        )

    version, bare = version_time(args.repeat)
    print(
        f"dispatch-lint --version {version:.3f} s (python -c pass {bare:.3f} s): "
        f"goal < 0.15 s {'PASS' if version < 0.15 else 'MISS'}"
    )


if __name__ == "__main__":
    main()
