"""The project model: imports resolved as Python resolves them, followed out of the files the
user names, and groups that are the import graph's connected parts.

The stories run the CLI (or the API) on a small project in a temporary folder, as a user
would: checking one changed file must report the cross-module bugs that checking its whole
folder reports for it, and nothing that merely shares a word with it may join its analysis.
"""

from __future__ import annotations

import glob
import json
import os
import textwrap
from pathlib import Path

import pytest

from dispatch_lint.analyzer import cli, parallel
from dispatch_lint.analyzer.api import check_paths
from dispatch_lint.analyzer.config import Config
from dispatch_lint.analyzer.project import (
    ModuleIndex,
    Project,
    ProjectFiles,
    import_groups,
)
from dispatch_lint.frameworks import Prefilter

REPO = Path(__file__).resolve().parents[2]

RUNTIME = "from dispatch_lint import runtime as dispatch\n"
#: A helper that differentiates whatever it is given: a capture tensor passed in is DL001.
HELPER = "def backprop(loss):\n    scaled = loss * 2\n    return scaled.backward()\n"
#: The caller: a capture tensor handed to ``backprop`` (imported as the test says).
CALLER = (
    RUNTIME
    + "{imports}\n\n"
    + "cap = dispatch.Capture()\n"
    + "x = dispatch.placeholder((2,), device=cap, name='x')\n"
    + "{call}(x.sum())\n"
)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def lint(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    """The JSON report of ``dispatch-lint`` run with ``argv`` (no cache, one process)."""
    code = cli.main(["--format", "json", "--no-cache", "--jobs", "1", *argv])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    report = json.loads(out)
    report["exit"], report["stderr"] = code, err
    return report


def places(report: dict) -> list[tuple[str, int, str]]:
    return [(d["path"], d["line"], d["rule"]) for d in report["diagnostics"]]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------ findings from one named file


@pytest.mark.parametrize(
    ("layout", "imports", "call"),
    [
        # the story: a helper in a folder without __init__.py (a namespace package)
        ({"mlops/helpers.py": HELPER}, "from mlops.helpers import backprop", "backprop"),
        # two imports away: the caller's helper hands the tensor to another module
        (
            {
                "mlops/__init__.py": "",
                "mlops/train.py": "from mlops.grads import backprop as inner\n\n"
                "def backprop(loss):\n    return inner(loss)\n",
                "mlops/grads.py": HELPER,
            },
            "from mlops.train import backprop",
            "backprop",
        ),
        # re-exported through the package's __init__.py
        (
            {"mlops/__init__.py": "from .helpers import backprop\n", "mlops/helpers.py": HELPER},
            "from mlops import backprop",
            "backprop",
        ),
        # `import a.b as c`
        (
            {"mlops/__init__.py": "", "mlops/helpers.py": HELPER},
            "import mlops.helpers as h",
            "h.backprop",
        ),
        # `from pkg import module`
        (
            {"mlops/__init__.py": "", "mlops/helpers.py": HELPER},
            "from mlops import helpers",
            "helpers.backprop",
        ),
    ],
    ids=["namespace-package", "two-imports-away", "reexport", "import-as", "from-package"],
)
def test_one_named_file_reports_the_bug_in_the_helper_it_imports(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    layout: dict[str, str],
    imports: str,
    call: str,
) -> None:
    write(project, {**layout, "buggy.py": CALLER.format(imports=imports, call=call)})
    alone = lint(capsys, "buggy.py")
    assert places(alone) == [("buggy.py", 6, "DL001")]
    assert alone["files"] == 1
    trace = alone["diagnostics"][0]["trace"]
    # the helper's own lines are in the trace, the last one the sink
    assert trace[-1]["path"].startswith("mlops/") and "backward()" in trace[-1]["message"]
    assert lint(capsys, ".")["diagnostics"] == alone["diagnostics"]


def test_an_import_inside_a_function_is_followed(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "mlops/__init__.py": "",
            "mlops/helpers.py": HELPER,
            "buggy.py": RUNTIME
            + "\n\ndef train():\n"
            "    from mlops.helpers import backprop\n"
            "    x = dispatch.placeholder((2,))\n"
            "    backprop(x)\n",
        },
    )
    assert places(lint(capsys, "buggy.py")) == [("buggy.py", 7, "DL001")]


