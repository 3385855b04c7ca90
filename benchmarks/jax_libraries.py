"""Quiet on real JAX code (issue 14): dispatch-lint over six libraries built on JAX.

The wheels of flax, optax, numpyro, blackjax, distrax and chex (the versions pinned in
``LIBRARIES``, whose findings were judged) are downloaded with ``pip download --no-deps`` into a
temporary folder that is never kept, unpacked, and each library's package folder is linted in
a fresh process (``--no-cache --format json``, ``--jobs 1``). It prints every finding with the
judgement recorded in ``JUDGED`` (or "NOT JUDGED"), and per library the files, the lines, the
medians of ``--repeat`` runs of dispatch-lint and of a libcst parse of the same files measured
in the same run, and their ratio. Nothing is asserted; tests/analyzer/test_jax_libraries.py
checks one library the same way::

    python benchmarks/jax_libraries.py [--repeat 3] [--only optax chex] [--wheels DIR]

It exits 1 when a finding is not judged, 2 when the package index cannot be reached.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

# the baseline both benchmarks state their goals against: libcst's parse alone
from lint_bench import LIBCST_ONLY

#: The libraries and the versions whose findings ``JUDGED`` records.
LIBRARIES = {
    "flax": "0.12.8",
    "optax": "0.2.8",
    "numpyro": "0.22.0",
    "blackjax": "1.7.1",
    "distrax": "0.1.9",
    "chex": "0.1.92",
}

#: Findings judged by reading the code (and, where it could be shown, by running JAX on it):
#: (library, path inside the wheel, line, rule) -> the judgement. A real bug stays listed
#: here; a false positive must be fixed in the analyzer, not listed.
JUDGED: dict[tuple[str, str, int, str], str] = {
    ("optax", "optax/losses/_segmentation.py", 156, "DL003"): (
        "real bug, shown by JAX: with apply_softmax=False the input check `if not "
        "jnp.allclose(...)` raises TracerBoolConversionError under jax.jit (jax.jit(dice_loss, "
        "static_argnames='apply_softmax')(p, t, apply_softmax=False)); the path shown, "
        "jax.jit(dice_loss) with the default apply_softmax=True, never takes that branch"
    ),
    ("optax", "optax/losses/_segmentation.py", 160, "DL003"): (
        "real bug, shown by JAX: under jax.grad with apply_softmax=False and predictions that "
        "do not sum to 1, the message's f'{jnp.min(pred_sums):.6f}' raises TypeError "
        "(unsupported format string passed to LinearizeTracer.__format__) instead of the "
        "intended ValueError; the path shown (defaults) never takes that branch"
    ),
    ("optax", "optax/losses/_segmentation.py", 161, "DL003"): (
        "real bug: the same message's f'{jnp.max(pred_sums):.6f}', as line 160"
    ),
    ("numpyro", "numpyro/contrib/control_flow/scan.py", 64, "DL003"): (
        "real bug, shown by numpyro 0.22.0 on jax 0.10.2: a series of values substituted for "
        "a scanned site as a NumPy array (handlers.substitute(model, data={'x': "
        "np.arange(3.0)}) around scan(transition, 0.0, None, length=3)) is indexed by the "
        "scan's traced step, value[i], which raises TracerArrayConversionError (NumPy "
        "converts the index); a jax array works"
    ),
    ("numpyro", "numpyro/handlers.py", 981, "DL003"): (
        "real bug, the one of scan.py:64 reported where substitute.process_message calls "
        "the scan's _subs_wrapper partial with its traced step i: shown by numpyro 0.22.0 on "
        "jax 0.10.2, a Python list substituted for a scanned site (handlers.substitute(model, "
        "data={'x': [1.0, 2.0, 3.0]}) around scan(transition, 0.0, None, length=3)) is "
        "indexed by the traced step, value[i], which raises TracerIntegerConversionError"
    ),
}


class IndexUnreachable(Exception):
    """``pip download`` failed; ``str()`` is pip's last line."""


@dataclass(frozen=True)
class Finding:
    library: str
    path: str
    line: int
    rule: str
    message: str

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.library, self.path, self.line, self.rule)

    @property
    def judgement(self) -> str | None:
        return JUDGED.get(self.key)


@dataclass(frozen=True)
class LintRun:
    library: str
    files: int
    lines: int
    findings: tuple[Finding, ...]
    errors: tuple[str, ...]
    seconds: float
    #: what stderr said that is not an error: where precision was dropped at a bound
    notes: tuple[str, ...] = ()


