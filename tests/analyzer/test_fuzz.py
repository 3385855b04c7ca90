"""Fuzzing, bounded: the analyzer answers every program it is given and never crashes.

The generators and the property live in ``scripts/fuzz.py`` so that this bounded run and the
long run (``python scripts/fuzz.py --examples N --seconds S``) check exactly the same thing:
no exception, no internal error, DL000 exactly when CPython refuses a file, every finding a
well-formed catalog finding inside the checked files, and the same answer when asked again.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parents[2]


def load_fuzz_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "dispatch_lint_fuzz", ROOT / "scripts" / "fuzz.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


fuzz = load_fuzz_script()

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


@BOUNDED
@given(fuzz.grammar_programs())
def test_hypothesmith_programs_are_answered(source: bytes) -> None:
    fuzz.check_source(source)


@pytest.mark.parametrize(
    "fixture", fuzz.fixture_sources(), ids=lambda path: str(path.relative_to(fuzz.FIXTURES))
)
def test_mutated_fixtures_are_answered(fixture: Path) -> None:
    @settings(BOUNDED, max_examples=5)
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
