"""The pytest plugin: ``pytest --dispatch-guards=MODE`` runs the tests in that mode."""

from __future__ import annotations

import pytest

TESTS = """
import pytest
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards
from dispatch_lint.runtime.errors import CaptureAutodiffWarning

def test_mode():
    print("MODE=" + guards.get_mode())

def test_autodiff_over_capture():
    dispatch.Autodiff(dispatch.Capture())

def test_leaves_mode_alone_for_the_next_test():
    guards.set_mode("off")
"""


@pytest.mark.parametrize("mode", ["strict", "off", "raise"])
def test_option_sets_the_mode_for_every_test(
    pytester: pytest.Pytester, mode: str
) -> None:
    pytester.makepyfile(test_user=TESTS)
    result = pytester.runpytest_subprocess(
        f"--dispatch-guards={mode}", "-s", "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines([f"*MODE={mode}*"])
    if mode == "strict":
        result.assert_outcomes(passed=2, failed=1)
        result.stdout.fnmatch_lines(
            ["*CaptureAutodiffWarning: Autodiff over a capture device*"]
        )
    else:
        result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([f"dispatch-lint guards: {mode}"])


def test_without_the_option_the_environment_decides(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISPATCH_LINT_GUARDS", raising=False)
    pytester.makepyfile(test_user=TESTS)
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*MODE=raise*"])
    result.assert_outcomes(passed=3, warnings=1)
    monkeypatch.setenv("DISPATCH_LINT_GUARDS", "off")
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*MODE=off*"])


def test_unknown_mode_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=TESTS)
    result = pytester.runpytest_subprocess("--dispatch-guards=loud")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*invalid choice*loud*"])