def test_imports_under_type_checking_and_in_try_except_are_followed(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "fast/helpers.py": HELPER,
            "slow/helpers.py": HELPER,
            "buggy.py": RUNTIME
            + "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from fast.helpers import backprop\n"
            "try:\n"
            "    from fast.helpers import backprop\n"
            "except ImportError:\n"
            "    from slow.helpers import backprop\n"
            "backprop(dispatch.placeholder((2,)))\n",
        },
    )
    report = lint(capsys, "buggy.py")
    assert places(report) == [("buggy.py", 9, "DL001")]


def test_a_src_layout_resolves_from_the_configured_roots(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "pyproject.toml": "[tool.dispatch-lint]\n",
            "src/mlops/__init__.py": "",
            "src/mlops/helpers.py": HELPER,
            "scripts/train.py": CALLER.format(
                imports="from mlops.helpers import backprop", call="backprop"
            ),
        },
    )
    # The default roots are the configuration's folder and its src/.
    assert places(lint(capsys, "scripts/train.py")) == [("scripts/train.py", 6, "DL001")]
    # `src` replaces them: with roots that do not hold the package, it is not found.
    (project / "pyproject.toml").write_text("[tool.dispatch-lint]\nsrc = ['lib']\n")
    assert places(lint(capsys, "scripts/train.py")) == []
    (project / "src").rename(project / "lib")
    assert places(lint(capsys, "scripts/train.py")) == [("scripts/train.py", 6, "DL001")]


def test_relative_imports_start_from_the_files_own_package(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "app/__init__.py": "",
            "app/ops/__init__.py": "",
            "app/ops/grads.py": HELPER,
            "app/jobs/__init__.py": "",
            "app/jobs/fit.py": RUNTIME
            + "from ..ops.grads import backprop\n"
            "from . import settings\n"
            "backprop(dispatch.placeholder((2,), device=settings.DEVICE))\n",
            "app/jobs/settings.py": "DEVICE = 'capture'\n",
        },
    )
    assert places(lint(capsys, "app/jobs/fit.py")) == [("app/jobs/fit.py", 4, "DL001")]


def test_findings_wholly_inside_imported_modules_are_left_to_their_own_run(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "mlops/__init__.py": "",
            "mlops/helpers.py": RUNTIME + HELPER + "backprop(dispatch.placeholder((2,)))\n",
            "buggy.py": "from mlops.helpers import backprop\n\nbackprop(1.0)\n",
        },
    )
    assert places(lint(capsys, "buggy.py")) == []
    assert places(lint(capsys, "mlops/helpers.py")) == [("mlops/helpers.py", 5, "DL001")]


def test_a_flow_into_an_imported_module_is_reported_where_it_leaves_the_named_file(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    # factory.py (named) makes a capture tensor; use.py (imported by it, so read as context)
    # differentiates what factory makes: the bug is the named file's as much as use.py's.
    write(
        project,
        {
            "factory.py": RUNTIME
            + "import use\n\n\ndef make():\n    return dispatch.placeholder((2,))\n",
            "use.py": "from factory import make\n\nmake().backward()\n",
        },
    )
    report = lint(capsys, "factory.py")
    assert places(report) == [("factory.py", 6, "DL001")]
    [finding] = report["diagnostics"]
    assert "(in use.py, line 3)" in finding["message"]
    steps = [(s["path"], s["line"]) for s in finding["trace"]]
    assert steps[0] == ("factory.py", 6) and steps[-1] == ("use.py", 3)
    # Named together, the finding is use.py's own, at its sink.
    assert places(lint(capsys, "factory.py", "use.py")) == [("use.py", 3, "DL001")]


def test_follow_imports_skip_checks_the_named_files_only(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "mlops/helpers.py": HELPER,
            "buggy.py": CALLER.format(
                imports="from mlops.helpers import backprop", call="backprop"
            ),
        },
    )
    assert places(lint(capsys, "--follow-imports", "skip", "buggy.py")) == []
    assert places(lint(capsys, "--follow-imports", "normal", "buggy.py")) != []
    (project / "pyproject.toml").write_text("[tool.dispatch-lint]\nfollow-imports = 'skip'\n")
    assert places(lint(capsys, "buggy.py")) == []
    assert places(lint(capsys, "--follow-imports", "normal", "buggy.py")) != []
    # Named files still see each other.
    assert places(lint(capsys, "buggy.py", "mlops/helpers.py")) == [("buggy.py", 6, "DL001")]


