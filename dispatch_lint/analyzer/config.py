"""The ``[tool.dispatch-lint]`` table of ``pyproject.toml``: finding it, reading it, checking it.

Every mistake in a configuration is a :class:`ConfigError` whose text is one line naming the
file, the key and what is allowed: the CLI prints it and exits with status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dispatch_lint.catalog import RULES_BY_ID

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.engine import AnalysisSettings, SinkSpec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = [
    "Config",
    "ConfigError",
    "Selection",
    "check_selectors",
    "normalized",
    "resolve_selection",
    "config_for_paths",
    "find_config_file",
    "load_config",
    "selected_rules",
]

#: The section of ``pyproject.toml`` that holds the configuration.
SECTION = "tool.dispatch-lint"
#: The values of ``follow-imports`` (and ``--follow-imports``).
FOLLOW_IMPORTS = ("normal", "skip")

_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "exclude",
    "per-file-ignores",
    "src",
    "follow-imports",
    "frameworks",
    "sources",
    "sinks",
    "sanitizers",
)
_SINK_KEYS = ("name", "arg", "rule")


class ConfigError(Exception):
    """A configuration or rule selection the linter refuses; ``str()`` is one line for users."""


@dataclass(frozen=True)
class Selection:
    """One layer of rule selection: the configuration file's, or the command line's.

    ``select`` None keeps what the layer below enabled (then ``extend_select`` adds and
    ``ignore`` removes); a ``select`` starts over, as ruff's command line does over its
    configuration."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    """What the user asked for: rule selection, excluded paths and the extended model.

    ``select``, ``ignore`` and ``extend_select`` are the configuration file's (rule ids in
    upper case); ``overrides`` are the command line's selections on top of them.
    ``root`` is the folder patterns are relative to (the configuration file's folder, or the
    current folder when there is no file); ``path`` is the file it came from, if any.
    """

    select: tuple[str, ...] = ("DL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: (gitignore-style pattern, rule selectors) pairs, in the file's order.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The user's sources, sinks and sanitizers; None when the file declares none.
    settings: AnalysisSettings | None = None
    root: Path = field(default_factory=Path.cwd)
    path: Path | None = None
    overrides: tuple[Selection, ...] = ()
    #: The import roots as written (folders relative to ``root``); None: the default.
    src: tuple[str, ...] | None = None
    #: ``normal``: the project modules the checked files import are read and analysed
    #: with them; ``skip``: only the checked files are.
    follow_imports: str = "normal"

    def import_roots(self) -> tuple[Path, ...]:
        """The folders imports are resolved from (see :mod:`.project`): ``src``, relative
        to the configuration's folder; by default that folder and its ``src/``."""
        roots = [self.root / folder for folder in self.src] if self.src is not None else [
            self.root, *([self.root / "src"] if (self.root / "src").is_dir() else [])
        ]
        return tuple(roots)

    def with_overrides(
        self,
        select: Sequence[str] | None = None,
        ignore: Sequence[str] = (),
        extend_select: Sequence[str] = (),
    ) -> Config:
        """This configuration with command-line selections on top, checked like the
        file's: a ``select`` replaces the file's ``select``, ``ignore`` and
        ``extend-select`` (as ruff's command line does); ``ignore`` and ``extend_select``
        remove and add."""
        layer = Selection(
            select=normalized(select, "--select") if select is not None else None,
            ignore=normalized(ignore, "--ignore"),
            extend_select=normalized(extend_select, "--extend-select"),
        )
        return replace(self, overrides=(*self.overrides, layer))

    def enabled_rules(self, ignored: Iterable[str] = ()) -> frozenset[str]:
        """The rule ids that are reported: everywhere, or (``ignored``: the selectors of
        the ``per-file-ignores`` that match a file) in one file."""
        file = Selection(self.select, self.ignore, self.extend_select)
        enabled = resolve_selection((file, *self.overrides))
        ignored = tuple(ignored)
        if not ignored:
            return enabled
        return frozenset(
            rule_id
            for rule_id in enabled
            if not any(_matches(s, rule_id) for s in ignored)
            or (rule_id == "DL000" and "DL000" not in ignored)
        )


def _allowed_selectors() -> str:
    ids = sorted(RULES_BY_ID)
    return f"a rule id ({ids[0]}..{ids[-1]}) or a prefix of one (DL, DL00)"


def _matches(selector: str, rule_id: str) -> bool:
    return rule_id.startswith(selector)


def normalized(selectors: Iterable[str], where: str) -> tuple[str, ...]:
    """``selectors`` in the catalog's case (``dl001`` is ``DL001``), each checked."""
    upper = tuple(s.strip().upper() for s in selectors)
    check_selectors(upper, where)
    return upper


def check_selectors(selectors: Iterable[str], where: str) -> None:
    """Raise :class:`ConfigError` naming ``where`` for a selector that matches no rule."""
    for selector in selectors:
        if not any(_matches(selector.upper(), rule_id) for rule_id in RULES_BY_ID):
            raise ConfigError(
                f"{where}: unknown rule selector {selector!r}; allowed: {_allowed_selectors()}"
            )


