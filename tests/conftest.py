"""Shared set-up of the test suite."""

from __future__ import annotations

# pytester runs the guards' pytest plugin in a sandboxed pytest (tests/runtime/test_guards.py).
# pytest only honours pytest_plugins in the top-level conftest.
pytest_plugins = ["pytester"]
