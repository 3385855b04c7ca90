"""Bad input through the real CLI: each gets DL000 with CPython's reason, or exit 2 with one
line, or is checked cleanly; never a traceback; the other files are still checked and flagged;
nothing checked is run or written."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from dispatch_lint.analyzer import cli
from dispatch_lint.analyzer.project import ModuleIndex

#: Always in the checked folder beside the bad input: proof that the others are still flagged.
OTHER = ("other.py", b"def f(:\n    pass\n")
OTHER_FINDING = "other.py:1:7: DL000 Syntax error: invalid syntax"


def cpython_reason(source: bytes) -> str | None:
    """What CPython itself says about ``source``: None when it compiles."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<bad>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc.msg
    except (ValueError, RecursionError, MemoryError) as exc:
        return str(exc) or type(exc).__name__
    return None


def lint(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The CLI on ``folder``, one line a finding (``--output-format concise``)."""
    result = subprocess.run(
        [sys.executable, "-m", "dispatch_lint.analyzer.cli", "--output-format", "concise",
         *argv],
        cwd=folder,
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert "Traceback" not in result.stderr + result.stdout
    return result


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write(tmp_path, *OTHER)
    return tmp_path


def _rng_bytes() -> bytes:
    return random.Random(20261130).randbytes(4096)


NOT_PYTHON = [
    ("syntax_error", b"x = = 1\n", "invalid syntax"),
    ("nul_byte", b"x = 1\x00\n", "source code string cannot contain null bytes"),
    (
        "undecodable",
        b"name = '\xff\xfe'\n",
        "(unicode error) 'utf-8' codec can't decode byte 0xff",
    ),
    ("python2", b"print 'hello'\n", "Missing parentheses in call to 'print'"),
    (
        "tabs",
        b"if True:\n\tx = 1\n        y = 2\n",
        "TabError: inconsistent use of tabs and spaces",
    ),
    (
        "too_deep",
        b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n",
        "too many nested parentheses",
    ),
]


@pytest.mark.parametrize(
    ("name", "data", "reason"), NOT_PYTHON, ids=[c[0] for c in NOT_PYTHON]
)
def test_unparsable_file_is_one_dl000_with_cpython_reason(
    folder: Path, name: str, data: bytes, reason: str
) -> None:
    assert cpython_reason(data) is not None
    write(folder, f"{name}.py", data)
    result = lint(folder)
    assert result.returncode == 1
    findings = [line for line in result.stdout.splitlines() if ": DL" in line]
    assert len(findings) == 2
    assert OTHER_FINDING in findings
    [mine] = [line for line in findings if line.startswith(f"{name}.py:")]
    assert f"DL000 Syntax error: {reason}" in mine
    assert result.stderr == ""


VALID = [
    ("latin1_cookie", "# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1")),
    ("bom", b"\xef\xbb\xbfimport os\nprint(os.sep)\n"),
    ("crlf", b"import os\r\nif os.sep:\r\n    print(1)\r\n"),
    ("empty", b""),
    ("deep_accepted", b"x = " + b"(" * 150 + b"1" + b")" * 150 + b"\n"),
    (
        "deep_blocks",
        "".join("    " * i + "if x:\n" for i in range(19)).encode()
        + b"    " * 19
        + b"pass\n",
    ),
]


@pytest.mark.parametrize(("name", "data"), VALID, ids=[c[0] for c in VALID])
def test_valid_odd_file_is_checked_cleanly(
    folder: Path, name: str, data: bytes
) -> None:
    assert cpython_reason(data) is None
    write(folder, f"{name}.py", data)
    result = lint(folder)
    assert result.returncode == 1
    assert [line for line in result.stdout.splitlines() if ": DL" in line] == [
        OTHER_FINDING
    ]
    assert result.stdout.endswith("Found 1 error in 1 file (2 files checked).\n")


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("long_expression", b"x = " + b" + ".join([b"1"] * 50_000) + b"\n"),
        ("random_bytes", _rng_bytes()),
    ],
    ids=["long_expression", "random_bytes"],
)
def test_giant_or_random_file_gets_exactly_cpython_verdict(
    folder: Path, name: str, data: bytes
) -> None:
    write(folder, f"{name}.py", data)
    result = lint(folder)
    findings = [line for line in result.stdout.splitlines() if ": DL" in line]
    assert OTHER_FINDING in findings
    expected = cpython_reason(data)
    mine = [line for line in findings if line.startswith(f"{name}.py:")]
    if expected is None:
        assert mine == []
    else:
        assert len(mine) == 1 and ": DL000 Syntax error: " in mine[0]
    assert result.returncode == 1


def test_300000_line_file(folder: Path) -> None:
    write(
        folder,
        "huge.py",
        "".join(f"value_{i} = {i}\n" for i in range(300_000)).encode(),
    )
    result = lint(folder)
    assert result.returncode == 1
    assert [line for line in result.stdout.splitlines() if ": DL" in line] == [
        OTHER_FINDING
    ]


def test_folder_named_like_a_module(folder: Path) -> None:
    write(folder, "x.py/inner.py", b"y = (\n")
    result = lint(folder, ".", "x.py")
    findings = [line for line in result.stdout.splitlines() if ": DL" in line]
    assert findings == [
        OTHER_FINDING,
        "x.py/inner.py:1:5: DL000 Syntax error: '(' was never closed",
    ]


def test_symlink_loop_and_dangling_link_in_a_walk(folder: Path) -> None:
    (folder / "pkg").mkdir()
    os.symlink(folder, folder / "pkg" / "back_to_top")
    os.symlink(folder / "missing.py", folder / "dangling.py")
    os.symlink("loop.py", folder / "loop.py")
    result = lint(folder)
    assert result.returncode == 1
    assert [line for line in result.stdout.splitlines() if ": DL" in line] == [
        OTHER_FINDING
    ]
    assert result.stderr == ""


def test_dangling_link_named_explicitly_is_one_line(folder: Path) -> None:
    os.symlink(folder / "missing.py", folder / "dangling.py")
    result = lint(folder, "dangling.py", "other.py")
    assert result.returncode == 2
    assert result.stderr == "dangling.py: error: a dangling symbolic link\n"
    assert OTHER_FINDING in result.stdout


def test_missing_path(folder: Path) -> None:
    result = lint(folder, "nope/", "other.py")
    assert result.returncode == 2
    assert result.stderr == "nope/: error: no such file or folder\n"
    assert OTHER_FINDING in result.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_by_mode(folder: Path) -> None:
    secret = write(folder, "secret.py", b"x = 1\n")
    secret.chmod(0)
    try:
        result = lint(folder)
    finally:
        secret.chmod(0o644)
    assert result.returncode == 2
    assert result.stderr == "secret.py: error: cannot read: Permission denied\n"
    assert OTHER_FINDING in result.stdout


def test_unreadable_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The tests may run as root, whom no file mode stops: the read itself is made to fail,
    # as the operating system would fail it.
    write(folder, "secret.py", b"x = 1\n")
    real_read = ModuleIndex.read

    def read(index: ModuleIndex, location: str) -> bytes:
        if os.path.basename(location) == "secret.py":
            raise PermissionError(13, "Permission denied", location)
        return real_read(index, location)

    monkeypatch.setattr(ModuleIndex, "read", read)
    monkeypatch.chdir(folder)
    code = cli.main(["--output-format", "concise", "."])
    out, err = capsys.readouterr()
    assert code == 2
    assert err == "secret.py: error: cannot read: Permission denied\n"
    assert OTHER_FINDING in out


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (b"[tool.dispatch-lint\nselect = [", "broken TOML: "),
        (
            b"[tool.dispatch-lint]\nmax-line-length = 3\n",
            "unknown key 'max-line-length'; allowed keys: ",
        ),
        (
            b"[tool.dispatch-lint]\nignore = ['DL042']\n",
            "ignore: unknown rule selector 'DL042'; allowed: ",
        ),
    ],
    ids=["broken_toml", "unknown_key", "unknown_rule"],
)
def test_bad_configuration_is_one_line(
    folder: Path, config: bytes, message: str
) -> None:
    write(folder, "pyproject.toml", config)
    result = lint(folder)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(
        f"dispatch-lint: error: {folder / 'pyproject.toml'}: "
    )
    assert message in result.stderr


def test_unknown_rule_on_the_command_line(folder: Path) -> None:
    result = lint(folder, "--ignore", "DL042")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "dispatch-lint: error: --ignore: unknown rule selector 'DL042'; allowed: a rule id "
        "(DL000..DL009) or a prefix of one (DL, DL00)\n"
    )


def test_checked_code_is_never_run_or_written(folder: Path) -> None:
    marker = folder / "ran.txt"
    payload = f"open({str(marker)!r}, 'w').write('imported')\n".encode()
    write(folder, "pkg/__init__.py", payload)
    write(
        folder, "pkg/module.py", b"import dispatch_lint.runtime as dispatch\n" + payload
    )
    write(folder, "conftest.py", payload)
    write(folder, "setup.py", payload)
    write(folder, "crlf.py", b"x = 1\r\n" + payload)
    checked = sorted(p for p in folder.rglob("*.py"))
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in checked}
    for argv in (
        [],
        ["--format", "json"],
        ["--format", "sarif"],
        ["--format", "github"],
        ["--statistics"],
        ["--warn-unused-suppressions"],
        ["pkg/module.py", "other.py"],
    ):
        result = lint(folder, *argv)
        assert result.returncode == 1
    assert not marker.exists()
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in checked} == before
    assert sorted(p for p in folder.rglob("*.py")) == checked


def test_an_invalid_escape_in_a_checked_string_is_not_warned_about() -> None:
    """The value of a literal is compiled by CPython, which warns of `"\\_"`: the analysis
    says nothing of the kind about the user's code (the file compiles; it is only a warning)."""
    from dispatch_lint.analyzer.engine import SourceFile, analyze

    source = b'from dispatch_lint import runtime as dispatch\nname = "a\\_b"\ndispatch.device(name)\n'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = analyze([SourceFile("escapes.py", source, "escapes")])
    assert result.errors == ()
    assert [str(w.message) for w in caught] == []
