"""Linter speed (issues 8 and 13): ``dispatch-lint`` against baselines measured in the same run.

Four corpora:

(a) a real package from the index that never uses the runtime: the ``accelerate==1.15.0``
    wheel (``pip download --no-deps`` into a temporary folder, never kept), or, when the
    index cannot be reached, an installed pure-Python package (``--package rich``);
(b) ``fixtures/`` copied many times (``--copies 10``): code that uses the runtime throughout;
(c) the package of (a) beside one small runtime-using file that imports standard-library
    modules the package also has modules named after (``step.py``, issue 13): linted
    together against the two linted alone, in time and in peak memory;
(d) ``--packages 10`` independent runtime-using packages whose module names share words
    (``model``, ``train``, ``export``), with 1 job and 2 jobs.

For each, in fresh subprocesses, medians of ``--repeat`` runs: dispatch-lint cold (no cache)
with ``--jobs 1`` and with the default (all cores), a cold run that writes the cache and the
warm rerun after it, and the baselines ``ast.parse`` only, libcst parse only, ``ruff check
--select ALL --no-cache``, and Fixit and flake8 when installed. It prints the times, the ratios
the goals are stated in, and PASS/MISS next to each goal. Peak memory is the kernel's
(``os.wait4``: the process and the workers it waited for). Nothing is asserted::

    python benchmarks/lint_bench.py [--copies 10] [--packages 10] [--repeat 3] [--package NAME]
                                    [--fixtures-at REV]
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
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
    """Medians of one measurement: wall time, CPU time (user + system, workers included),
    which a machine busy with other work disturbs less, and peak resident memory (MiB)."""

    wall: float
    cpu: float
    peak: float = 0.0


def timed(
    command: list[str], cwd: Path, repeat: int, before: Callable[[], None] | None = None
) -> Timing:
    """``command`` run ``repeat`` times in ``cwd`` (``before`` each)."""
    walls, cpus, peaks = [], [], []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        process = subprocess.Popen(
            command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        assert process.stderr is not None
        stderr = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        walls.append(time.perf_counter() - start)
        cpus.append(usage.ru_utime + usage.ru_stime)
        peaks.append(usage.ru_maxrss / 1024)  # KiB on Linux
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            tail = stderr.decode(errors="replace").strip().splitlines()[-1:]
            print(f"  warning: {' '.join(command[:4])} exited {code}: {tail}")
    return Timing(
        statistics.median(walls), statistics.median(cpus), statistics.median(peaks)
    )


def dispatch_lint(*argv: str) -> list[str]:
    return [sys.executable, "-m", "dispatch_lint", "--format", "json", *argv, "."]


#: The real package of (a) and (c), pinned: the figures compare across runs.
ACCELERATE = "accelerate==1.15.0"

#: (c): a small runtime-using file importing standard-library modules that accelerate also
#: has modules named after (accelerate/logging.py, accelerate/utils/dataclasses.py, ...).
STEP = """\
import dataclasses
import functools
import logging

from dispatch_lint import runtime as dispatch

logger = logging.getLogger("train")


@dataclasses.dataclass
class Batch:
    x: object
    y: object