def test_an_imported_module_that_does_not_parse_is_a_note_not_an_error(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "broken/__init__.py": "",
            "broken/helpers.py": "def backprop(:\n",
            "buggy.py": RUNTIME + "import broken.helpers\n\ndispatch.placeholder((2,)).backward()\n",
        },
    )
    report = lint(capsys, "buggy.py")
    assert places(report) == [("buggy.py", 4, "DL001")]
    assert report["exit"] == 1
    assert report["stderr"] == (
        "broken/helpers.py: note: imported module not analysed: Syntax error: invalid "
        "syntax (line 1)\n"
    )


def test_an_imported_module_that_cannot_be_read_is_a_note(
    capsys: pytest.CaptureFixture[str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        project,
        {
            "secret/__init__.py": "",
            "secret/helpers.py": HELPER,
            "buggy.py": CALLER.format(
                imports="from secret.helpers import backprop", call="backprop"
            ),
        },
    )
    real_read = ModuleIndex.read

    def read(index: ModuleIndex, location: str) -> bytes:
        if location.endswith("helpers.py"):
            raise PermissionError(13, "Permission denied", location)
        return real_read(index, location)

    monkeypatch.setattr(ModuleIndex, "read", read)
    report = lint(capsys, "buggy.py")
    assert places(report) == []
    assert report["stderr"] == (
        "secret/helpers.py: note: imported module not read: cannot read: Permission denied\n"
    )


def test_imported_modules_are_read_never_written(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, {"mlops/helpers.py": HELPER, "buggy.py": CALLER.format(
        imports="from mlops.helpers import backprop", call="backprop")})
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in project.rglob("*.py")}
    lint(capsys, "buggy.py")
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in project.rglob("*.py")} == before


