"""JAX trips: with ``DISPATCH_LINT_TRIPS=FILE``, the JAX tracer errors of a test run (the pytest
plugin) or of a script (the exception hooks) are logged as DL003 / DL009 at the user's line,
and ``dispatch-lint --trips FILE`` confirms the static findings and reports what only the run
saw."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Located, not imported: JAX runs only in the child processes.
needs_jax = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None,
    reason="jax is a test extra: pip install '.[test]'",
)

USER_TESTS = '''\
import jax
import jax.numpy as jnp
import numpy as np
import pytest


def to_host(value):
    return np.asarray(value)  # helper sink


@jax.jit  # relu
def relu(x):
    if x > 0:  # condition
        return x
    return 0.0 * x


@jax.jit  # summarize
def summarize(x):
    return to_host(x.sum())  # helper call


cache = []


@jax.jit  # remember
def remember(x):
    doubled = x * 2  # leaked value
    cache.append(doubled)  # store
    return x


@jax.jit  # dynamic
def dynamic(x):
    convert = getattr(np, "".join(reversed("yarrasa")))
    return convert(x)  # dynamic sink


def test_condition():
    relu(1.0)


def test_helper():
    summarize(jnp.ones(2))


def test_leak():
    remember(1.0)
    assert cache[0] + 1 == 3  # use


def test_dynamic():
    dynamic(jnp.ones(2))


def test_shape():
    jax.jit(lambda n: jnp.zeros(n))(3)  # shape


def test_an_expected_error_is_no_trip():
    with pytest.raises(jax.errors.TracerBoolConversionError):
        relu(2.0)


def test_another_failure_is_no_trip():
    assert float(jnp.sum(jnp.ones(2))) == 3.0
'''


def line_of(source: str, marker: str) -> int:
    """The line of ``source`` that ends with the comment ``# marker``."""
    (line,) = [
        n for n, text in enumerate(source.splitlines(), 1) if text.endswith(f"# {marker}")
    ]
    return line


def read_trips(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def jax_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    trips = tmp_path / "trips.jsonl"
    monkeypatch.setenv("DISPATCH_LINT_TRIPS", str(trips))
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    return trips


@needs_jax
def test_a_test_run_logs_its_jax_tracer_errors_and_lint_confirms_them(
    pytester: pytest.Pytester, jax_env: Path
) -> None:
    test_file = pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1, failed=6)

    path = str(test_file)
    at = {marker: line_of(USER_TESTS, marker) for marker in (
        "helper sink", "relu", "condition", "summarize", "helper call", "remember",
        "leaked value", "store", "dynamic", "dynamic sink", "shape",
    )}
    place = lambda marker: {"file": path, "line": at[marker]}  # noqa: E731

    def sink(marker: str, code: str) -> dict[str, object]:
        """The place of ``code`` on the marked line: Python says where (3.11 and later)."""
        if sys.version_info < (3, 11):
            return place(marker)
        column = USER_TESTS.splitlines()[at[marker] - 1].index(code) + 1
        return {**place(marker), "column": column, "end_line": at[marker],
                "end_column": column + len(code)}

    assert read_trips(jax_env) == [
        {"rule": "DL003", **sink("condition", "x > 0"), "origin": place("relu"),
         "framework": "jax", "error": "TracerBoolConversionError"},
        {"rule": "DL003", **sink("helper sink", "np.asarray(value)"),
         "origin": place("summarize"), "framework": "jax",
         "error": "TracerArrayConversionError"},
        # JAX names only the line where the leaked value was created
        {"rule": "DL009", **place("leaked value"), "origin": place("remember"),
         "framework": "jax", "error": "UnexpectedTracerError"},
        {"rule": "DL003", **sink("dynamic sink", "convert(x)"), "origin": place("dynamic"),
         "framework": "jax", "error": "TracerArrayConversionError"},
        {"rule": "DL003", **sink("shape", "jnp.zeros(n)"), "origin": place("shape"),
         "framework": "jax", "error": "TypeError"},
    ]

    lint = subprocess.run(
        [sys.executable, "-m", "dispatch_lint.analyzer.cli", "--no-cache", "--format", "json",
         "--trips", str(jax_env), "test_user.py"],
        cwd=pytester.path, capture_output=True, text=True, check=False, timeout=120,
    )
    assert lint.returncode == 1, lint.stderr
    found = {
        (d["line"], d["rule"]): d["trace"][-1]["message"]
        for d in json.loads(lint.stdout)["diagnostics"]
    }
    confirmed, only_run = "confirmed at run time", (
        "seen only at run time: the static analysis missed this path"
    )
    assert found == {
        (at["condition"], "DL003"): confirmed,
        (at["helper call"], "DL003"): confirmed,  # the trip at the helper's line confirms it
        (at["store"], "DL009"): confirmed,  # the leaked value's birth is on its trace
        (at["shape"], "DL003"): confirmed,
        # getattr hides np.asarray from the static analysis: only the run saw it.
        (at["dynamic sink"], "DL003"): only_run,
    }


SCRIPT = '''\
import threading

import jax
import jax.numpy as jnp

import dispatch_lint.runtime


@jax.jit
def clip(x):
    return x if x < 1.0 else 1.0  # condition


def worker():
    jax.jit(lambda t: float(t))(2.0)  # in a thread


thread = threading.Thread(target=worker)
thread.start()
thread.join()
clip(jnp.float32(2.0))
'''


@needs_jax
def test_a_script_logs_the_jax_error_that_ends_it_and_one_that_ends_a_thread(
    tmp_path: Path, jax_env: Path
) -> None:
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False, timeout=120
    )
    assert run.returncode == 1
    # The hooks that were there before still print the errors.
    assert "TracerBoolConversionError" in run.stderr
    assert "ConcretizationTypeError" in run.stderr
    assert [(t["rule"], t["line"], t["error"]) for t in read_trips(jax_env)] == [
        ("DL003", line_of(SCRIPT, "in a thread"), "ConcretizationTypeError"),
        ("DL003", line_of(SCRIPT, "condition"), "TracerBoolConversionError"),
    ]


def test_the_runtime_and_its_plugin_import_no_jax(tmp_path: Path) -> None:
    check = (
        "import sys\n"
        "import dispatch_lint.runtime, dispatch_lint.runtime.pytest_plugin\n"
        "print(sorted(m for m in ('jax', 'libcst', 'rich') if m in sys.modules))\n"
    )
    env = {**os.environ, "DISPATCH_LINT_TRIPS": str(tmp_path / "t.jsonl")}
    run = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=True, env=env,
        timeout=120,
    )
    assert run.stdout.strip() == "[]"
