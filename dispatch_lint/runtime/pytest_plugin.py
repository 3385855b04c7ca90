"""pytest plugin (entry point ``pytest11``): ``pytest --dispatch-guards=MODE``, and JAX trips.

Runs every test (setup, call and teardown) with the runtime's guards in ``MODE``; without the
option the mode is whatever ``DISPATCH_LINT_GUARDS`` says. The guards are imported only when
the option is given, so the plugin costs nothing otherwise.

With ``DISPATCH_LINT_TRIPS=FILE`` set, a test that fails with a JAX tracer error (or an error
it caused) appends that trip to ``FILE`` (:mod:`dispatch_lint.runtime.trips`), as the
runtime's own guards do when they fire.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dispatch-lint")
    group.addoption(
        "--dispatch-guards",
        action="store",
        default=None,
        choices=("raise", "strict", "off"),
        help="run the tests with dispatch_lint.runtime guards in this mode",
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    mode = config.getoption("--dispatch-guards")
    return f"dispatch-lint guards: {mode}" if mode else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Iterator[None]:
    mode = item.config.getoption("--dispatch-guards")
    if not mode:
        yield
        return
    from dispatch_lint.runtime import guards

    # A context-local mode set around the whole protocol, so that a test that changes the
    # mode itself cannot leak it into the next test.
    with guards.mode(mode):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    # Cheap tests first: most runs log no trips, and an error can only be JAX's once JAX is in.
    if call.excinfo is None or not os.environ.get("DISPATCH_LINT_TRIPS"):
        return
    if "jax" not in sys.modules or not outcome.get_result().failed:
        return
    from dispatch_lint.runtime import trips

    trips.record_jax_error(call.excinfo.value)
