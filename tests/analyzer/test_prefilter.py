"""The byte prefilter only saves work: every finding of a run that analyses every file is
also found when the files that cannot take part in a dispatch flow are skipped."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dispatch_lint.analyzer import cli, engine
from dispatch_lint.frameworks import Prefilter

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = cli.main(["--format", "json", "--no-cache", "--jobs", "1", *argv])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return out


def _both_ways(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, path: Path
) -> tuple[str, str]:
    """The JSON report with the prefilter, and with every compiled file analysed."""
    filtered = _json(capsys, str(path))
    with monkeypatch.context() as patch:
        patch.setattr(
            engine, "relevant_files", lambda files, modules, mentions: list(files)
        )
        everything = _json(capsys, str(path))
    return filtered, everything


def _write_project(root: Path, seed: int) -> None:
    """Modules where only some mention the runtime: capture values travel through modules
    that never name it (helpers, a constants module holding the device string, re-exports),
    next to unrelated code with its own ``backward`` and ``to_device`` methods."""
    rng = random.Random(seed)
    device = rng.choice(["capture", "numpy"])
    (root / "settings.py").write_text(f"DEVICE = {device!r}\n")
    (root / "maker.py").write_text(
        "from dispatch_lint import runtime as dispatch\nfrom settings import DEVICE\n\n\n"
        "def make():\n    return dispatch.ones((2,), device=DEVICE)\n"
    )
    previous = "maker"
    for level in range(rng.randint(1, 4)):
        (root / f"step{level}.py").write_text(
            f"from {previous} import make as inner\n\n\ndef make():\n    return inner() * 2\n"
        )
        previous = f"step{level}"
    for user in range(rng.randint(1, 4)):
        sink = rng.choice(
            ["value.backward()", "value.to_device('numpy')", "value.numpy()"]
        )
        (root / f"user{user}.py").write_text(
            f"from {previous} import make\n\nvalue = make()\n{sink}\n"
        )
    (root / "unrelated.py").write_text(
        "class Loss:\n    def backward(self):\n        return self\n\n"
        "    def to_device(self, device):\n        return self\n\n\n"
        "Loss().backward().to_device('numpy')\n"
    )


def test_fixtures_give_the_same_report_with_and_without_the_prefilter(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    filtered, everything = _both_ways(capsys, monkeypatch, FIXTURES)
    assert filtered == everything
    assert '"rule": "DL002"' in filtered


@pytest.mark.parametrize("seed", range(6))
def test_flows_through_modules_that_never_name_the_runtime_survive_the_prefilter(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    seed: int,
) -> None:
    _write_project(tmp_path, seed)
    filtered, everything = _both_ways(capsys, monkeypatch, tmp_path)
    assert filtered == everything
    assert "unrelated.py" not in filtered
    if "capture" in (tmp_path / "settings.py").read_text():
        assert '"rule": "DL00' in filtered


def test_the_prefilter_skips_files_outside_every_flow() -> None:
    files = [
        engine.SourceFile(
            "app.py", b"from dispatch_lint import runtime\nimport helper\n"
        ),
        engine.SourceFile("helper.py", b"X = 1\n"),
        engine.SourceFile("alone.py", b"def backward():\n    pass\n"),
    ]
    modules = engine.module_names(files)
    kept = engine.relevant_files(files, modules, Prefilter(engine.AnalysisSettings()))
    assert [f.path for f in kept] == ["app.py", "helper.py"]
