"""Which files a run checks, and how their paths are shown."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dispatch_lint.analyzer.discovery import (
    _load_patterns,
    _verdict,
    discover,
    module_name,
)


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


def _found(paths: list[str], **kwargs: object) -> list[str]:
    return [f.path for f in discover(paths, **kwargs).files]  # type: ignore[arg-type]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_walks_python_files_sorted_with_paths_as_given(in_tmp: Path) -> None:
    _touch(
        in_tmp, "b.py", "a.py", "notes.txt", "stub.pyi", "pkg/mod.py", "pkg/sub/deep.py"
    )
    assert _found(["."]) == ["a.py", "b.py", "pkg/mod.py", "pkg/sub/deep.py"]
    assert _found(["pkg"]) == ["pkg/mod.py", "pkg/sub/deep.py"]
    assert _found(["./pkg/"]) == ["pkg/mod.py", "pkg/sub/deep.py"]
    assert _found([str(in_tmp / "pkg")]) == [
        str(in_tmp / "pkg" / "mod.py"),
        str(in_tmp / "pkg" / "sub" / "deep.py"),
    ]


def test_default_skipped_folders_and_virtualenvs(in_tmp: Path) -> None:
    _touch(
        in_tmp,
        "keep.py",
        ".git/hook.py",
        "__pycache__/c.py",
        "build/b.py",
        "dist/d.py",
        ".tox/t.py",
        "node_modules/n.py",
        ".dispatch_lint_cache/x.py",
        "env/lib/site.py",
    )
    (in_tmp / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    assert _found(["."]) == ["keep.py"]


def test_gitignore_root_and_nested_with_negation(in_tmp: Path) -> None:
    _touch(
        in_tmp,
        "a.py",
        "gen_a.py",
        "out/x.py",
        "sub/b.py",
        "sub/gen_b.py",
        "sub/keep_me.py",
        "sub/local.py",
    )
    (in_tmp / ".gitignore").write_text("gen_*.py\nout/\n")
    (in_tmp / "sub" / ".gitignore").write_text("local.py\n!gen_b.py\n")
    assert _found(["."]) == ["a.py", "sub/b.py", "sub/gen_b.py", "sub/keep_me.py"]


def test_a_gitignore_line_that_is_no_pattern_is_skipped_as_git_skips_it(
    in_tmp: Path,
) -> None:
    _touch(in_tmp, "keep.py", "skip.py", "gen_a.py")
    (in_tmp / ".gitignore").write_text("!\nskip.py\n\\\n[z-a]\ngen_*.py\n")
    assert _found(["."]) == ["keep.py"]


def test_gitignore_above_the_checked_folder_applies_inside_a_git_work_tree(
    in_tmp: Path,
) -> None:
    (in_tmp / ".git").mkdir()
    (in_tmp / ".gitignore").write_text("secret.py\n")
    _touch(in_tmp, "src/secret.py", "src/open.py")
    assert _found(["src"]) == ["src/open.py"]


def test_exclude_patterns_are_relative_to_the_config_folder(in_tmp: Path) -> None:
    _touch(in_tmp, "proj/generated/g.py", "proj/src/generated/g2.py", "proj/src/m.py")
    found = _found(
        ["proj"], exclude=["/src/generated/", "*.tmp.py"], exclude_root=in_tmp / "proj"
    )
    assert found == ["proj/generated/g.py", "proj/src/m.py"]


def test_explicit_file_is_checked_even_when_excluded(in_tmp: Path) -> None:
    _touch(in_tmp, "skip.py")
    (in_tmp / ".gitignore").write_text("skip.py\n")
    assert _found(["."]) == []
    assert _found(["skip.py"]) == ["skip.py"]
    assert _found(["./skip.py"]) == ["skip.py"]


def test_missing_path_is_an_error_and_others_are_still_found(in_tmp: Path) -> None:
    _touch(in_tmp, "ok.py")
    discovery = discover(["missing.py", "ok.py"])
    assert [f.path for f in discovery.files] == ["ok.py"]
    assert [(e.path, e.message) for e in discovery.errors] == [
        ("missing.py", "no such file or folder")
    ]


def test_folder_named_like_a_module_is_a_folder(in_tmp: Path) -> None:
    _touch(in_tmp, "x.py/inner.py")
    assert _found(["."]) == ["x.py/inner.py"]
    assert _found(["x.py"]) == ["x.py/inner.py"]


def test_symlink_loops_and_dangling_links_are_not_followed(in_tmp: Path) -> None:
    _touch(in_tmp, "pkg/m.py")
    os.symlink(in_tmp / "pkg", in_tmp / "pkg" / "loop")
    os.symlink(in_tmp / "nowhere.py", in_tmp / "dangling.py")
    os.symlink("self.py", in_tmp / "self.py")
    assert _found(["."]) == ["pkg/m.py"]
    errors = discover(["dangling.py"]).errors
    assert [(e.path, e.message) for e in errors] == [
        ("dangling.py", "a dangling symbolic link")
    ]


def test_a_file_reached_twice_is_checked_once(in_tmp: Path) -> None:
    _touch(in_tmp, "pkg/m.py")
    assert _found(["pkg", "pkg/m.py", "."]) == ["pkg/m.py"]


def test_fifo_given_explicitly_is_refused_not_read(in_tmp: Path) -> None:
    os.mkfifo(in_tmp / "pipe.py")
    discovery = discover(["pipe.py", "."])
    assert discovery.files == ()
    assert [(e.path, e.message) for e in discovery.errors] == [
        ("pipe.py", "not a regular file or folder")
    ]


def test_module_names_follow_packages(tmp_path: Path) -> None:
    _touch(
        tmp_path,
        "src/pkg/__init__.py",
        "src/pkg/sub/__init__.py",
        "src/pkg/sub/mod.py",
        "scripts/run.py",
        "src/pkg/bad-name.py",
    )
    assert module_name(tmp_path / "src/pkg/sub/mod.py") == "pkg.sub.mod"
    assert module_name(tmp_path / "src/pkg/sub/__init__.py") == "pkg.sub"
    assert module_name(tmp_path / "scripts/run.py") == "run"
    assert module_name(tmp_path / "src/pkg/bad-name.py") is None
    found = {f.path: f.module for f in discover([str(tmp_path / "src")]).files}
    assert found[str(tmp_path / "src/pkg/sub/mod.py")] == "pkg.sub.mod"


def test_folder_that_cannot_be_listed_is_an_error(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As root no folder mode stops a listing, so the listing itself is made to fail.
    _touch(in_tmp, "open/a.py", "locked/b.py")
    real_scandir = os.scandir

    def scandir(path: Path) -> object:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    discovery = discover(["."])
    assert [f.path for f in discovery.files] == ["open/a.py"]
    assert [(e.path, e.message) for e in discovery.errors] == [
        ("locked", "cannot list folder: Permission denied")
    ]


def test_force_exclude_drops_explicit_files_the_config_excludes(in_tmp: Path) -> None:
    _touch(in_tmp, "generated/deep/g.py", "gen_x.py", "src/m.py")
    options = {"exclude": ["generated/", "gen_*.py"], "exclude_root": in_tmp}
    named = ["generated/deep/g.py", "gen_x.py", "src/m.py"]
    assert _found(named, **options) == sorted(named)
    assert _found(named, force_exclude=True, **options) == ["src/m.py"]


def test_links_are_named_by_where_they_lead(in_tmp: Path) -> None:
    _touch(in_tmp, "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/mod.py", "top.py")
    os.symlink(in_tmp / "pkg" / "sub" / "mod.py", in_tmp / "alias.py")
    os.mkdir(in_tmp / "other")
    os.symlink(in_tmp / "pkg", in_tmp / "other" / "linked")
    found = {f.path: f.module for f in discover(["alias.py", "other", "."]).files}
    # The link and the file it leads to are one file, named after the real one.
    assert found == {
        "alias.py": "pkg.sub.mod",
        "other/linked/__init__.py": "pkg",
        "other/linked/sub/__init__.py": "pkg.sub",
        "top.py": "top",
    }


_PATTERN_PIECES = ["*", "**", "?", "a", "b", "/", "!", ".py", "[ab]", "\\*", "x/"]


@given(
    lines=st.lists(
        st.lists(st.sampled_from(_PATTERN_PIECES), min_size=1, max_size=4).map("".join),
        max_size=6,
    ),
    parts=st.lists(
        st.sampled_from(["a", "b", "ab", "x", "a.py", "*.py"]), min_size=1, max_size=4
    ),
    is_dir=st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_an_ignore_file_judges_a_path_as_its_last_matching_pattern(
    lines: list[str], parts: list[str], is_dir: bool
) -> None:
    # The verdict first asks one joined expression whether any pattern matches; it must
    # agree with asking every pattern, last first.
    base = Path("/project").resolve()
    ignore = _load_patterns(lines, base)
    if ignore is None:
        return
    relative = "/".join(parts) + ("/" if is_dir else "")
    expected = next(
        (
            bool(p.include)
            for p in reversed(ignore.spec.patterns)
            if p.include is not None and p.match_file(relative) is not None
        ),
        None,
    )
    assert _verdict(ignore, base.joinpath(*parts), is_dir) == expected
