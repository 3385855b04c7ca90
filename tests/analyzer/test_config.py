"""``[tool.dispatch-lint]``: found upward, checked strictly, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from dispatch_lint.analyzer.config import (
    Config,
    ConfigError,
    config_for_paths,
    find_config_file,
    load_config,
    selected_rules,
)
from dispatch_lint.analyzer.engine import SinkSpec

ALL = frozenset(f"DL00{i}" for i in range(10))


def _pyproject(folder: Path, body: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("select", "ignore", "expected"),
    [
        (["DL"], [], ALL),
        (["DL001"], [], {"DL000", "DL001"}),
        (["DL00"], ["DL003", "DL004"], ALL - {"DL003", "DL004"}),
        (["DL", "DL001"], ["DL00"], {"DL000", "DL001"}),
        (["DL"], ["DL000"], ALL - {"DL000"}),
        (["DL001"], ["DL001"], {"DL000"}),
        (["DL"], ["DL"], {"DL000"}),
        ([], [], {"DL000"}),
    ],
)
def test_selection_most_specific_wins_and_dl000_stays_unless_ignored(
    select: list[str], ignore: list[str], expected: set[str]
) -> None:
    assert selected_rules(select, ignore) == frozenset(expected)


def test_full_configuration_is_read(tmp_path: Path) -> None:
    path = _pyproject(
        tmp_path,
        """
[tool.dispatch-lint]
select = ["DL001", "DL002"]
ignore = ["DL002"]
extend-select = ["DL008"]
exclude = ["generated/"]
sources = ["mylib.make_capture"]
sanitizers = ["mylib.to_real"]
sinks = [{name = "mylib.train_step", arg = 0, rule = "DL001"}, {name = "mylib.save", arg = "t", rule = "DL003"}]

