"""Resource bounds on a huge file: peak memory and time of ``dispatch-lint`` on a 300,000-line
module, relative to libcst's parse of the same file, measured in the same run.

Two files of the same size: plain Python that never mentions the runtime (the linter should
cost about a ``compile()``, far below a libcst parse), and a file whose every function uses the
runtime (the linter parses it once with libcst and runs the data-flow analysis over it).
CPython's ``compile()`` of each file is shown too, as the floor.

Each measurement runs in a fresh subprocess; its peak resident memory comes from the kernel
(``os.wait4``'s rusage, which also covers any worker processes it waited for) and its time from
the wall clock around it. Nothing here asserts a speed: it prints ratios for people to read::

    python benchmarks/lint_memory_bench.py [--lines 300000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

PLAIN_UNIT = '''\
def compute_{i}(values, scale=2):
    """Sum the even values scaled, minus the indices of the odd ones."""
    total = 0
    for index, value in enumerate(values):
        if value % 2 == 0:
            total += value * scale
        else:
            total -= index
    return total


class Accumulator{i}:
    def __init__(self, start):
        self.value = start

    def add(self, amount):
        self.value = self.value + amount
        return self


'''

# Every unit builds, exports and replays a captured program and differentiates the result
# only when it is not a capture tensor; one unit in a hundred gets the guard backwards (a
# DL001 finding), so the run reports some findings.
RUNTIME_UNIT = """\
def step_{i}(weights):
    device = dispatch.Capture()
    x = dispatch.placeholder((4,), device=device, name="x")
    y = (x * weights.to_device(device)).sum()
    program = dispatch.export(y)
    result = program.run({{"x": [1.0, 2.0, 3.0, 4.0]}})
    if {guard}dispatch.is_capture(y):
        y.backward()
    return result


class Model{i}:
    def __init__(self):
        self.weights = dispatch.ones((4,), device=dispatch.Autodiff(dispatch.NumPy()))

    def loss(self, x):
        return (self.weights * x).sum()


"""

RUNTIME_HEADER = "from dispatch_lint import runtime as dispatch\n\n\n"


def write_module(path: Path, unit: str, lines: int, header: str = "") -> int:
    """Write ``header`` then numbered copies of ``unit`` until ``lines`` lines; the count."""
    per_unit = unit.count("\n")
    count = header.count("\n")
    with path.open("w", encoding="utf-8") as out:
        out.write(header)
        i = 0
        while count < lines:
            out.write(unit.format(i=i, guard="" if i % 100 == 0 else "not "))
            count += per_unit
            i += 1
    return count


@dataclass(frozen=True)
class Measurement:
    seconds: float
    peak_mib: float


def measure(
    argv: list[str], *, expect: tuple[int, ...] = (0,), stdout: Path | None = None
) -> Measurement:
    """Run ``argv`` in a fresh process (its output to ``stdout`` when given): its wall time and
    its peak resident memory."""
    with open(stdout or os.devnull, "wb") as sink:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE)
        assert process.stderr is not None
        stderr = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in expect:
        sys.exit(
            f"{' '.join(argv)} exited {process.returncode}:\n{stderr.decode(errors='replace')}"
        )
    return Measurement(seconds, usage.ru_maxrss / 1024)  # ru_maxrss is in KiB on Linux


def best(
    argv: list[str], repeat: int, expect: tuple[int, ...] = (0,), stdout: Path | None = None
) -> Measurement:
    runs = [measure(argv, expect=expect, stdout=stdout) for _ in range(repeat)]
    return Measurement(min(r.seconds for r in runs), min(r.peak_mib for r in runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (best)")
    args = parser.parse_args(argv)

    python = sys.executable
    interpreter = best([python, "-c", "import libcst"], args.repeat)
    print(f"python + import libcst alone: {interpreter.peak_mib:.0f} MiB peak\n")
    print(f"{'file':9} {'lines':>8}  {'what':24} {'seconds':>8} {'peak MiB':>9}   vs libcst parse")
    with tempfile.TemporaryDirectory(prefix="dispatch-lint-bench-") as folder:
        files = {
            "plain": (PLAIN_UNIT, ""),
            "runtime": (RUNTIME_UNIT, RUNTIME_HEADER),
        }
        for label, (unit, header) in files.items():
            path = Path(folder) / f"huge_{label}.py"
            lines = write_module(path, unit, args.lines, header)
            report = Path(folder) / f"huge_{label}.json"
            parse = best(
                [
                    python,
                    "-c",
                    f"import libcst; libcst.parse_module(open({str(path)!r}, 'rb').read())",
                ],
                args.repeat,
            )
            # CPython's own compile(): the floor for any linter that must report syntax errors.
            compiled = best(
                [python, "-c", f"compile(open({str(path)!r}, 'rb').read(), 'huge.py', 'exec')"],
                args.repeat,
            )
            # --no-cache: the cache would make a second run free and hide the real cost.
            lint = best(
                [
                    python,
                    "-m",
                    "dispatch_lint.analyzer.cli",
                    "--no-cache",
                    "--format",
                    "json",
                    str(path),
                ],
                args.repeat,
                expect=(0, 1),  # 1: the runtime file has findings
                stdout=report,
            )
            findings = Counter(d["rule"] for d in json.loads(report.read_text())["diagnostics"])
            rows = (
                ("compile()", compiled),
                ("libcst.parse_module", parse),
                ("dispatch-lint --no-cache", lint),
            )
            for what, m in rows:
                ratio = f"x{m.seconds / parse.seconds:.2f} time, x{m.peak_mib / parse.peak_mib:.2f} memory"
                print(
                    f"{label:9} {lines:8}  {what:24} {m.seconds:8.2f} {m.peak_mib:9.0f}   {ratio}"
                )
            found = ", ".join(f"{rule} x{n}" for rule, n in sorted(findings.items()))
            print(f"{'':19}  findings: {found or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
