"""``--trips FILE``: runtime guard trips confirm static findings or add what only the run saw."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dispatch_lint.analyzer import cli
from dispatch_lint.analyzer.trips import CONFIRMED, RUNTIME_ONLY


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sink_finder: None) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(
        "x = make()\nx.backward()\ny = helper(x)\ny.numpy()\n"
    )
    return tmp_path


def _trips(path: Path, *records: object) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)
    )
    return path


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
    code = cli.main(["--format", "json", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_confirmed_and_runtime_only_findings(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trips = _trips(
        project / "trips.jsonl",
        {
            "rule": "DL001",
            "file": str(project / "train.py"),
            "line": 2,
            "origin": "train.py:1",
        },
        {
            "rule": "DL003",
            "file": str(project / "train.py"),
            "line": 4,
            "origin": {"file": str(project / "train.py"), "line": 1},
        },
        {
            "rule": "DL001",
            "file": "/usr/lib/python3/site-packages/other.py",
            "line": 9,
            "origin": None,
        },
    )
    code, document, err = _json(capsys, "--trips", str(trips), ".")
    assert (code, err) == (1, "")
    found = [
        (d["path"], d["line"], d["rule"], [s["message"] for s in d["trace"]])
        for d in document["diagnostics"]
    ]
    assert found == [
        ("train.py", 2, "DL001", ["a capture tensor is created here", "it reaches .backward()", CONFIRMED]),
        (
            "train.py",
            4,
            "DL003",
            ["the capture tensor was created here (seen at run time)", RUNTIME_ONLY],
        ),
    ]
    assert document["diagnostics"][1]["trace"][0]["line"] == 1
    assert document["diagnostics"][1]["message"].startswith(
        "Capture tensors hold no data"
    )


def test_origin_outside_the_checked_files_is_named(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trips = _trips(
        project / "t.jsonl",
        {
            "rule": "DL003",
            "file": "train.py",
            "line": 4,
            "origin": "/elsewhere/make.py:12",
        },
    )
    _, document, _ = _json(capsys, "--trips", str(trips))
    assert document["diagnostics"][1]["trace"][0]["message"] == (
        "the capture tensor was created at /elsewhere/make.py:12"
    )


def test_text_shows_the_evidence(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trips = _trips(
        project / "t.jsonl",
        {"rule": "DL001", "file": "train.py", "line": 2, "origin": "train.py:1"},
    )
    assert cli.main(["--trips", str(trips)]) == 1
    out = capsys.readouterr().out
    assert f"  3. train.py:2:2: {CONFIRMED}" in out


def test_trips_of_ignored_rules_are_left_out(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trips = _trips(
        project / "t.jsonl",
        {"rule": "DL003", "file": "train.py", "line": 4, "origin": None},
    )
    code, document, _ = _json(capsys, "--trips", str(trips), "--ignore", "DL003")
    assert code == 1
    assert [d["rule"] for d in document["diagnostics"]] == ["DL001"]


def test_malformed_lines_are_skipped_with_a_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trips = _trips(
        project / "t.jsonl",
        '{"rule": "DL001", "file": "train.py", "li',
        {"rule": "DL999", "file": "train.py", "line": 2},
        {"rule": "DL003", "file": "train.py", "line": 4},
    )
    code, document, err = _json(capsys, "--trips", str(trips))
    assert code == 1
    assert [d["line"] for d in document["diagnostics"]] == [2, 4]
    assert err == f"dispatch-lint: warning: {trips}: skipped 2 malformed line(s)\n"


def test_missing_trips_file_is_one_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--trips", "nope.jsonl"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "dispatch-lint: error: nope.jsonl: cannot read the trips file: No such file or directory\n"
    )


def test_suppressions_apply_to_what_only_the_run_saw(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "train.py").write_text("y = make()\ny.numpy()  # noqa: DL003\n")
    trips = _trips(
        project / "t.jsonl", {"rule": "DL003", "file": "train.py", "line": 2}
    )
    assert cli.main(["--trips", str(trips)]) == 0
    assert capsys.readouterr().out == "All checks passed (1 file checked).\n"


def test_a_jax_trip_only_the_run_saw_names_jaxs_error_and_the_traced_function(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `convert` is unknown to the static analysis: only the run saw it read the tracer.
    (project / "step.py").write_text(
        "import jax\nfrom host import convert\n\n@jax.jit\ndef step(x):\n    return convert(x)\n"
    )
    trips = _trips(
        project / "t.jsonl",
        {
            "rule": "DL003",
            "file": str(project / "step.py"),
            "line": 6,
            "origin": {"file": str(project / "step.py"), "line": 4},
            "framework": "jax",
            "error": "ConcretizationTypeError",
        },
    )
    code, document, _ = _json(capsys, "--trips", str(trips), "step.py")
    assert code == 1
    (finding,) = document["diagnostics"]
    assert (finding["line"], finding["rule"]) == (6, "DL003")
    assert finding["message"].startswith(
        "JAX tracers hold no concrete value (raised at run time: ConcretizationTypeError). "
        "Fix: keep it a JAX array"
    )
    assert [(s["line"], s["message"]) for s in finding["trace"]] == [
        (4, "the function JAX was tracing here (seen at run time)"),
        (6, RUNTIME_ONLY),
    ]


def test_a_finding_only_the_run_saw_has_its_caret_where_the_run_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A real run of the runtime records the trip; the analysis cannot see through getattr.
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(
        "from dispatch_lint import runtime as dispatch\n"
        "make = getattr(dispatch, ''.join(reversed('redlohecalp')))\n"
        "x = make((2,), name='x')\n"
        "value = 2 * x.sum().item()\n"
    )
    subprocess.run(
        [sys.executable, "train.py"],
        env={**os.environ, "DISPATCH_LINT_TRIPS": "trips.jsonl"},
        capture_output=True,
        check=False,
        timeout=120,
    )
    if sys.version_info < (3, 11):
        pytest.skip("Python says where on its line a call runs from 3.11 on")
    code = cli.main(["--trips", "trips.jsonl", "train.py", "--no-cache"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.splitlines()[:6] == [
        "DL003 Capture tensors hold no data (raised at run time: CaptureDataError)",
        " --> train.py:4:13",
        "  |",
        "4 | value = 2 * x.sum().item()",
        "  |             ^^^^^^^^^^^^^^",
        "  |",
    ]
    assert "  1. train.py:3:1: the capture tensor was created here (seen at run time)" in out