def selected_rules(select: Iterable[str], ignore: Iterable[str]) -> frozenset[str]:
    """The rule ids enabled by ``select`` minus ``ignore`` (one layer, see
    :func:`resolve_selection`)."""
    return resolve_selection((Selection(tuple(select), tuple(ignore)),))


def resolve_selection(layers: Sequence[Selection]) -> frozenset[str]:
    """The rule ids enabled by ``layers``, the configuration's first.

    Within a layer, as in ruff, the most specific selector decides (``select=["DL"]``,
    ``ignore=["DL00"]``, ``select`` also holding ``"DL001"`` keeps DL001); on a tie, ignoring
    wins; a rule no selector of the layer names keeps what the layers below decided. A layer
    with a ``select`` starts from nothing. DL000 (the file does not parse, so nothing in it
    was checked) stays on unless an ``ignore`` names it exactly: a prefix such as ``DL`` or
    ``DL00`` must not hide that whole files went unchecked.
    """
    enabled: set[str] = set()
    keep_syntax_errors = True
    for layer in layers:
        if layer.select is not None:
            enabled.clear()
            keep_syntax_errors = True
            selects = (*layer.select, *layer.extend_select)
        else:
            selects = layer.extend_select
        for rule_id in RULES_BY_ID:
            if rule_id == "DL000":
                continue
            chosen = max((len(s) for s in selects if _matches(s, rule_id)), default=-1)
            dropped = max((len(s) for s in layer.ignore if _matches(s, rule_id)), default=-1)
            if chosen > dropped:
                enabled.add(rule_id)
            elif dropped >= 0:
                enabled.discard(rule_id)
        if "DL000" in layer.ignore:
            keep_syntax_errors = False
        elif "DL000" in selects:
            keep_syntax_errors = True
    if keep_syntax_errors:
        enabled.add("DL000")
    return frozenset(enabled)


