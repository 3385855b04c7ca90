"""``--fix``, ``--unsafe-fixes`` and ``--diff``: what the fixes change, and everything they leave
alone (every other byte of every file), on a copy of the fixtures and on small stories."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dispatch_lint import lint_source
from dispatch_lint.analyzer import cli
from dispatch_lint.analyzer.diagnostics import SAFE, UNSAFE, Edit, Fix
from dispatch_lint.analyzer.fixes import apply_fixes, fix_files

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
sys.path.insert(0, str(ROOT / "tests"))
from test_fixtures import read_marks  # noqa: E402


def lint_process(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The CLI in ``cwd`` (its results cache there too: the runs of a test share it)."""
    return subprocess.run(
        [sys.executable, "-P", "-m", "dispatch_lint.analyzer.cli", *argv],
        cwd=cwd,
        capture_output=True,
        check=False,
        text=True,
        timeout=600,
        env={**os.environ, "NO_COLOR": "1"},
    )


def marked(path: Path, rules: set[str]) -> set[int]:
    """The lines of ``path`` marked with one of ``rules``."""
    return {line for line, found in read_marks(path).items() if set(found) & rules}


def changed_lines(before: Path, after: Path) -> set[int]:
    old = before.read_bytes().splitlines(keepends=True)
    new = after.read_bytes().splitlines(keepends=True)
    assert len(old) == len(new), f"{after}: the fixes added or removed lines"
    return {number for number, (a, b) in enumerate(zip(old, new, strict=True), 1) if a != b}


def runs_cleanly(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(path)],
        cwd=path.parent,
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
        env={**os.environ, "DISPATCH_LINT_GUARDS": "strict"},
    )


