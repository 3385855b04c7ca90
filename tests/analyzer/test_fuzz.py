"""Fuzzing, bounded: the analyzer answers every program it is given and never crashes.

The generators and the property live in ``scripts/fuzz.py`` so that this bounded run and the
long run (``python scripts/fuzz.py --examples N --seconds S``) check exactly the same thing:
no exception, no internal error, DL000 exactly when CPython refuses a file, every finding a
well-formed catalog finding inside the checked files, and the same answer when asked again.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from repo_scripts import load_script

fuzz = load_script("scripts/fuzz.py", "dispatch_lint_fuzz")

# Generating programs is the slow part (hypothesmith most of all), not the analysis.
BOUNDED = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@BOUNDED
@given(fuzz.runtime_programs())
def test_generated_runtime_programs_are_answered(source: bytes) -> None:
    fuzz.check_source(source)


@settings(BOUNDED, max_examples=20)
@given(fuzz.runtime_packages())
def test_generated_two_module_packages_are_answered(modules: dict[str, bytes]) -> None:
    fuzz.check_files(modules)


# hypothesmith compiles what it generates (file name "<string>"), and CPython warns about some
# of it ("'str' object is not callable"); the analyzer's own warnings are not filtered here
@pytest.mark.filterwarnings(r"ignore::SyntaxWarning:<string>")
@BOUNDED
@given(fuzz.grammar_programs())
def test_hypothesmith_programs_are_answered(source: bytes) -> None:
    fuzz.check_source(source)


@pytest.mark.parametrize(
    "fixture", fuzz.fixture_sources(), ids=lambda path: str(path.relative_to(fuzz.FIXTURES))
)
def test_mutated_fixtures_are_answered(fixture: Path) -> None:
    # Two mutants of each of the ~500 fixtures per run (scripts/fuzz.py runs thousands).
    @settings(BOUNDED, max_examples=2)
    @given(fuzz.fixture_mutants(fixture))
    def check(source: bytes) -> None:
        fuzz.check_source(source)

    check()


@pytest.mark.skipif(not fuzz.fixture_sources(), reason="no fixtures")
@settings(BOUNDED, max_examples=15)
@given(fuzz.fixture_package_mutants())
def test_mutated_fixtures_among_the_fixture_packages_are_answered(
    modules: dict[str, bytes],
) -> None:
    fuzz.check_files(modules)


# CPython 3.10/3.11 compile this (invalid UTF-8 inside a comment); libcst alone refuses it.
UNDECODABLE_COMMENT = (
    b"from dispatch_lint import runtime as dispatch\nx = dispatch.placeholder((2,))  # \xff\xfe\n"
)


def test_undecodable_bytes_in_a_comment_are_answered() -> None:
    fuzz.check_source(UNDECODABLE_COMMENT)


def test_a_slow_analysis_is_a_failure_the_fuzzer_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    real = fuzz.analyze

    def slow(files):  # type: ignore[no-untyped-def]
        return dataclasses.replace(real(files), work=10**9)

    monkeypatch.setattr(fuzz, "analyze", slow)
    with pytest.raises(AssertionError, match="slow: 1000000000 steps of analysis for 3 lines"):
        fuzz.check_files({"small": UNDECODABLE_COMMENT})


# Closures re-wrapping an attribute at every call: exponential work before the analysis was
# bounded (tests/analyzer/test_bounds.py has the story); within the fuzzer's budget now.
REWRAPPED = b"""\
from dispatch_lint import runtime as dispatch
class Model:
    def __init__(self):
        self.forward = lambda x: x
def wrap(fn):
    def forward(*args):
        return fn(*args)
    return forward
def prepare(model):
    model.forward = wrap(model.forward)
m = Model()
""" + b"prepare(m)\n" * 12


def test_closures_rewrapped_at_every_call_stay_within_the_fuzz_budget() -> None:
    fuzz.check_source(REWRAPPED)


# A function that fills a container and calls itself with it (a mutant of
# fixtures/dict_setdefault_update.py that lost its `def main():` line): each level and round
# of the recursion read the heap in a new view and a new context (the constant `kind`),
# 5,492 steps for these 14 lines; now 5 analyses of `collect`.
RECURSIVE_FILLER = b"""\
from dispatch_lint import runtime as dispatch
def collect(groups, kind, t):
    groups.setdefault(kind, []).append(t)
    feeds = {"w": dispatch.ones((2,))}
    feeds.update(x=dispatch.placeholder((2,), name="x"), b=dispatch.zeros((2,)))
    groups = {}
    collect(groups, "weights", feeds["w"])
    collect(groups, "weights", feeds["b"])
    collect(groups, "inputs", feeds["x"])
    for t in groups["weights"]:
        print("weight", t.tolist())
    for t in groups.setdefault("inputs", []):
        print("input", t.tolist())
"""


def test_a_recursive_function_filling_containers_stays_within_the_fuzz_budget() -> None:
    fuzz.check_source(RECURSIVE_FILLER)


def test_statements_swap_in_a_file_with_a_byte_invalid_in_a_comment() -> None:
    # CPython compiles it (the comment is never decoded); libcst's own decoding refuses it,
    # so the mutator parses as the analyzer does instead of raising out of the strategy.
    import random

    source = b"a = 1  # caf\xff\nb = 2\n"
    assert fuzz.compiles(source)
    swapped = fuzz.swap_statements(source, random.Random(0))
    assert swapped.splitlines()[0] == b"b = 2"