def find_config_file(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.dispatch-lint]`` table, looking from
    ``start`` (a file or a folder) upward. A ``pyproject.toml`` without the table is passed
    over; one that cannot be read or parsed is returned so that its error is reported."""
    folder = start if start.is_dir() else start.parent
    for candidate_folder in (folder, *folder.parents):
        candidate = candidate_folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            text = candidate.read_bytes()
        except OSError:
            return candidate
        # A cheap look before parsing: most pyproject.toml files never mention the tool.
        if b"dispatch-lint" in text:
            return candidate
    return None


def load_config(path: Path) -> Config:
    """Read and check the configuration in ``path``.

    ``path`` is a ``pyproject.toml`` (its ``[tool.dispatch-lint]`` table is used; none means
    defaults) or any other TOML file whose top level is the configuration itself.
    """
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read the configuration: {exc.strerror or exc}"
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text: {exc.reason}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: broken TOML: {exc}") from None

    tool = data.get("tool")
    if isinstance(tool, dict) and "dispatch-lint" in tool:
        table, where = tool["dispatch-lint"], f"{path}: [{SECTION}]"
    elif path.name == "pyproject.toml":
        table, where = {}, f"{path}: [{SECTION}]"
    else:
        table, where = data, str(path)
    if not isinstance(table, dict):
        raise ConfigError(
            f"{where}: must be a table of settings, not {_type_name(table)}"
        )
    return parse_table(table, where=where, root=path.resolve().parent, path=path)


def parse_table(
    table: Mapping[str, Any], where: str, root: Path, path: Path | None = None
) -> Config:
    """Build a :class:`Config` from the already-parsed TOML ``table``; ``where`` prefixes
    every error (e.g. ``"pyproject.toml: [tool.dispatch-lint]"``)."""
    for key in table:
        if key not in _KEYS:
            raise ConfigError(
                f"{where}: unknown key {key!r}; allowed keys: {', '.join(_KEYS)}"
            )

    def strings(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(
                f"{where}: {key} must be a list of strings, not {_describe(value)}"
            )
        return tuple(value)

    select = (
        normalized(strings("select"), f"{where}: select")
        if "select" in table
        else Config.select
    )
    ignore = normalized(strings("ignore"), f"{where}: ignore")
    extend_select = normalized(strings("extend-select"), f"{where}: extend-select")

    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(
            f"{where}: per-file-ignores must be a table of pattern = [rule selectors], "
            f"not {_describe(per_file)}"
        )
    per_file_ignores = []
    for pattern, selectors in per_file.items():
        if not isinstance(selectors, list) or not all(
            isinstance(s, str) for s in selectors
        ):
            raise ConfigError(
                f"{where}: per-file-ignores.{pattern!r} must be a list of rule selectors, "
                f"not {_describe(selectors)}"
            )
        upper = normalized(selectors, f"{where}: per-file-ignores.{pattern!r}")
        _check_pattern(pattern, where=f"{where}: per-file-ignores")
        per_file_ignores.append((pattern, upper))

    sources, sanitizers = strings("sources"), strings("sanitizers")
    sinks = _parse_sinks(table.get("sinks", []), where)
    frameworks = _parse_frameworks(table, where, strings)
    settings = None
    if sources or sinks or sanitizers or frameworks is not None:
        # The engine module is only needed for a user model; keep plain runs light.
        from dispatch_lint.analyzer.engine import AnalysisSettings

        settings = AnalysisSettings(sources=sources, sinks=sinks, sanitizers=sanitizers,
                                    frameworks=frameworks)
    exclude = strings("exclude")
    for pattern in exclude:
        _check_pattern(pattern, where=f"{where}: exclude")
    src = strings("src") if "src" in table else None
    for folder in src or ():
        if (root / folder).is_file():
            raise ConfigError(
                f"{where}: src must list folders (relative to {root}), and {folder!r} is a file"
            )
    follow = table.get("follow-imports", "normal")
    if follow not in FOLLOW_IMPORTS:
        raise ConfigError(
            f"{where}: follow-imports must be one of "
            f"{', '.join(repr(mode) for mode in FOLLOW_IMPORTS)}, not {_describe(follow)}"
        )
    return Config(
        select=select,
        ignore=ignore,
        extend_select=extend_select,
        exclude=exclude,
        per_file_ignores=tuple(per_file_ignores),
        settings=settings,
        root=root,
        path=path,
        src=src,
        follow_imports=follow,
    )


def _parse_frameworks(table: Mapping[str, Any], where: str,
                      strings: Any) -> tuple[str, ...] | None:
    """The ``frameworks`` the run uses (None: every framework the package knows)."""
    if "frameworks" not in table:
        return None
    from dispatch_lint.frameworks import NAMES, unknown_names

    names = strings("frameworks")
    unknown = unknown_names(names)
    if unknown:
        raise ConfigError(
            f"{where}: frameworks: unknown framework {unknown[0]!r}; allowed: "
            f"{', '.join(NAMES)}"
        )
    return tuple(dict.fromkeys(names))


def _check_pattern(pattern: str, where: str) -> None:
    from dispatch_lint.analyzer.discovery import invalid_pattern

    reason = invalid_pattern(pattern)
    if reason is not None:
        raise ConfigError(
            f"{where}: {pattern!r} is not a gitignore-style pattern ({reason})"
        )


def _parse_sinks(value: Any, where: str) -> tuple[SinkSpec, ...]:
    shape = 'a list of tables {name = "pkg.func", arg = 0 or "keyword", rule = "DL001"}'
    if not isinstance(value, list):
        raise ConfigError(f"{where}: sinks must be {shape}, not {_describe(value)}")
    sinks = []
    for index, item in enumerate(value):
        here = f"{where}: sinks[{index}]"
        if not isinstance(item, dict):
            raise ConfigError(
                f"{here} must be a table {{name, arg, rule}}, not {_describe(item)}"
            )
        for key in item:
            if key not in _SINK_KEYS:
                raise ConfigError(
                    f"{here}: unknown key {key!r}; allowed keys: {', '.join(_SINK_KEYS)}"
                )
        missing = [key for key in _SINK_KEYS if key not in item]
        if missing:
            raise ConfigError(f"{here}: missing key {missing[0]!r}; {shape}")
        name, arg, rule_id = item["name"], item["arg"], item["rule"]
        if isinstance(rule_id, str):
            rule_id = rule_id.strip().upper()
        if not isinstance(name, str) or not name:
            raise ConfigError(
                f"{here}: name must be a qualified name string, not {_describe(name)}"
            )
        # bool is an int in Python, but `arg = true` is surely a mistake.
        if (
            isinstance(arg, bool)
            or not isinstance(arg, (int, str))
            or (isinstance(arg, int) and arg < 0)
        ):
            raise ConfigError(
                f"{here}: arg must be a non-negative argument index or a keyword name, "
                f"not {_describe(arg)}"
            )
        if (
            not isinstance(rule_id, str)
            or rule_id not in RULES_BY_ID
            or rule_id == "DL000"
        ):
            known = ", ".join(r for r in RULES_BY_ID if r != "DL000")
            raise ConfigError(
                f"{here}: rule must be one of {known}, not {_describe(rule_id)}"
            )
        from dispatch_lint.analyzer.engine import SinkSpec

        sinks.append(SinkSpec(name=name, arg=arg, rule=rule_id))
    return tuple(sinks)


def _type_name(value: object) -> str:
    return {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "a boolean",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def _describe(value: object) -> str:
    if isinstance(value, (str, int, float, bool)):
        return f"{_type_name(value)} ({value!r})"
    return _type_name(value)


def config_for_paths(paths: Sequence[str], config_file: str | None = None) -> Config:
    """The configuration that applies to ``paths``: ``config_file`` when given, else the
    nearest ``[tool.dispatch-lint]`` above the first path (defaults when there is none)."""
    if config_file is not None:
        path = Path(config_file)
        if not path.is_file():
            raise ConfigError(f"--config {config_file}: no such file")
        return load_config(path)
    start = Path(paths[0] if paths else ".").absolute()
    found = find_config_file(start if start.exists() else Path.cwd())
    return load_config(found) if found is not None else Config()
