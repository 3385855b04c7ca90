"""pytest plugin (entry point ``pytest11``): ``pytest --dispatch-guards=MODE``.

Owned by the runtime; registered by pyproject.toml. The mode switch lands with guards.py.
"""

from __future__ import annotations


def pytest_addoption(parser):  # type: ignore[no-untyped-def]
    group = parser.getgroup("dispatch-lint")
    group.addoption(
        "--dispatch-guards",
        action="store",
        default=None,
        choices=("raise", "strict", "off"),
        help="run the tests with dispatch_lint.runtime guards in this mode",
    )
