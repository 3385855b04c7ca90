"""The JAX fixtures (``fixtures/jax/``) checked both ways: the analyzer against their marks, and
real JAX (CPU) against the same marks.

The conventions are those of tests/test_fixtures.py (runnable programs with ``main()``,
``# expect: DL003`` on the flagged line, a finding through a callee marked on the call line,
``# in-trace``, packages as folders with ``main.py``, ``# runtime: unreachable-marks``), plus
the error JAX raises, named in a comment ``# jax-error: NAME`` or ``# jax-error: NAME: TEXT``
(``TEXT`` must occur in the error's message):

- a DL003 line names its error on the same line:
  ``if x > 0:  # expect: DL003  # jax-error: TracerBoolConversionError``;
- a DL009 line (a tracer stored where it outlives its trace) raises nothing itself: JAX raises
  ``UnexpectedTracerError`` where the stored tracer is used later, and that line carries
  ``# jax-error: UnexpectedTracerError`` (no expect mark); a DL009 store that JAX refuses at
  once (a tracer is unhashable: ``outside_set.add(t)``) names that error on its own line.

Under JAX, the first marked line that runs decides: the run must raise exactly the named class
(``jax.errors.<NAME>``, or the builtin ``TypeError`` / ``IndexError``) with a traceback frame on
the line that names it; an ``UnexpectedTracerError`` must also say that the value leaked from a
function of the fixture. When no marked line runs, ``main()`` must return normally.

JAX's import and first compilations cost seconds, so every fixture runs in one child process
(this file run as a script), one after the other: each is loaded under a private name and
unloaded after, with its own stdout, and JAX's trace state is checked clean between them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import traceback
from collections.abc import Iterator
from typing import Any

import pytest

from test_fixtures import (
    ALL_FIXTURES,
    JAX_FIXTURES,
    ROOT,
    FirstMarkReached,
    Fixture,
    check_findings_equal_marks,
    check_traces_pass_the_marks,
    comments,
    frames_in,
    loaded,
    parametrize_for,
    relative,
)

_JAX_ERROR = re.compile(r"#\s*jax-error:\s*(\w+)(?::\s*(.*?))?\s*$")
#: The errors a JAX fixture may name, by the module that defines each.
JAX_ERRORS = {
    "ConcretizationTypeError": "jax.errors",
    "TracerBoolConversionError": "jax.errors",
    "TracerArrayConversionError": "jax.errors",
    "TracerIntegerConversionError": "jax.errors",
    "UnexpectedTracerError": "jax.errors",
    "TypeError": "builtins",
    "IndexError": "builtins",
}
_LEAKED_FROM = re.compile(r"The function being traced when the value leaked was \S+ at (.+?):\d+")
#: Locating jax does not import it: only the child process does.
_SKIP_WITHOUT_JAX = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None,
    reason="jax is not installed (it is a test extra: pip install '.[test]')",
)


def jax_errors(fixture: Fixture) -> dict[tuple[str, int], tuple[str, str]]:
    """(path, line) -> (error name, message text) of every ``# jax-error:`` comment."""
    found = {}
    for path in fixture.files:
        for line, text in comments(path).items():
            match = _JAX_ERROR.search(text)
            if match:
                found[(relative(path), line)] = (match.group(1), match.group(2) or "")
    return found


# --------------------------------------------------------------------------------------------
# The table


def test_the_jax_table_is_complete_and_well_formed() -> None:
    """Both rules and every JAX error fire, some fixtures are clean, some are packages, and
    each fixture follows the conventions."""
    assert len(JAX_FIXTURES) >= 50, len(JAX_FIXTURES)
    assert sum(f.is_package for f in JAX_FIXTURES) >= 2
    assert sum(not f.marks for f in JAX_FIXTURES) >= 12, "each 'not finding' is a clean fixture"
    fired = {rule for f in JAX_FIXTURES for rules in f.marks.values() for rule in rules}
    assert fired == {"DL003", "DL009"}, sorted(fired)
    named = {name for f in JAX_FIXTURES for name, _ in jax_errors(f).values()}
    assert named == set(JAX_ERRORS), sorted(named)
    # `dispatch-lint fixtures/` names modules from the folder layout: a JAX fixture must not
    # take a dispatch fixture's module name, nor shadow jax itself.
    modules = {f.module_name(p) for f in JAX_FIXTURES for p in f.files}
    assert not modules & {f.module_name(p) for f in ALL_FIXTURES for p in f.files}
    assert not {m.split(".")[0] for m in modules} & {"jax", "jaxlib", "numpy"}
    for fixture in JAX_FIXTURES:
        text = fixture.entry.read_text(encoding="utf-8")
        assert "\ndef main() -> None:" in text, f"{relative(fixture.entry)} has no main()"
        assert "import jax" in text or "from jax" in text, relative(fixture.entry)
        for path in fixture.files:
            source = path.read_text(encoding="utf-8")
            if path.name == "__init__.py" and not source.strip():
                continue
            first = source.lstrip().split("\n", 1)[0]
            assert first.startswith('"""') and first.endswith('"""'), relative(path)
            assert len(source.splitlines()) <= 60, f"{relative(path)} is longer than 60 lines"
        errors = jax_errors(fixture)
        for place, rules in fixture.marks.items():
            name = errors.get(place, ("", ""))[0]
            if rules[0] == "DL003":
                assert name and name != "UnexpectedTracerError", (
                    f"{place}: a DL003 mark names JAX's error on its line"
                )
            elif not name:
                assert ("UnexpectedTracerError", "") in [
                    (n, "") for n, _ in errors.values()
                ], f"{place}: a DL009 store needs a later line marked UnexpectedTracerError"
        for place, (name, _) in errors.items():
            assert name in JAX_ERRORS, f"{place}: unknown error {name}"
            if place not in fixture.marks:
                assert name == "UnexpectedTracerError", (
                    f"{place}: only the use of a leaked tracer is marked without a rule"
                )


