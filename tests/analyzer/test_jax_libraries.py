"""Quiet on real JAX code: a library built on JAX, downloaded from the package index, gets no
finding that is not judged a real bug (benchmarks/jax_libraries.py runs all six and times
them; this runs one, to keep the suite quick)."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_scripts import load_script

#: The one library checked here: chex lints in about 4 s of CPU and meets jit, pmap, partial
#: and defaults (distrax's 70 library modules took 117 s of CPU before main's bounded joins
#: and issue 14's heap change, 4.4 s after; its tests, flax and optax take minutes on a busy
#: machine: benchmarks/jax_libraries.py runs them).
LIBRARY = "chex"


bench = load_script("benchmarks/jax_libraries.py", "dispatch_lint_jax_libraries")


def test_a_real_jax_library_gets_no_unjudged_finding(tmp_path: Path) -> None:
    try:
        wheels = bench.download([LIBRARY], tmp_path)
    except bench.IndexUnreachable as exc:
        pytest.skip(f"the package index cannot be reached: {exc}")
    root = bench.unpack(LIBRARY, wheels[LIBRARY], tmp_path)
    run = bench.lint(LIBRARY, root)
    assert run.errors == ()
    assert run.files > 20, f"{LIBRARY} looks truncated: {run.files} files"
    unjudged = [f for f in run.findings if f.judgement is None]
    assert unjudged == [], "\n".join(
        f"{f.path}:{f.line}: {f.rule} {f.message}" for f in unjudged
    )
