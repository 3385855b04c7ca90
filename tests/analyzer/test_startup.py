"""Start-up: what a run loads decides how fast a pre-commit hook feels. A run answered by the
cache, and a run over files that never use the runtime, load neither libcst nor numpy.
(``--version`` and an empty folder: see ``test_cli.py``.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: What a small run has no use for: the parser, the array libraries, the worker pool.
HEAVY = ("libcst", "numpy", "numba", "multiprocessing", "concurrent")

PROBE = f"""\
import sys
from dispatch_lint.analyzer.cli import main
code = main(sys.argv[1:])
heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))
print(code, heavy, file=sys.stderr)
"""


def lint(cwd: Path, *argv: str) -> tuple[str, str]:
    """stdout, and the exit status with the heavy modules the run loaded."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "--format", "json", *argv],
        cwd=cwd,
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    return result.stdout, result.stderr.strip()


def test_a_run_answered_by_the_cache_loads_no_parser(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(
        "from dispatch_lint import runtime as dispatch\n\n"
        'dispatch.ones((2,), device="capture").backward()\n'
    )
    cold, cold_status = lint(tmp_path)
    assert cold_status == "1 ['libcst']"
    warm, warm_status = lint(tmp_path)
    assert warm == cold
    assert [d["rule"] for d in json.loads(warm)["diagnostics"]] == ["DL001"]
    assert warm_status == "1 []"


def test_files_without_dispatch_code_are_never_parsed(tmp_path: Path) -> None:
    for index in range(5):
        (tmp_path / f"module{index}.py").write_text(f"import os\n\nX = {index}\n")
    (tmp_path / "broken.py").write_text("def f(:\n")
    out, status = lint(tmp_path, "--no-cache")
    assert [d["rule"] for d in json.loads(out)["diagnostics"]] == ["DL000"]
    assert status == "1 []"


def test_the_light_syntax_check_agrees_with_the_engine() -> None:
    from dispatch_lint.analyzer import engine
    from dispatch_lint.analyzer.parallel import FileToCheck, check_syntax_only

    sources = {
        "ok.py": b"import os\n",
        "colon.py": b"def f(:\n    pass\n",
        "indent.py": b"if x:\npass\n",
        "tabs.py": b"if x:\n\tx = 1\n        y = 2\n",
        "nul.py": b"x = 1\0\n",
        "encoding.py": b"# -*- coding: nope -*-\nx = 1\n",
        "latin.py": b"s = '\xff'\n",
    }
    files = [FileToCheck(path, source, path[:-3]) for path, source in sources.items()]
    light = check_syntax_only(files)
    judged = engine.analyze(
        [engine.SourceFile(f.path, f.source, f.module) for f in files]
    )
    assert list(light.diagnostics) == list(judged.diagnostics)
    assert [(d.message, d.end_line, d.end_column) for d in light.diagnostics] == [
        (d.message, d.end_line, d.end_column) for d in judged.diagnostics
    ]
    assert len(light.diagnostics) == 6


def test_a_cached_text_report_into_a_pipe_loads_no_rich(tmp_path: Path) -> None:
    # Colour is only for terminals; rendering findings through rich (or importing it) would
    # cost a warm run more than its analysis.
    (tmp_path / "train.py").write_text(
        "from dispatch_lint import runtime as dispatch\n\n"
        'dispatch.ones((2,), device="capture").backward()\n'
    )
    probe = PROBE.replace(repr(HEAVY), repr((*HEAVY, "rich")))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")
    }
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe],
            cwd=tmp_path,
            capture_output=True,
            check=False,
            env=env,
            text=True,
            timeout=120,
        )
        for _ in range(2)
    ]
    assert runs[1].stdout == runs[0].stdout
    assert " --> train.py:3:1\n" in runs[1].stdout
    assert runs[1].stderr.strip() == "1 []"