def test_fix_never_writes_an_imported_module(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    # The nested Autodiff is built in use.py (imported, so read as context) around what the
    # named factory.py makes: reported in factory.py, and its fix would edit use.py.
    use = RUNTIME + "from factory import make\n\ndevice = dispatch.Autodiff(make())\n"
    write(
        project,
        {
            "factory.py": RUNTIME
            + "import use\n\n\ndef make():\n    return dispatch.Autodiff(dispatch.NumPy())\n",
            "use.py": use,
        },
    )
    report = lint(capsys, "factory.py")
    assert places(report) == [("factory.py", 6, "DL005")]
    code = cli.main(["--no-cache", "--jobs", "1", "--fix", "factory.py"])
    capsys.readouterr()
    assert code == 1
    assert (project / "use.py").read_text() == use
    # Named, use.py's own finding has its fix.
    cli.main(["--no-cache", "--jobs", "1", "--fix", "use.py"])
    capsys.readouterr()
    assert (project / "use.py").read_text() != use


def test_the_cache_knows_the_imported_modules(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(project, {"mlops/helpers.py": HELPER, "buggy.py": CALLER.format(
        imports="from mlops.helpers import backprop", call="backprop")})

    def cached() -> list[tuple[str, int, str]]:
        code = cli.main(["--format", "json", "--jobs", "1", "buggy.py"])
        out, _ = capsys.readouterr()
        assert code in (0, 1)
        report = json.loads(out)
        assert report["diagnostics"] == lint(capsys, "buggy.py")["diagnostics"]
        return places(report)

    assert cached() == [("buggy.py", 6, "DL001")]
    assert cached() == [("buggy.py", 6, "DL001")]  # from the cache
    (project / "mlops/helpers.py").write_text("def backprop(loss):\n    return loss\n")
    assert cached() == []


# --------------------------------------------------------- what is never the project's


def test_a_project_logging_module_is_not_the_standard_librarys(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    # pkg/logging.py hands out capture tensors; step.py's `import logging` is the standard
    # library's, so nothing flows from pkg/ into step.py and the two never share a group.
    logging_module = RUNTIME + "def getLogger(name):\n    return dispatch.placeholder((2,))\n"
    write(
        project,
        {
            "pkg/__init__.py": "",
            "pkg/logging.py": logging_module,
            "step.py": RUNTIME + "import logging\n\nlogging.getLogger('train').backward()\n",
        },
    )
    assert places(lint(capsys, "step.py")) == []
    assert places(lint(capsys, ".")) == []
    files = _followed(project, ["step.py", "pkg/logging.py", "pkg/__init__.py"])
    assert _group_paths(files) == [["pkg/__init__.py"], ["pkg/logging.py"], ["step.py"]]
    # At a root, the module is what `import logging` means, as Python would run it.
    (project / "logging.py").write_text(logging_module)
    assert places(lint(capsys, "step.py")) == [("step.py", 4, "DL001")]


def test_a_plain_folder_named_like_a_standard_module_is_not_a_namespace_package(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    write(
        project,
        {
            "json/decoder.py": RUNTIME + "def loads(text):\n    return dispatch.placeholder((2,))\n",
            "step.py": RUNTIME + "import json.decoder\n\njson.decoder.loads('{}').backward()\n",
        },
    )
    assert places(lint(capsys, "step.py")) == []


def test_words_shared_with_module_names_link_nothing(project: Path) -> None:
    write(
        project,
        {
            "app/__init__.py": "",
            "app/utils/__init__.py": "",
            "app/utils/dataclasses.py": "X = 1\n",
            "app/model.py": "import dataclasses\nfrom typing import Any\n",
            "tool.py": "from torch.utils.data import DataLoader\nimport model_tools\n",
        },
    )
    files = _followed(project, sorted(glob.glob("**/*.py", recursive=True)))
    assert _group_paths(files) == [
        ["app/__init__.py"],
        ["app/model.py"],
        ["app/utils/__init__.py"],
        ["app/utils/dataclasses.py"],
        ["tool.py"],
    ]


# -------------------------------------------------------------------------- groups


def _followed(root: Path, named: list[str]) -> ProjectFiles:
    index = ModuleIndex()
    files = [
        parallel.FileToCheck(
            path, (root / path).read_bytes(), index.module_name(str(root / path)), str(root / path)
        )
        for path in named
    ]
    return Project([root], index).follow(files)


def _group_paths(followed: ProjectFiles) -> list[list[str]]:
    groups = import_groups(followed.files, followed.links, Prefilter())
    return sorted(sorted(f.path for f in g.files) for g in groups)


def _independent_packages(root: Path, count: int) -> None:
    """``count`` packages that each use the runtime, whose module names share words."""
    for index in range(count):
        package = root / f"team{index}"
        write(
            package,
            {
                "__init__.py": "",
                "model.py": RUNTIME + "def build():\n    return dispatch.placeholder((2,))\n",
                "train.py": "from .model import build\nimport logging\nimport dataclasses\n\n"
                "def step():\n    return build() * 2\n",
                "export.py": f"from team{index}.train import step\nfrom typing import Any\n\n"
                "step().backward()\n",
            },
        )


def test_independent_packages_are_separate_groups_with_the_same_findings_in_parallel(
    capsys: pytest.CaptureFixture[str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _independent_packages(project, 4)
    named = sorted(glob.glob("**/*.py", recursive=True))
    assert _group_paths(_followed(project, named)) == [
        [f"team{i}/__init__.py", f"team{i}/export.py", f"team{i}/model.py", f"team{i}/train.py"]
        for i in range(4)
    ]
    monkeypatch.setattr(parallel, "MIN_PARALLEL_COST", 0)
    one = lint(capsys, ".")
    code = cli.main(["--format", "json", "--no-cache", "--jobs", "2", "."])
    two, _ = capsys.readouterr()
    assert code == 1
    assert json.loads(two)["diagnostics"] == one["diagnostics"]
    assert places(one) == [(f"team{i}/export.py", 4, "DL001") for i in range(4)]


# -------------------------------------------------------------- the fixtures' packages


@pytest.mark.parametrize(
    "main", sorted(glob.glob(str(REPO / "fixtures" / "*kit" / "main.py"))),
    ids=lambda path: Path(path).parent.name,
)
def test_each_packages_main_alone_gets_the_findings_the_folder_run_gives_it(
    main: str, monkeypatch: pytest.MonkeyPatch, folder_run: dict[str, list[object]]
) -> None:
    monkeypatch.chdir(REPO)
    shown = os.path.relpath(main, REPO)
    alone = check_paths([shown], Config())
    assert alone.report.errors == () and alone.notes == ()
    assert [(d, d.message, d.trace) for d in alone.report.diagnostics] == folder_run.get(
        shown, []
    )


@pytest.fixture(scope="module")
def folder_run() -> dict[str, list[object]]:
    here = os.getcwd()
    os.chdir(REPO)
    try:
        report = check_paths(["fixtures"], Config()).report
    finally:
        os.chdir(here)
    found: dict[str, list[object]] = {}
    for d in report.diagnostics:
        found.setdefault(d.path, []).append((d, d.message, d.trace))
    return found


# ------------------------------------------------------------------------ overlays


def test_overlays_replace_files_on_disk_for_named_and_imported_files(project: Path) -> None:
    write(project, {"mlops/helpers.py": HELPER, "buggy.py": CALLER.format(
        imports="from mlops.helpers import backprop", call="backprop")})
    config = Config(root=project)
    assert [d.line for d in check_paths(["buggy.py"], config).report.diagnostics] == [6]
    # An editor's unsaved helper no longer differentiates its argument.
    fixed = {"mlops/helpers.py": b"def backprop(loss):\n    return loss\n"}
    assert check_paths(["buggy.py"], config, overlays=fixed).report.diagnostics == ()
    # A buffer that is not on disk yet is checked as the file at its path, its imports
    # resolved from there.
    unsaved = {
        str(project / "new.py"): CALLER.format(
            imports="from mlops.helpers import backprop", call="backprop"
        ).encode()
    }
    report = check_paths(["new.py"], config, overlays=unsaved).report
    assert [(d.path, d.line) for d in report.diagnostics] == [("new.py", 6)]
    assert (project / "new.py").exists() is False


@pytest.mark.parametrize("folder", ["site-packages", "dist-packages"])
def test_an_installed_package_never_reads_the_other_installed_packages(
    capsys: pytest.CaptureFixture[str], project: Path, folder: str
) -> None:
    """A user linting an installed package: the folder above its top package holds every
    other installed distribution, which stays external (never read, never grouped), as it
    is for any project; its own modules are followed."""
    packages = project / "venv" / folder
    write(
        packages,
        {
            "mlops/__init__.py": "",
            "mlops/helpers.py": HELPER,
            "tool/__init__.py": "",
            "tool/own.py": HELPER,
            "tool/buggy.py": CALLER.format(
                imports="from mlops.helpers import backprop\nfrom tool.own import backprop as mine",
                call="mine",
            ),
            "tool/other.py": CALLER.format(
                imports="from mlops.helpers import backprop", call="backprop"
            ),
        },
    )
    named = str(packages / "tool" / "buggy.py")
    followed = _followed(packages, ["tool/buggy.py", "tool/other.py"])
    read = sorted(f.path for f in followed.files)
    assert any(path.endswith("tool/own.py") for path in read)
    assert not [path for path in read if "mlops" in path]
    # The flow into the package's own helper is found; the one into another distribution
    # is not followed (that package is external, like the standard library).
    found = places(lint(capsys, named, str(packages / "tool" / "other.py")))
    assert [(Path(path).name, rule) for path, _, rule in found] == [("buggy.py", "DL001")]
