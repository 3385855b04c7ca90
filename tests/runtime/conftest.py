"""Shared set-up of the runtime tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dispatch_lint.runtime import guards


@pytest.fixture(autouse=True)
def default_guard_mode() -> Iterator[None]:
    """Each test starts in the default mode ``raise``, whatever ``--dispatch-guards`` or
    ``DISPATCH_LINT_GUARDS`` say: the tests that need another mode set it themselves."""
    with guards.mode("raise"):
        yield
