"""End-to-end stories with the real analysis and the real runtime: a misuse is flagged with its
trace in every format, suppressions and configuration apply to it, and a run's trips confirm
it or add what only the run saw."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from dispatch_lint.analyzer import cli
from dispatch_lint.analyzer.trips import CONFIRMED, RUNTIME_ONLY

SARIF_SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(
        encoding="utf-8"
    )
)

DIRECT = """\
import dispatch_lint.runtime as dispatch


def main():
    x = dispatch.placeholder((2,))
    x.backward()


if __name__ == "__main__":
    main()
"""

THROUGH_HELPER = """\
import dispatch_lint.runtime as dispatch


def train_step(t):
    loss = t.sum()
    loss.backward()


def main():
    x = dispatch.placeholder((2,))
    train_step(x)


if __name__ == "__main__":
    main()
"""

# getattr with a computed name hides the source from any static analysis; the run sees it.
HIDDEN = """\
import dispatch_lint.runtime as dispatch


def main():
    make = getattr(dispatch, "".join(reversed("redlohecalp")))
    x = make((2,))
    x.backward()


if __name__ == "__main__":
    main()
"""

CLEAN = """\
import numpy as np

import dispatch_lint.runtime as dispatch


def main():
    x = dispatch.placeholder((2,), name="x")
    y = (x * 2).sum()
    real = dispatch.replay(y, {"x": np.ones(2)}, device=dispatch.Autodiff(dispatch.NumPy()))
    real.backward()


if __name__ == "__main__":
    main()
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for name, text in (
        ("direct.py", DIRECT),
        ("helper.py", THROUGH_HELPER),
        ("clean.py", CLEAN),
    ):
        (tmp_path / name).write_text(text)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_shows_the_finding_with_source_and_trace(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "direct.py", "clean.py")
    lines = out.splitlines()
    assert (code, err) == (1, "")
    assert lines[0] == (
        "DL001 Capture tensors do not support autodiff: `.backward()` is called on a value "
        "that may be a capture tensor"
    )
    assert lines[1:6] == [
        " --> direct.py:6:5",
        "  |",
        "6 |     x.backward()",
        "  |     ^^^^^^^^^^^^",
        "  |",
    ]
    notes = lines[6:-3]
    assert notes[0].startswith("  1. direct.py:5:")
    assert notes[-1].startswith(f"  {len(notes)}. direct.py:6:")
    assert lines[-3:] == [
        "help: replay the captured program first (dispatch.replay / Program.run) and "
        "differentiate the real result, or train on Autodiff(NumPy())",
        "",
        "Found 1 error in 1 file (2 files checked).",
    ]


def test_json_trace_goes_through_the_helper(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--format", "json", "helper.py", "clean.py")
    assert code == 1
    [finding] = json.loads(out)["diagnostics"]
    assert (finding["path"], finding["line"], finding["rule"], finding["name"]) == (
        "helper.py",
        11,
        "DL001",
        "capture-backward",
    )
    lines = [step["line"] for step in finding["trace"]]
    assert lines[0] == 10  # born from dispatch.placeholder
    assert {4, 6} <= set(lines)  # the helper's parameter and its .backward()
    assert all(step["path"] == "helper.py" for step in finding["trace"])


def test_sarif_code_flow_of_a_real_finding(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--format", "sarif", "helper.py")
    assert code == 1
    log = json.loads(out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    [result] = log["runs"][0]["results"]
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert result["ruleId"] == "DL001"
    assert [s["location"]["physicalLocation"]["region"]["startLine"] for s in steps][
        -1
    ] == 6


def test_github_annotation_of_a_real_finding(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--format", "github", "direct.py")
    assert code == 1
    assert out.startswith(
        "::error file=direct.py,line=6,col=5,endLine=6,endColumn=17,"
        "title=DL001 capture-backward::Capture tensors do not support autodiff"
    )
    assert out.count("\n") == 1


def test_noqa_and_config_silence_a_real_finding(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "direct.py").write_text(
        DIRECT.replace("x.backward()", "x.backward()  # noqa: DL001")
    )
    assert run(capsys, "direct.py")[0] == 0
    (project / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\nignore = ['DL001']\n"
    )
    assert run(capsys, "helper.py")[0] == 0


def _trips_of(project: Path, program: str) -> Path:
    trips = project / f"{program}.trips.jsonl"
    result = subprocess.run(
        [sys.executable, program],
        cwd=project,
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
        env={**os.environ, "DISPATCH_LINT_TRIPS": str(trips)},
    )
    assert "CaptureAutodiffError" in result.stderr
    return trips


def test_run_confirms_the_static_finding_at_the_call(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trips = _trips_of(project, "helper.py")
    code, out, _ = run(capsys, "--format", "json", "--trips", str(trips), "helper.py")
    assert code == 1
    [finding] = json.loads(out)["diagnostics"]
    assert finding["line"] == 11
    assert finding["trace"][-1]["message"] == CONFIRMED


def test_run_reports_what_the_static_analysis_missed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "hidden.py").write_text(HIDDEN)
    assert run(capsys, "hidden.py")[0] == 0
    trips = _trips_of(project, "hidden.py")
    code, out, _ = run(capsys, "--format", "json", "--trips", str(trips), "hidden.py")
    [finding] = json.loads(out)["diagnostics"]
    assert (code, finding["rule"], finding["line"]) == (1, "DL001", 7)
    assert [(s["line"], s["message"]) for s in finding["trace"]] == [
        (6, "the capture tensor was created here (seen at run time)"),
        (7, RUNTIME_ONLY),
    ]


def test_configured_sources_and_sinks_extend_the_model(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.dispatch-lint]\n"
        'sources = ["mylib.make_capture"]\n'
        'sinks = [{name = "mylib.train_step", arg = 0, rule = "DL001"}]\n'
    )
    (project / "app.py").write_text(
        "import dispatch_lint.runtime as dispatch\n"
        "import mylib\n"
        "\n"
        "def main():\n"
        "    x = dispatch.placeholder((2,))\n"
        "    mylib.train_step(x)\n"
        "    y = mylib.make_capture()\n"
        "    y.backward()\n"
    )
    code, out, _ = run(capsys, "--format", "json", "app.py")
    found = [(d["line"], d["rule"]) for d in json.loads(out)["diagnostics"]]
    assert (code, found) == (1, [(6, "DL001"), (8, "DL001")])