def test_fix_on_a_copy_of_the_fixtures_fixes_dl005_and_dl007_and_nothing_else(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    sources = sorted(p.relative_to(FIXTURES) for p in FIXTURES.rglob("*.py"))
    rules = {"DL005", "DL007"}

    # --fix applies the safe fixes: every DL005 and DL007 of the fixtures is one the analysis
    # can be sure of, also the one found at the call of a helper whose only use of its
    # parameter is the move (passing `.inner()` there changes nothing else).
    safe = lint_process(tmp_path, "fixtures", "--fix")
    assert safe.returncode == 1, safe.stderr  # other rules' findings remain
    # nothing but the line saying that precision was dropped (the fixtures of the bound on
    # instances told apart, fixtures/jax/*_trace_made_tuple_field.py)
    assert [line for line in safe.stderr.splitlines()
            if "note: precision reduced in 2 functions" not in line] == []
    assert "fixed, " in safe.stdout.splitlines()[-2]
    fixed_files = []
    for relative in sources:
        changed = changed_lines(FIXTURES / relative, copy / relative)
        assert changed == marked(FIXTURES / relative, rules), relative
        if changed:
            fixed_files.append(relative)
    assert len(fixed_files) >= 6, fixed_files
    line = (copy / "autodiff_to_plain_move.py").read_text().splitlines()[8]
    assert line == "    snapshot = w.inner().to_device(dispatch.NumPy())  # expect: DL007"
    line = (copy / "helper_mixed_move.py").read_text().splitlines()[12]
    assert line == "    print(to_cpu(w.inner()))  # expect: DL007"

    # Nothing of those rules is left for --unsafe-fixes.
    both = lint_process(tmp_path, "fixtures", "--fix", "--unsafe-fixes", "--select",
                        "DL005,DL007")
    assert both.returncode == 0, both.stdout + both.stderr
    assert "fixed" not in both.stdout
    assert all(changed_lines(FIXTURES / r, copy / r) == marked(FIXTURES / r, rules)
               for r in sources)

    # The fixed files lint clean of those rules, and they run under the runtime's strict
    # guards without the errors they raised.
    relint = lint_process(tmp_path, "fixtures", "--select", "DL005,DL007", "--format",
                          "json")
    assert json.loads(relint.stdout)["diagnostics"] == []
    for relative in fixed_files:
        assert not set().union(*read_marks(FIXTURES / relative).values()) - rules
        # (tests/test_fixtures.py runs the originals: they raise the error they are marked
        # with.)
        done = runs_cleanly(copy / relative)
        assert done.returncode == 0, f"{relative}: {done.stderr}"


def test_diff_shows_the_fixes_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    source = (FIXTURES / "nested_autodiff.py").read_bytes()
    path.write_bytes(source)
    shown = lint_process(tmp_path, "train.py", "--diff")
    assert shown.returncode == 1
    assert path.read_bytes() == source
    assert shown.stdout.splitlines()[:2] == ["--- train.py", "+++ train.py"]
    assert "-    second_order = dispatch.Autodiff(trainable)  # expect: DL005" in shown.stdout
    assert "+    second_order = trainable  # expect: DL005" in shown.stdout
    assert shown.stderr == "Would fix 1 error.\n"

    (tmp_path / "clean.py").write_text("import os\n")
    nothing = lint_process(tmp_path, "clean.py", "--diff")
    assert (nothing.returncode, nothing.stdout, nothing.stderr) == (
        0, "", "No fixes available.\n"
    )


def test_diff_of_unsafe_fixes_says_how_to_get_them(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "autodiff_capture_keyword.py", tmp_path / "capture_keyword.py")
    shown = lint_process(tmp_path, "capture_keyword.py", "--diff")
    assert (shown.returncode, shown.stdout) == (0, "")
    assert shown.stderr == (
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
    )
    unsafe = lint_process(tmp_path, "capture_keyword.py", "--diff", "--unsafe-fixes")
    assert unsafe.returncode == 1
    assert '+    x = dispatch.placeholder((4, 4), device="capture")  # expect: DL004' in (
        unsafe.stdout
    )


HEADER = "from dispatch_lint import runtime as dispatch\n"


def fixes_of(code: str) -> list[tuple[str, str | None, str | None]]:
    """(rule, applicability, the fixed line) for each finding of ``code`` (under an import
    of the runtime as ``dispatch``)."""
    source = HEADER + textwrap.dedent(code)
    out = []
    for d in lint_source(source, path="m.py"):
        if d.fix is None:
            out.append((d.rule, None, None))
            continue
        fixed, applied = apply_fixes(source.encode(), [d.fix])
        assert applied
        out.append((d.rule, d.fix.applicability, fixed.decode().splitlines()[d.line - 1]))
    return out



def test_nested_autodiff_by_its_form_is_safe_anywhere() -> None:
    assert fixes_of("""
        def make(flag):
            return dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy()))
        def name(flag):
            return dispatch.Autodiff("autodiff:numba")
        def string(flag):
            return dispatch.Autodiff(dispatch.device('autodiff:numpy'))
    """) == [
        ("DL005", SAFE, "    return dispatch.Autodiff(dispatch.NumPy())"),
        ("DL005", SAFE, '    return dispatch.Autodiff("numba")'),
        ("DL005", SAFE, "    return dispatch.device('autodiff:numpy')"),
    ]


def test_a_fix_from_the_values_is_safe_only_where_every_run_was_seen() -> None:
    found = fixes_of("""
        def main():
            w = dispatch.ones((2,), device="autodiff:numpy")
            print(w.to_device(dispatch.NumPy()))
        def per_context(flag):
            w = dispatch.ones((2,), device="autodiff:numpy")
            return w.to_device(dispatch.NumPy())
        def in_a_loop():
            w = dispatch.ones((2,), device="autodiff:numpy")
            for _ in range(2):
                print(w.to_device(dispatch.NumPy()))
    """)
    assert found == [
        ("DL007", SAFE, "    print(w.inner().to_device(dispatch.NumPy()))"),
        ("DL007", UNSAFE, "    return w.inner().to_device(dispatch.NumPy())"),
        ("DL007", UNSAFE, "        print(w.inner().to_device(dispatch.NumPy()))"),
    ]


def test_passing_inner_to_a_helper_is_safe_when_the_move_is_all_it_does_with_it() -> None:
    found = fixes_of("""
        def to_cpu(t):
            return t.to_device(dispatch.NumPy())
        def also_returns_it(t):
            moved = t.to_device(dispatch.NumPy())
            return moved, t
        def in_a_loop(t, d):
            for _ in range(2):
                t.to_device(d)
        def through_another(t):
            return to_cpu(t)
        def reads_locals(t):
            print(locals())
            return t.to_device("numpy")
        def a_closure_reads_it(t):
            later = lambda: t.requires_grad
            return t.to_device(dispatch.NumPy()), later
        def an_attribute_of_that_name(t, x):
            x.t = 1
            return t.to_device(device=dispatch.NumPy())
        def logged(f):
            return f
        @logged
        def decorated(t):
            return t.to_device(dispatch.NumPy())
        def main():
            w = dispatch.ones((2,), device="autodiff:numpy")
            to_cpu(w)
            to_cpu(t=w)
            an_attribute_of_that_name(w, None)
            also_returns_it(w)
            in_a_loop(w, dispatch.NumPy())
            through_another(w)
            reads_locals(w)
            a_closure_reads_it(w)
            decorated(w)
            for _ in range(2):
                to_cpu(w)
    """)
    assert found == [
        ("DL007", SAFE, "    to_cpu(w.inner())"),
        ("DL007", SAFE, "    to_cpu(t=w.inner())"),
        ("DL007", SAFE, "    an_attribute_of_that_name(w.inner(), None)"),
        # The helper uses the parameter again: it may need autodiff.
        ("DL007", UNSAFE, "    also_returns_it(w.inner())"),
        # One round of the loop was seen; another may move it elsewhere.
        ("DL007", UNSAFE, "    in_a_loop(w.inner(), dispatch.NumPy())"),
        # Passed on to another helper: not the move itself.
        ("DL007", UNSAFE, "    through_another(w.inner())"),
        ("DL007", UNSAFE, "    reads_locals(w.inner())"),
        ("DL007", UNSAFE, "    a_closure_reads_it(w.inner())"),
        # The decorator sees the argument.
        ("DL007", UNSAFE, "    decorated(w.inner())"),
        # Other runs of the call may pass something else.
        ("DL007", UNSAFE, "        to_cpu(w.inner())"),
    ]
    titles = [d.fix.title for d in lint_source(HEADER + textwrap.dedent("""
        def to_cpu(t):
            return t.to_device(dispatch.NumPy())
        def twice(t):
            return t.to_device(dispatch.NumPy()), t.to_device(dispatch.Numba())
        w = dispatch.ones((2,), device="autodiff:numpy")
        for _ in range(2):
            to_cpu(w)
        twice(w)
    """), path="m.py") if d.fix is not None]
    assert titles == [
        "pass `w.inner()` to drop autodiff before the helper moves it (unsafe fix: other runs "
        "of this line may see other devices)",
        "pass `w.inner()` to drop autodiff before the helper moves it (unsafe fix: the helper "
        "may need autodiff)",
    ]


def test_a_value_of_either_kind_gets_no_fix() -> None:
    # In another calling context the argument is a plain device, and Autodiff(d) is right.
    assert fixes_of("""
        def wrap(flag):
            d = dispatch.Autodiff(dispatch.NumPy()) if flag else dispatch.NumPy()
            return dispatch.Autodiff(d)
        def main():
            w = dispatch.ones((2,)) if input() else dispatch.ones((2,), device="autodiff:numpy")
            w.to_device("numba")
    """) == [("DL005", None, None), ("DL007", None, None)]


def test_lifting_a_plain_tensor_onto_its_autodiff_device() -> None:
    # each move on its own path: nothing runs after a move that always raises
    assert fixes_of("""
        def by_object():
            dev = dispatch.Autodiff(dispatch.NumPy())
            t = dispatch.tensor([1.0])
            a = t.to_device(dev)
        def by_name():
            t = dispatch.tensor([1.0])
            b = t.to_device(device="autodiff:numpy")
        def made_in_place():
            dev = dispatch.Autodiff(dispatch.NumPy())
            c = dispatch.tensor([1.0]).to_device(dev)
        def other_backend():
            t = dispatch.tensor([1.0])
            d = t.to_device("autodiff:numba")
    """) == [
        ("DL007", SAFE, "    a = dev.wrap(t)"),
        ("DL007", SAFE, '    b = dispatch.device("autodiff:numpy").wrap(t)'),
        # The device would now be made before the tensor: not the same order of calls.
        ("DL007", UNSAFE, "    c = dev.wrap(dispatch.tensor([1.0]))"),
        # A NumPy tensor does not lift onto Autodiff(Numba()): no fix.
        ("DL007", None, None),
    ]


def test_autodiff_over_capture_fixes_are_unsafe() -> None:
    assert fixes_of("""
        x = dispatch.zeros((2,), device='autodiff:capture')
        dev = dispatch.Autodiff(dispatch.Capture())
    """) == [
        ("DL004", UNSAFE, "x = dispatch.zeros((2,), device='capture')"),
        ("DL004", UNSAFE, "dev = dispatch.Capture()"),
    ]


def test_capture_findings_have_no_automatic_fix() -> None:
    assert fixes_of("""
        x = dispatch.placeholder((2,))
        if x.sum() > 0:
            x.backward()
    """) == [("DL003", None, None), ("DL001", None, None)]


def test_a_fix_keeps_comments_and_the_code_around_it() -> None:
    source = HEADER + (
        "def main():\n"
        "    w = dispatch.ones((2,), device='autodiff:numpy')\n"
        "    snapshot = (w  # the weights\n"
        "                .to_device(dispatch.NumPy()))  # keep me\n"
    )
    [finding] = lint_source(source, path="m.py")
    fixed, _ = apply_fixes(source.encode(), [finding.fix])  # type: ignore[list-item]
    assert fixed.decode().splitlines()[3:] == [
        "    snapshot = (w.inner()  # the weights",
        "                .to_device(dispatch.NumPy()))  # keep me",
    ]
    # A fix that would drop a comment is not offered.
    dropping = HEADER + (
        "def main():\n"
        "    d = dispatch.Autodiff(dispatch.NumPy())\n"
        "    e = dispatch.Autodiff(  # why\n"
        "        d)\n"
    )
    assert [f.fix for f in lint_source(dropping, path="m.py")] == [None]


def test_encodings_and_line_ends_survive_a_fix() -> None:
    body = (
        "# -*- coding: latin-1 -*-\r\n"
        "from dispatch_lint import runtime as dispatch\r\n"
        "name = 'caf\xe9'\r\n"
        "d = dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy()))\r\n"
    )
    source = body.encode("latin-1")
    [finding] = lint_source(source, path="m.py")
    fixed, applied = apply_fixes(source, [finding.fix])  # type: ignore[list-item]
    assert applied
    assert fixed == body.replace(
        "dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy()))",
        "dispatch.Autodiff(dispatch.NumPy())",
    ).encode("latin-1")
    bom = b"\xef\xbb\xbf" + HEADER.encode() + b"d = dispatch.Autodiff(dispatch.Autodiff('numpy'))\n"
    [finding] = lint_source(bom, path="m.py")
    fixed, _ = apply_fixes(bom, [finding.fix])  # type: ignore[list-item]
    assert fixed == bom.replace(b"Autodiff(dispatch.Autodiff('numpy'))", b"Autodiff('numpy')")


def test_overlapping_fixes_wait_for_the_next_round() -> None:
    source = b"abcdef\n"
    first = Fix("a", SAFE, (Edit(1, 2, 1, 4, "X"),))
    overlapping = Fix("b", SAFE, (Edit(1, 3, 1, 5, "Y"),))
    later = Fix("c", SAFE, (Edit(1, 5, 1, 6, "Z"),))
    fixed, applied = apply_fixes(source, [later, overlapping, first])
    assert (fixed, applied) == (b"aXdZf\n", (first, later))


def test_fix_repeats_until_nested_fixes_are_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(
        HEADER + "d = dispatch.Autodiff(dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy())))\n"
    )
    assert cli.main(["m.py", "--fix", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "m.py").read_text().splitlines()[1] == (
        "d = dispatch.Autodiff(dispatch.NumPy())"
    )
    assert out == "Found 2 errors (2 fixed, 0 remaining) in 1 file (1 file checked).\n"


def test_a_fix_whose_result_would_not_compile_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "m.py"
    original = HEADER + "d = dispatch.Autodiff(dispatch.Autodiff(dispatch.NumPy()))\n"
    path.write_text(original)
    [finding] = lint_source(original, path="m.py")
    broken = Fix("break it", SAFE, (Edit(2, 1, 2, 2, "("),))
    changes, refused = fix_files(
        [dataclasses.replace(finding, fix=broken)], {"m.py": path.read_bytes()}
    )
    assert changes == []
    [(where, reason)] = refused
    assert where == "m.py" and reason.startswith("the fixed file would not compile (")
    assert reason.endswith(" at line 2), so it was left as it is")

    from dispatch_lint.analyzer import fixes

    monkeypatch.setattr(fixes, "apply_fixes", lambda source, found: (b"x = (\n", found))
    assert cli.main(["m.py", "--fix", "--no-cache"]) == 1
    assert path.read_text() == original
    captured = capsys.readouterr()
    assert "m.py: the fixed file would not compile" in captured.err
    assert captured.out.splitlines()[-1] == "Found 1 error in 1 file (1 file checked)."
