"""Which files to check: walking the given paths, honouring ``.gitignore`` and ``exclude``.

Paths are shown to the user as given on the command line (``src/pkg/mod.py`` when ``src`` was
given, ``mod.py`` when ``.`` was). A file named explicitly is checked even when a pattern
excludes it (unless ``force_exclude`` is asked for); patterns prune what a folder walk finds.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from dispatch_lint.analyzer.diagnostics import FileError

if TYPE_CHECKING:  # pragma: no cover
    from pathspec import PathSpec

    from dispatch_lint.analyzer.project import ModuleIndex

__all__ = ["SKIPPED_FOLDERS", "DiscoveredFile", "Discovery", "discover", "module_name"]

#: Folder names never walked into: tool caches, build output, version control, dependencies.
SKIPPED_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "build",
        "dist",
        ".tox",
        ".nox",
        ".eggs",
        "node_modules",
        ".dispatch_lint_cache",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)


@dataclass(frozen=True)
class DiscoveredFile:
    """A file to check: ``path`` as the user should see it, ``location`` to open it."""

    path: str
    location: Path
    module: str | None


@dataclass(frozen=True)
class Discovery:
    """The files found (sorted by path, each once) and the given paths that were refused;
    ``index`` holds what the walk learnt about folders (packages, real paths), for the
    import resolver to reuse."""

    files: tuple[DiscoveredFile, ...]
    errors: tuple[FileError, ...]
    index: ModuleIndex | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class _IgnoreFile:
    """The patterns of one ignore source, relative to ``base`` (an absolute folder)."""

    base: Path
    spec: PathSpec
    #: ``base`` as text, ending in a separator: the prefix of the paths the patterns judge
    prefix: str = field(init=False)
    #: one expression matching where any pattern matches (None: patterns cannot be joined)
    any_match: re.Pattern[str] | None = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "prefix", os.path.join(os.fspath(self.base), ""))
        object.__setattr__(self, "any_match", _joined(self.spec))


def _joined(spec: PathSpec) -> re.Pattern[str] | None:
    """The alternation of the patterns' expressions: most paths match no pattern, and one
    search says so instead of one per pattern (a 100-line ``.gitignore`` costs a walk of
    2,000 files 0.08 s otherwise). None when a pattern is not a plain expression."""
    sources = []
    flags = set()
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if pattern.include is None:
            continue
        if not isinstance(regex, re.Pattern) or not isinstance(regex.pattern, str):
            return None
        # Each expression names its directory-marker group; the alternation may not repeat it.
        sources.append(re.sub(r"\(\?P<\w+>", "(?:", regex.pattern))
        flags.add(regex.flags)
    if len(flags) > 1:
        return None
    try:
        return re.compile("|".join(f"(?:{s})" for s in sources) or "(?!)", *flags)
    except re.error:
        return None


def invalid_pattern(line: str) -> str | None:
    """Why ``line`` is not a gitignore pattern pathspec can use (``!``, a lone backslash, a
    reversed range ``[z-a]``), or None when it is one."""
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error) as exc:
        return str(exc) or type(exc).__name__
    return None


def _load_patterns(lines: Sequence[str], base: Path) -> _IgnoreFile | None:
    """The patterns of ``lines``; a line that is not a valid pattern is skipped, as git
    skips it (the configuration's patterns are checked when it is read)."""
    import pathspec

    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
    except (ValueError, re.error):
        spec = pathspec.GitIgnoreSpec.from_lines(
            line for line in lines if invalid_pattern(line) is None
        )
    return _IgnoreFile(base, spec) if spec.patterns else None


def _load_gitignore(folder: Path) -> _IgnoreFile | None:
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return _load_patterns(text.splitlines(), folder)


def _verdict(ignore: _IgnoreFile, location: Path | str, is_dir: bool) -> bool | None:
    """True: ignored; False: re-included by a ``!`` pattern; None: no pattern speaks."""
    where = os.fspath(location)
    if not where.startswith(ignore.prefix):
        return None
    relative = where[len(ignore.prefix) :]
    if os.sep != "/":
        relative = relative.replace(os.sep, "/")
    if is_dir:
        relative += "/"
    if ignore.any_match is not None and ignore.any_match.search(relative) is None:
        return None
    # Git semantics: the last matching pattern of a file decides.
    for pattern in reversed(ignore.spec.patterns):
        if pattern.include is not None and pattern.match_file(relative) is not None:
            return bool(pattern.include)
    return None


def _is_ignored(
    ignores: Sequence[_IgnoreFile], location: Path | str, is_dir: bool
) -> bool:
    # Deeper ignore files (later in the sequence) take precedence, as in git.
    where = os.fspath(location)
    for ignore in reversed(ignores):
        verdict = _verdict(ignore, where, is_dir)
        if verdict is not None:
            return verdict
    return False


def _ancestor_gitignores(folder: Path) -> list[_IgnoreFile]:
    """The ``.gitignore`` files above ``folder`` up to its git work tree's root (none when
    ``folder`` is not inside a git work tree), outermost first."""
    for root in (folder, *folder.parents):
        if (root / ".git").exists():
            break
    else:
        return []
    ancestors = [p for p in folder.parents if p == root or root in p.parents]
    loaded = (_load_gitignore(p) for p in reversed(ancestors))
    return [ignore for ignore in loaded if ignore is not None]


def module_name(location: Path) -> str | None:
    """The dotted module name of the file at ``location`` (absolute): its package folders
    (those with ``__init__.py``) up to the first one without, then its own name."""
    from dispatch_lint.analyzer.project import ModuleIndex

    return ModuleIndex().module_name(os.fspath(location))


def _display(given: str, relative: str) -> str:
    return os.path.normpath(os.path.join(given, relative)) if relative else given


def _is_virtualenv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file()


def _walk(
    given: str,
    top: Path,
    ignores: list[_IgnoreFile],
    visited: set[tuple[int, int]],
    errors: list[FileError],
) -> Iterator[tuple[str, Path, bool]]:
    """(display path, location, whether it is a symbolic link) of the ``.py`` files under
    ``top``.

    A work list rather than recursion: folder trees deeper than Python's recursion limit
    are walked like any other. Folders that cannot be listed are reported in ``errors``.
    """
    pending = [(given, top, ignores)]
    while pending:
        shown, folder, inherited = pending.pop()
        # A file's shown path is its folder's, normalised once, joined with its name.
        shown_folder = os.path.normpath(shown)
        if shown_folder == os.curdir:
            shown_folder = ""
        local = _load_gitignore(folder)
        scope = inherited + [local] if local is not None else inherited
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as exc:
            errors.append(
                FileError(shown, f"cannot list folder: {exc.strerror or exc}")
            )
            continue
        for entry in entries:
            try:
                # Both follow symlinks: False for a dangling or self-referencing link.
                is_dir = entry.is_dir()
                is_file = not is_dir and entry.is_file()
            except OSError:
                continue
            if not is_dir and not (is_file and entry.name.endswith(".py")):
                continue
            location = folder / entry.name
            if is_dir:
                if entry.name in SKIPPED_FOLDERS or _is_virtualenv(location):
                    continue
                if _is_ignored(scope, location, is_dir=True):
                    continue
                try:
                    info = entry.stat()
                except OSError:
                    continue
                # A folder reached twice (through a symlink, or a symlink loop) is walked once.
                key = (info.st_dev, info.st_ino)
                if key not in visited:
                    visited.add(key)
                    pending.append((_display(shown, entry.name), location, scope))
            elif not _is_ignored(scope, location, is_dir=False):
                yield (
                    os.path.join(shown_folder, entry.name),
                    location,
                    entry.is_symlink(),
                )


def _excluded_file(excluded: _IgnoreFile, location: Path) -> bool:
    """Whether ``excluded`` matches the file at ``location`` or one of its folders."""
    if _verdict(excluded, location, is_dir=False):
        return True
    return any(
        _verdict(excluded, folder, is_dir=True)
        for folder in location.parents
        if excluded.base in folder.parents
    )


def discover(
    paths: Sequence[str],
    exclude: Sequence[str] = (),
    exclude_root: Path | None = None,
    force_exclude: bool = False,
    index: ModuleIndex | None = None,
) -> Discovery:
    """The ``.py`` files under ``paths`` (files and folders, as given by the user).

    ``exclude`` holds gitignore-style patterns relative to ``exclude_root`` (the configuration
    file's folder). They prune folder walks; with ``force_exclude`` they also drop files named
    explicitly (pre-commit names every changed file, excluded or not). A given path that
    does not exist, or is not a file or folder, and a folder that cannot be listed, are
    refused with a :class:`FileError`; the others are still walked. A file the ``index``
    holds an overlay for (an editor's buffer) is checked even when it is not on disk.
    """
    from dispatch_lint.analyzer.project import ModuleIndex

    if index is None:
        index = ModuleIndex()
    cwd = Path.cwd()
    excluded = (
        _load_patterns(list(exclude), (exclude_root or cwd).resolve())
        if exclude
        else None
    )
    found: dict[str, DiscoveredFile] = {}
    errors: list[FileError] = []
    for given in paths:
        location = Path(os.path.abspath(os.path.join(cwd, given)))
        if os.path.normpath(location) in index.overlays:
            # An editor's buffer or standard input, named like a file: excluded like one.
            if not (force_exclude and excluded is not None
                    and _excluded_file(excluded, location)):
                _add_files(iter([(os.path.normpath(given), location, False)]), found, index)
            continue
        try:
            mode = location.stat().st_mode
        except FileNotFoundError:
            reason = (
                "a dangling symbolic link"
                if location.is_symlink()
                else "no such file or folder"
            )
            errors.append(FileError(given, reason))
            continue
        except OSError as exc:
            errors.append(FileError(given, f"cannot access: {exc.strerror or exc}"))
            continue
        if stat.S_ISDIR(mode):
            ignores = _ancestor_gitignores(location)
            if excluded is not None:
                ignores.insert(0, excluded)
            root = location.stat()
            walked = _walk(
                given, location, ignores, {(root.st_dev, root.st_ino)}, errors
            )
        elif stat.S_ISREG(mode):
            if (
                force_exclude
                and excluded is not None
                and _excluded_file(excluded, location)
            ):
                continue
            walked = iter([(os.path.normpath(given), location, location.is_symlink())])
        else:
            errors.append(FileError(given, "not a regular file or folder"))
            continue
        _add_files(walked, found, index)
    files = sorted(found.values(), key=lambda f: f.path)
    return Discovery(files=tuple(files), errors=tuple(errors), index=index)


def _add_files(walked: Iterator[tuple[str, Path, bool]], found: dict[str, DiscoveredFile],
               index: ModuleIndex) -> None:
    """Each walked file into ``found`` by its real path (a file reached twice is one)."""
    for display, file_location, is_link in walked:
        key = index.real_path(os.fspath(file_location), is_link)
        if key not in found:
            found[key] = DiscoveredFile(display, file_location, index.module_name(key))