[tool.dispatch-lint.per-file-ignores]
"tests/*.py" = ["DL001"]
""",
    )
    config = load_config(path)
    assert config.enabled_rules() == {"DL000", "DL001", "DL008"}
    assert config.exclude == ("generated/",)
    assert config.per_file_ignores == (("tests/*.py", ("DL001",)),)
    assert config.root == tmp_path.resolve()
    assert config.settings is not None
    assert config.settings.sources == ("mylib.make_capture",)
    assert config.settings.sanitizers == ("mylib.to_real",)
    assert config.settings.sinks == (
        SinkSpec("mylib.train_step", 0, "DL001"),
        SinkSpec("mylib.save", "t", "DL003"),
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "[tool.dispatch-lint]\nselekt = ['DL001']\n",
            "[tool.dispatch-lint]: unknown key 'selekt'; allowed keys: select, ignore, extend-select",
        ),
        (
            "[tool.dispatch-lint]\nselect = ['DL999']\n",
            "[tool.dispatch-lint]: select: unknown rule selector 'DL999'; allowed: a rule id",
        ),
        (
            "[tool.dispatch-lint]\nignore = 'DL001'\n",
            "[tool.dispatch-lint]: ignore must be a list of strings, not a string ('DL001')",
        ),
        ("[tool.dispatch-lint\nselect = [\n", "broken TOML: "),
        (
            "[tool.dispatch-lint.per-file-ignores]\n'a.py' = ['XX1']\n",
            "per-file-ignores.'a.py': unknown rule selector 'XX1'",
        ),
        (
            "[tool.dispatch-lint]\nsinks = [{name = 'f', arg = 0}]\n",
            "sinks[0]: missing key 'rule'",
        ),
        (
            "[tool.dispatch-lint]\nsinks = [{name = 'f', arg = true, rule = 'DL001'}]\n",
            "sinks[0]: arg must be a non-negative argument index or a keyword name, not a boolean",
        ),
        (
            "[tool.dispatch-lint]\nsinks = [{name = 'f', arg = 0, rule = 'DL000'}]\n",
            "sinks[0]: rule must be one of DL001, DL002",
        ),
        (
            "[tool.dispatch-lint]\nexclude = ['build/', '!']\n",
            "[tool.dispatch-lint]: exclude: '!' is not a gitignore-style pattern",
        ),
        (
            "[tool.dispatch-lint.per-file-ignores]\n'[z-a].py' = ['DL001']\n",
            "per-file-ignores: '[z-a].py' is not a gitignore-style pattern",
        ),
        (
            "[tool]\ndispatch-lint = 3\n",
            "[tool.dispatch-lint]: must be a table of settings, not an integer",
        ),
        (
            "[tool.dispatch-lint]\nsrc = 'src'\n",
            "[tool.dispatch-lint]: src must be a list of strings, not a string ('src')",
        ),
        (
            "[tool.dispatch-lint]\nsrc = ['pyproject.toml']\n",
            "src must list folders (relative to ",
        ),
        (
            "[tool.dispatch-lint]\nfollow-imports = 'silent'\n",
            "[tool.dispatch-lint]: follow-imports must be one of 'normal', 'skip', not a "
            "string ('silent')",
        ),
        (
            "[tool.dispatch-lint]\nfollow-imports = false\n",
            "follow-imports must be one of 'normal', 'skip', not a boolean (False)",
        ),
    ],
)
def test_mistakes_are_one_line_naming_file_key_and_what_is_allowed(
    tmp_path: Path, body: str, expected: str
) -> None:
    path = _pyproject(tmp_path, body)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    assert expected in message


def test_import_roots_default_to_the_configuration_folder_and_its_src(
    tmp_path: Path,
) -> None:
    path = _pyproject(tmp_path, "[tool.dispatch-lint]\n")
    root = tmp_path.resolve()
    assert load_config(path).import_roots() == (root,)
    (tmp_path / "src").mkdir()
    assert load_config(path).import_roots() == (root, root / "src")
    assert load_config(path).follow_imports == "normal"
    path = _pyproject(
        tmp_path, "[tool.dispatch-lint]\nsrc = ['lib', '.']\nfollow-imports = 'skip'\n"
    )
    config = load_config(path)
    assert config.import_roots() == (root / "lib", root / ".")
    assert config.follow_imports == "skip"


def test_not_utf8_configuration_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"[tool.dispatch-lint]\nselect = ['\xff']\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def test_found_upward_skipping_pyprojects_without_the_table(tmp_path: Path) -> None:
    top = _pyproject(tmp_path, "[tool.dispatch-lint]\nignore = ['DL004']\n")
    inner = tmp_path / "pkg" / "sub"
    inner.mkdir(parents=True)
    _pyproject(tmp_path / "pkg", "[project]\nname = 'pkg'\n")
    (inner / "mod.py").write_text("x = 1\n")
    assert find_config_file(inner / "mod.py") == top
    config = config_for_paths([str(inner / "mod.py")])
    assert config.path == top
    assert "DL004" not in config.enabled_rules()


def test_no_configuration_means_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for paths in (["."], [str(tmp_path / "missing")]):
        config = config_for_paths(paths)
        assert config.path is None
        assert config.enabled_rules() == ALL


def test_explicit_config_file_may_be_a_plain_toml_table(tmp_path: Path) -> None:
    path = tmp_path / "lint.toml"
    path.write_text("select = ['DL002']\n")
    assert config_for_paths(["."], str(path)).enabled_rules() == {"DL000", "DL002"}
    with pytest.raises(ConfigError, match="no such file"):
        config_for_paths(["."], str(tmp_path / "nope.toml"))


def test_command_line_overrides_are_checked() -> None:
    with pytest.raises(
        ConfigError, match="--extend-select: unknown rule selector 'E501'"
    ):
        Config().with_overrides(extend_select=["E501"])


def test_command_line_select_replaces_the_files_select_and_ignore() -> None:
    # As ruff's --select does: `ignore = ["DL004"]` in pyproject.toml must not win over it.
    config = Config(ignore=("DL004",), extend_select=("DL008",))
    assert "DL004" not in config.enabled_rules()
    assert config.with_overrides(select=["DL004"]).enabled_rules() == {"DL000", "DL004"}
    assert config.with_overrides(select=["DL00"], ignore=["DL005"]).enabled_rules() == (
        ALL - {"DL005"}
    )


def test_command_line_extend_select_and_ignore_add_to_the_file() -> None:
    config = Config(select=("DL001",), ignore=("DL004",))
    assert config.with_overrides(extend_select=["DL004"]).enabled_rules() == {
        "DL000",
        "DL001",
        "DL004",
    }
    assert config.with_overrides(ignore=["DL001"]).enabled_rules() == {"DL000"}
    # The most specific selector of the command line decides between its own selectors.
    assert config.with_overrides(
        extend_select=["DL00"], ignore=["DL003"]
    ).enabled_rules() == ALL - {"DL003"}


def test_rule_ids_are_case_insensitive_everywhere(tmp_path: Path) -> None:
    path = _pyproject(
        tmp_path,
        "[tool.dispatch-lint]\nselect = ['dl00']\nignore = ['Dl004']\n"
        "sinks = [{name = 'f', arg = 0, rule = 'dl003'}]\n"
        "[tool.dispatch-lint.per-file-ignores]\n'tests/*' = ['dl001']\n",
    )
    config = load_config(path)
    assert config.enabled_rules() == ALL - {"DL004"}
    assert config.per_file_ignores == (("tests/*", ("DL001",)),)
    assert config.settings is not None and config.settings.sinks[0].rule == "DL003"
    assert config.with_overrides(select=["dl002"]).enabled_rules() == {"DL000", "DL002"}


def test_per_file_ignores_remove_rules_whatever_the_selection() -> None:
    config = Config(select=("DL", "DL001"))
    assert config.enabled_rules(("DL",)) == {"DL000"}
    assert config.enabled_rules(("DL000", "DL001")) == ALL - {"DL000", "DL001"}
