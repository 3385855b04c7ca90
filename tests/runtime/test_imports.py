"""The runtime stays light: training code that imports it pays for NumPy only."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
from dispatch_lint import runtime as dispatch
x = dispatch.tensor([1.0], device="autodiff:numpy").require_grad()
x.grad((x * x).sum().backward())
dispatch.replay(dispatch.placeholder((1,), name="p") * 2.0, {"p": [1.0]})
heavy = ("libcst", "rich", "numba", "dispatch_lint.analyzer", "dispatch_lint.rules")
print(sorted(name for name in heavy if name in sys.modules))
"""


def test_importing_and_using_the_runtime_loads_no_linter_and_no_numba() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "[]"


def test_dir_of_the_runtime_shows_its_api_and_no_import_leftovers() -> None:
    from dispatch_lint import runtime as dispatch

    public = {name for name in dir(dispatch) if not name.startswith("_")}
    assert "annotations" not in public
    assert set(dispatch.__all__) <= public