def download(names: list[str], folder: Path) -> dict[str, Path]:
    """The wheel of each library of ``names`` at its pinned version, downloaded into
    ``folder``."""
    pins = [f"{name}=={LIBRARIES[name]}" for name in names]
    run = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder),
         *pins],
        capture_output=True, text=True, check=False, timeout=600,
    )
    if run.returncode != 0:
        tail = [line for line in run.stderr.splitlines() if line.strip()][-1:]
        raise IndexUnreachable(tail[0] if tail else f"pip download exited {run.returncode}")
    wheels = {}
    for name in names:
        found = sorted(folder.glob(f"{name}-{LIBRARIES[name]}-*.whl"))
        if not found:
            raise IndexUnreachable(f"no wheel of {name}=={LIBRARIES[name]} was downloaded")
        wheels[name] = found[0]
    return wheels


def unpack(name: str, wheel: Path, folder: Path) -> Path:
    """The library's sources (its import root, holding the package folder ``name``)."""
    root = folder / f"{name}-src"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(root)
    if not (root / name / "__init__.py").is_file():
        raise SystemExit(f"jax_libraries: {wheel.name} has no package folder {name}/")
    return root


#: The words of the summary line saying that precision was dropped at a bound: not an error.
PRECISION_NOTE = "note: precision reduced in"


def lint(name: str, root: Path, timeout: float = 600.0) -> LintRun:
    """dispatch-lint on the package folder, from its import root, in a fresh process (given
    up after ``timeout`` seconds, reported as an error)."""
    files = sorted((root / name).rglob("*.py"))
    lines = sum(path.read_bytes().count(b"\n") for path in files)
    start = time.perf_counter()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "dispatch_lint", "--no-cache", "--jobs", "1", "--format",
             "json", name],
            cwd=root, capture_output=True, text=True, check=False, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return LintRun(name, len(files), lines, (), (f"timed out after {timeout:.0f} s",),
                       time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if run.returncode not in (0, 1) and not run.stdout.startswith("{"):
        return LintRun(name, len(files), lines, (), (run.stderr.strip() or "no output",),
                       seconds)
    report = json.loads(run.stdout)
    findings = tuple(
        Finding(name, d["path"], d["line"], d["rule"], d["message"])
        for d in report["diagnostics"]
    )
    said = [line for line in run.stderr.splitlines() if line.strip()]
    notes = tuple(line for line in said if PRECISION_NOTE in line)
    errors = tuple(line for line in said if PRECISION_NOTE not in line)
    return LintRun(name, len(files), lines, findings, errors, seconds, notes)


def parse_only(name: str, root: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", LIBCST_ONLY, name], cwd=root, check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (median)")
    parser.add_argument("--only", nargs="+", choices=sorted(LIBRARIES), default=list(LIBRARIES))
    parser.add_argument("--wheels", type=Path, help="use (and fill) this folder of wheels")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per lint run")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="jax-libraries-") as temporary:
        work = Path(temporary)
        wheel_folder = args.wheels or work / "wheels"
        wheel_folder.mkdir(parents=True, exist_ok=True)
        try:
            wheels = download(args.only, wheel_folder)
        except IndexUnreachable as exc:
            print(f"jax_libraries: the package index cannot be reached: {exc}")
            return 2
        unjudged = 0
        rows = []
        for name in args.only:
            root = unpack(name, wheels[name], work)
            runs, parses = [], []
            for _ in range(args.repeat):  # interleaved: a busy machine slows both alike
                runs.append(lint(name, root, args.timeout))
                parses.append(parse_only(name, root))
            run = runs[0]
            print(f"\n{name} {LIBRARIES[name]}: {run.files} files, {run.lines:,} lines, "
                  f"{len(run.findings)} finding(s)")
            for error in run.errors:
                print(f"  error: {error}")
            for note in run.notes:
                print(f"  {note}")
            for finding in run.findings:
                judgement = finding.judgement
                unjudged += judgement is None
                print(f"  {finding.path}:{finding.line}: {finding.rule} {finding.message}")
                print(f"    -> {judgement or 'NOT JUDGED'}")
            lint_s = statistics.median(r.seconds for r in runs)
            parse_s = statistics.median(parses)
            rows.append((name, run.files, lint_s, parse_s))

        print(f"\n{'library':<10} {'files':>6} {'dispatch-lint':>14} {'libcst parse':>13} "
              f"{'ratio':>6}")
        for name, files, lint_s, parse_s in rows:
            print(f"{name:<10} {files:>6} {lint_s:>13.2f}s {parse_s:>12.2f}s "
                  f"{lint_s / parse_s:>6.2f}")
        print(f"\n(medians of {args.repeat} runs each, interleaved, in fresh processes)")
        return 1 if unjudged else 0


if __name__ == "__main__":
    sys.exit(main())