def traced(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        logger.info("calling %s", fn.__name__)
        return fn(*args, **kwargs)
    return inner


@traced
def update(pred, target):
    return ((pred - target) ** 2).sum().backward()


if __name__ == "__main__":
    cap = dispatch.Capture()
    batch = Batch(dispatch.placeholder((4,), device=cap, name="p"), dispatch.zeros((4,), device=cap))
    update(batch.x, batch.y)
"""

#: (d): the modules of each generated package, in import order (each imports the one before).
TEAM_MODULES = ("data", "model", "layers", "train", "export", "serve")


def accelerate_corpus(work: Path) -> Corpus | None:
    """The accelerate wheel's sources, downloaded into ``work``; None when unreachable."""
    download = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            ACCELERATE,
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


def fixtures_corpus(work: Path, copies: int, revision: str | None = None) -> Corpus:
    """(b): ``fixtures/`` copied ``copies`` times: the checkout's, or the one ``revision``
    of this repository had (``git archive``), so that a figure can be compared across
    sessions on the same files while fixtures/ grows."""
    target = work / "fixtures"
    source = FIXTURES
    if revision is not None:
        exported = work / "fixtures-at-revision"
        exported.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision, "fixtures"],
            capture_output=True, check=False,
        )
        if archive.returncode != 0:
            raise SystemExit(f"lint_bench: cannot export fixtures/ at {revision!r}: "
                             f"{archive.stderr.decode(errors='replace').strip()}")
        subprocess.run(["tar", "-x", "-C", str(exported)], input=archive.stdout, check=True)
        source = exported / "fixtures"
    for copy in range(copies):
        shutil.copytree(
            source,
            target / f"copy{copy}",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    where = f" at {revision}" if revision is not None else ""
    return Corpus(f"(b) fixtures/{where} x{copies}", target)


def mixed_corpus(plain: Corpus, work: Path) -> Corpus:
    """(c): a copy of the package corpus with ``step.py`` beside its top package."""
    target = work / "mixed"
    shutil.copytree(plain.folder, target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "step.py").write_text(STEP, encoding="utf-8")
    return Corpus(f"(c) {plain.name[4:]} + step.py", target)


def teams_corpus(work: Path, packages: int, functions: int = 30) -> Corpus:
    """(d): ``packages`` independent packages; in each, every module's functions build
    tensors on a capture or an autodiff device and hand them down a chain through the
    package's other modules, so one package is one group of analysis work."""
    target = work / "teams"
    for number in range(packages):
        package = target / f"team{number}"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(
            "".join(f"from . import {name}\n" for name in TEAM_MODULES), encoding="utf-8"
        )
        for index, name in enumerate(TEAM_MODULES):
            (package / f"{name}.py").write_text(
                team_module(f"team{number}", index, functions), encoding="utf-8"
            )
    return Corpus(f"(d) {packages} independent packages", target)


def team_module(package: str, index: int, functions: int) -> str:
    name = TEAM_MODULES[index]
    lines = ["import logging", "", "from dispatch_lint import runtime as dispatch"]
    previous = TEAM_MODULES[index - 1] if index else None
    if previous:
        lines.append(f"from {package} import {previous}")
    lines += ["", "", "log = logging.getLogger(__name__)", ""]
    for j in range(functions):
        device = "dispatch.Capture()" if j % 3 == 0 else "dispatch.Autodiff(dispatch.NumPy())"
        inner = f"{previous}.{previous}_{j}(scale)" if previous else "dispatch.ones((4,))"
        lines += [
            "",
            f"def {name}_{j}(scale={j}):",
            f"    device = {device}",
            "    weights = dispatch.ones((4,), device=device) * scale",
            f"    value = {inner}",
            "    if scale > 10:",
            "        value = value.to_device(device)",
            "    total = (weights + value).sum()",
            "    log.debug('step %s', scale)",
            "    return total",
            "",
        ]
    if index == len(TEAM_MODULES) - 1:
        lines += ["", 'if __name__ == "__main__":']
        lines += [f"    {name}_{j}().backward()" for j in range(0, functions, 5)]
    return "\n".join(lines) + "\n"


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
    report_goals(goals)


def report_goals(goals: list[tuple[str, float, float, str]]) -> None:
    """Each goal with its value, its limit and PASS/MISS, then a blank line."""
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
    parser.add_argument(
        "--packages", type=int, default=10, help="independent packages (d)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement")
    parser.add_argument(
        "--fixtures-at",
        default=None,
        metavar="REV",
        help="(b) copies fixtures/ as this git revision had them (97a2a48: the corpus "
        "issue 13's 1.7x was measured on) instead of the checkout's",
    )
    parser.add_argument(
        "--package",
        default=None,
        help="lint this installed package as (a) instead of accelerate",
    )
    args = parser.parse_args()
    # The linter's modules imported as an installed linter imports them: pip writes the
    # bytecode of what it installs, and an editable checkout run with
    # PYTHONDONTWRITEBYTECODE=1 (as on the machines here) compiled every module again in
    # every measured run (0.2 s of CPU each; libcst, the baseline, is installed compiled)
    compileall.compile_dir(ROOT / "dispatch_lint", quiet=1)
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

        heavy = fixtures_corpus(work, args.copies, args.fixtures_at)
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

        mixed = mixed_corpus(plain, work)
        package = next(p.name for p in mixed.folder.iterdir() if (p / "__init__.py").is_file())
        lint_one = ["--no-cache", "--jobs", "1", "--format", "json"]
        runs = {
            f"{package}/ alone": [package],
            "step.py alone": ["step.py"],
            f"{package}/ step.py together": [package, "step.py"],
        }
        times = {
            what: timed([sys.executable, "-m", "dispatch_lint", *lint_one, *paths],
                        mixed.folder, args.repeat)
            for what, paths in runs.items()
        }
        together = times[f"{package}/ step.py together"]
        alone = [times[f"{package}/ alone"], times["step.py alone"]]
        print(mixed.describe())
        for what, timing in times.items():
            print(f"  {what:<38} {timing.wall:7.2f} s {timing.cpu:7.2f} s cpu "
                  f"{timing.peak:7.1f} MiB peak")
        report_goals([
            ("(c) together / the two alone, wall", together.wall / sum(t.wall for t in alone),
             2.0, "<="),
            ("(c) together / the two alone, cpu", together.cpu / sum(t.cpu for t in alone),
             2.0, "<="),
            ("(c) peak together / the larger peak alone",
             together.peak / max(t.peak for t in alone), 2.0, "<="),
        ])

        teams = teams_corpus(work, args.packages)
        times = {
            f"dispatch-lint --jobs {jobs} (cold)": timed(
                dispatch_lint("--no-cache", "--jobs", str(jobs)), teams.folder, args.repeat
            )
            for jobs in (1, 2)
        }
        one, two = times["dispatch-lint --jobs 1 (cold)"], times["dispatch-lint --jobs 2 (cold)"]
        print(teams.describe())
        for what, timing in times.items():
            print(f"  {what:<38} {timing.wall:7.2f} s {timing.cpu:7.2f} s cpu")
        report_goals([("(d) speed-up of --jobs 2 over --jobs 1", one.wall / two.wall, 1.6, ">=")])
        print(
            f"  --jobs 2 uses {two.cpu / one.cpu:.2f}x the CPU of --jobs 1: on two idle cores "
            f"the speed-up would be about {min(2.0, 2 * one.cpu / two.cpu):.2f}x at most\n"
        )

    version, bare = version_time(args.repeat)
    print(
        f"dispatch-lint --version {version:.3f} s (python -c pass {bare:.3f} s): "
        f"goal < 0.15 s {'PASS' if version < 0.15 else 'MISS'}"
    )


if __name__ == "__main__":
    main()