# --------------------------------------------------------------------------------------------
# The analyzer: exactly the marks, and traces through the marked lines


@parametrize_for("analyzer", JAX_FIXTURES)
def test_analyzer_finds_exactly_the_marks(fixture: Fixture) -> None:
    check_findings_equal_marks(fixture)


@parametrize_for("analyzer", [f for f in JAX_FIXTURES if f.trace_marks])
def test_traces_show_the_path_through_callees(fixture: Fixture) -> None:
    check_traces_pass_the_marks(fixture)


# --------------------------------------------------------------------------------------------
# Real JAX: the first marked line reached raises exactly the named error


@pytest.fixture(scope="module")
def jax_runs(request: pytest.FixtureRequest) -> dict[str, dict[str, Any]]:
    """The selected JAX fixtures run once under JAX, in one child process: name -> what
    happened."""
    names = [
        item.callspec.params["fixture"].name
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_jax_raises_the_first_marked_error"
    ]
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    child = subprocess.run(
        [sys.executable, __file__, *names],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert child.returncode == 0, child.stderr[-4000:]
    runs = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
    return {run["name"]: run for run in runs}


@_SKIP_WITHOUT_JAX
@parametrize_for("runtime", JAX_FIXTURES)
def test_jax_raises_the_first_marked_error(
    fixture: Fixture, jax_runs: dict[str, dict[str, Any]]
) -> None:
    run = jax_runs[fixture.name]
    assert run["trace_state_clean"], f"{fixture.name} left JAX inside a trace"
    marks = fixture.marks
    raised = run["raised"]
    first = tuple(run["first"]) if run["first"] else None
    if first is None:
        if raised is not None:
            pytest.fail(
                f"{fixture.name}: main() raised before any marked line ran:\n"
                + raised["traceback"],
                pytrace=False,
            )
        if marks and not fixture.allows_unreachable_marks:
            pytest.fail(
                f"{fixture.name}: main() ran cleanly under JAX but the fixture has marks",
                pytrace=False,
            )
        return

    path, line = first
    rule = marks[first][0]
    errors = jax_errors(fixture)
    if first in errors:
        where = [first]
    else:  # a DL009 store: JAX raises where the leaked tracer is used
        where = [place for place, (name, _) in errors.items() if place not in marks]
    message = f"{fixture.name}: {path}:{line} is marked {rule} and ran under JAX, but main() "
    if raised is None:
        pytest.fail(message + "returned normally", pytrace=False)
    frames = [tuple(frame) for frame in raised["frames"]]
    at = [place for place in where if place in frames]
    assert at, (
        f"{message}raised {raised['type']} through {frames}, none of them {where}:\n"
        + raised["traceback"]
    )
    name, text = errors[at[0]]
    assert raised["type"] == f"{JAX_ERRORS[name]}.{name}", (
        f"{at[0]} names {name}; JAX raised:\n" + raised["traceback"]
    )
    assert text in raised["message"], (
        f"{at[0]} expects {text!r} in JAX's message: {raised['message']}"
    )
    if name == "UnexpectedTracerError":
        leaked = _LEAKED_FROM.search(raised["message"])
        assert leaked and os.path.realpath(leaked.group(1)) in {
            str(p) for p in fixture.files
        }, raised["message"]


# --------------------------------------------------------------------------------------------
# The child process: run the named fixtures under JAX, one JSON line each


def _run_under_jax(fixture: Fixture) -> dict[str, Any]:
    tracer = FirstMarkReached(fixture.marks)
    raised: BaseException | None = None
    with loaded(fixture) as load, contextlib.redirect_stdout(io.StringIO()):
        try:
            with tracer.tracing():
                load()()
        except Exception as exc:  # noqa: BLE001 - the parent judges what was raised
            raised = exc
        jax = sys.modules.get("jax")
        if jax is not None:  # jax.debug prints run with the computation, maybe later
            jax.effects_barrier()
    record: dict[str, Any] = {
        "name": fixture.name,
        "first": tracer.first,
        "raised": None,
        "trace_state_clean": _trace_state_clean(),
    }
    if raised is not None:
        record["raised"] = {
            "type": f"{type(raised).__module__}.{type(raised).__qualname__}",
            "message": str(raised),
            "frames": frames_in(fixture, raised),
            "traceback": "".join(traceback.format_exception(raised))[-6000:],
        }
    return record


def _trace_state_clean() -> bool:
    """Whether JAX is outside every trace (reset if not, so one fixture cannot break the next)."""
    core = sys.modules.get("jax._src.core")
    clean = getattr(core, "trace_state_clean", None)
    if clean is None or clean():
        return True
    core.reset_trace_state()  # type: ignore[union-attr]
    return False


def _child(names: list[str]) -> Iterator[str]:
    by_name = {f.name: f for f in JAX_FIXTURES}
    for name in names:
        yield json.dumps(_run_under_jax(by_name[name]))


if __name__ == "__main__":
    for answer in _child(sys.argv[1:]):
        print(answer, flush=True)
