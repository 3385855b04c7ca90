"""The checked project: import roots, what its folders hold, imports resolved as Python
resolves them, and the groups of files that can affect each other.

One resolver answers every part of the linter (mypy's ``modulefinder`` and pyright's import
resolver are the models): discovery names modules with it, the run follows imports out of the
named files with it, the groups are the connected parts of the graph it resolves, and the
analysis binds imported names through the table it builds. Nothing is guessed from words.

The rules (also in the README, "Imports"):

- A file's imports are searched for, in order, in the folder above its top package (the first
  folder up without an ``__init__.py``: where Python would find it when it is run), then in
  the import roots: the ``src`` configuration key (folders relative to the configuration
  file), by default the configuration's folder and its ``src/`` when present. A module read
  because another file imports it resolves its own imports from the same folders as that file.
- ``import a.b`` is, in the first of those folders that has it, the package ``a/`` (with an
  ``__init__.py``) or the module ``a.py``; ``a/`` without ``__init__.py`` in any of them is a
  namespace package, unless ``a`` names a standard-library module. Anything else (the standard
  library, installed packages, compiled extensions) is external: never read, never grouped.
  So a project's ``pkg/logging.py`` is ``pkg.logging``, never what ``import logging`` means.
- Relative imports start from the importing file's own folder. ``from pkg import name`` also
  reads the submodule ``pkg/name.py`` when there is one. Imports anywhere count (inside
  functions, under ``if TYPE_CHECKING:``, in ``try``/``except ImportError``); names built at
  run time (``importlib.import_module(text)``, ``__import__``) are not followed.
- The runtime (``dispatch_lint``) is modelled, never read as a project module.

Only the standard library is imported here: a run answered by the cache uses this module.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Protocol

from dispatch_lint.analyzer.diagnostics import FileError
from dispatch_lint.analyzer.parallel import FileToCheck, Group

__all__ = [
    "Import",
    "ModuleIndex",
    "Project",
    "ProjectFiles",
    "code_only",
    "import_groups",
    "importing",
    "imports_in",
    "name_links",
    "scan_imports",
]

#: The modelled runtime: its imports are never followed, whatever the roots hold.
RUNTIME = "dispatch_lint"
#: Folders of installed distributions. A named file in one (a user linting an installed
#: package) has that folder above its top package, but the other distributions there are
#: installed packages, external as everywhere else: its imports resolve within its own top
#: package only. (Following them read all of site-packages - numpy's optional imports reach
#: torch, scipy, sympy and jax: about 5,000 files - into one group.)
INSTALLED_FOLDERS = frozenset({"site-packages", "dist-packages"})


# ----------------------------------------------------------------------------- scanning


class Import(NamedTuple):
    """One imported module as an import statement writes it: ``level`` leading dots,
    ``module`` the dotted name after them (``""`` in ``from . import x``), and ``names`` the
    names a ``from`` statement imports (``("*",)`` for a star import, ``()`` for ``import``);
    ``bound`` the name the statement binds for each (``import a.b``: ``a``; ``import a.b as
    c``, ``from m import x as c``: ``c``; nothing for a star import)."""

    level: int
    module: str
    names: tuple[str, ...] = ()
    bound: tuple[str, ...] = ()


_ID = rb"[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*"
#: Blanks inside a logical line: spaces, tabs, form feeds, backslash continuations.
_BLANK = rb"(?:[ \t\f]|\\(?:\r\n|\r|\n))*"
_DOTTED = _ID + rb"(?:" + _BLANK + rb"\." + _BLANK + _ID + rb")*"
_AS = rb"(?:" + _BLANK + rb"as(?![A-Za-z0-9_\x80-\xff])" + _BLANK + _ID + rb")?"
_NOT_ID = rb"(?![A-Za-z0-9_\x80-\xff])"
#: The string literals, by quote: unrolled loops (no nested quantifier can backtrack badly);
#: an unterminated one runs to the end of its line (or file), as the tokenizer reports it.
_STRING = (
    rb"'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|\Z)"
    rb'|"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:"""|\Z)'
    rb"|'[^'\\\r\n]*(?:\\(?:\r\n|[\s\S])[^'\\\r\n]*)*'?"
    rb'|"[^"\\\r\n]*(?:\\(?:\r\n|[\s\S])[^"\\\r\n]*)*"?'
)
#: Comments and string literals: where an import keyword is only text.
_SKIPPED = re.compile(rb"\#[^\r\n]*|" + _STRING)
#: Python 3.12 lets an f-string (3.14: a t-string) hold its own quote inside a replacement
#: field, which the expressions above end early: such strings are checked (:func:`_balanced`).
_NESTING_FSTRINGS = sys.version_info >= (3, 12)
_FSTRING_PREFIXES = frozenset({b"f", b"t", b"rf", b"fr", b"rt", b"tr"})
_ID_BYTES = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
) | frozenset(range(0x80, 0x100))
#: What may not come right before a keyword: it would be part of a name or an attribute.
_NOT_BEFORE = _ID_BYTES | {ord(".")}
_IMPORT = re.compile(
    rb"import" + _BLANK + rb"(?P<names>" + _DOTTED + _AS
    + rb"(?:" + _BLANK + rb"," + _BLANK + _DOTTED + _AS + rb")*)"
)
_FROM = re.compile(
    rb"from" + _BLANK + rb"(?P<dots>(?:\." + _BLANK + rb")*)(?P<module>" + _DOTTED + rb")?"
    + _BLANK + rb"import" + _NOT_ID + _BLANK
    + rb"(?P<names>\*|\([^)#]*(?:\#[^\r\n]*[^)#]*)*\)|" + _ID + _AS
    + rb"(?:" + _BLANK + rb"," + _BLANK + _ID + _AS + rb")*)"
)
_ITEM = re.compile(rb"(?P<name>" + _DOTTED + rb")(?:" + _BLANK + rb"as(?![A-Za-z0-9_\x80-\xff])"
                   + _BLANK + rb"(?P<alias>" + _ID + rb"))?")
_COMMENT = re.compile(rb"\#[^\r\n]*")
_LINE_BREAK = re.compile(rb"\\?(?:\r\n|\r|\n)")
_BLANKS = re.compile(rb"[\s\\]+")
_BLANK_BYTES = frozenset(b" \t\f\r\n\\")


def scan_imports(source: bytes) -> tuple[Import, ...]:
    """Every import statement of ``source``, in order, read without running anything.

    A pass over the bytes: each ``import`` and ``from`` that is a keyword (not part of a
    name, not inside a comment or a string literal, which are stepped over as the tokenizer
    reads them) is read as the statement it starts. It costs about a tenth of what
    ``ast.parse`` does. A string it cannot be sure of (an f-string holding its own quote,
    Python 3.12) sends the file to ``ast`` instead; a file that does not compile gets what
    the pass read (it is not analysed, and only links more).
    """
    found: list[Import] = []
    end = len(source)
    skip, find = _SKIPPED.search, source.find
    # The comment or string literal at or after the keyword being judged: [start, stop).
    start = stop = 0
    at_import, at_from = find(b"import"), find(b"from")
    while at_import >= 0 or at_from >= 0:
        keyword = at_from if at_import < 0 or 0 <= at_from < at_import else at_import
        while stop <= keyword:
            lexeme = skip(source, stop)
            if lexeme is None:
                start = stop = end + 1
                break
            start, stop = lexeme.span()
            if _NESTING_FSTRINGS and _fstring_at(source, start) and not _balanced(
                lexeme.group()
            ):
                return _scan_with_ast(source) or tuple(found)
        resume = keyword + 1
        if start <= keyword:
            resume = stop  # inside a comment or a string literal
        elif keyword == 0 or source[keyword - 1] not in _NOT_BEFORE:
            after = keyword + (4 if keyword == at_from else 6)
            if after >= end or source[after] not in _ID_BYTES:
                done = _statement(source, keyword, found)
                if done is not None:
                    resume = done
                    if start < done:  # a comment inside the statement's parentheses
                        start = stop = done
        if at_import < resume:
            at_import = find(b"import", resume)
        if 0 <= at_from < resume:
            at_from = find(b"from", resume)
    return tuple(found)


def code_only(source: bytes) -> bytes:
    """``source`` with its comments and string literals blanked: what only code says (a
    docstring that mentions ``jax.jit`` does not trace anything)."""
    return _SKIPPED.sub(b" ", source)


def _fstring_at(source: bytes, quote: int) -> bool:
    """Whether the string literal whose quote is at ``quote`` has an f (or t) prefix: the
    name right before the quote is a string prefix holding one of those letters."""
    run = quote
    while run > 0 and quote - run < 3 and source[run - 1] in _ID_BYTES:
        run -= 1
    if run > 0 and source[run - 1] in _ID_BYTES:
        return False  # a longer name (``elif"x"``): the string has no prefix
    return source[run:quote].lower() in _FSTRING_PREFIXES


def _statement(source: bytes, start: int, found: list[Import]) -> int | None:
    """Read the import statement at ``start`` into ``found``; its end, or None when the
    keyword starts none (``yield from x``, ``raise E from e``)."""
    if source.startswith(b"import", start):
        match = _IMPORT.match(source, start)
        if match is None:
            return None
        for item in _ITEM.finditer(match.group("names")):
            name = _text(item.group("name"))
            if name is not None:
                found.append(Import(0, name, (), (_bound(item, name.split(".", 1)[0]),)))
        return match.end()
    match = _FROM.match(source, start)
    if match is None:
        return None
    level = match.group("dots").count(b".")
    module = _text(match.group("module")) if match.group("module") else ""
    if module is None or (level == 0 and not module):
        return match.end()
    names = match.group("names")
    if names == b"*":
        found.append(Import(level, module, ("*",)))
        return match.end()
    # Inside parentheses, line breaks are blanks too.
    inner = _LINE_BREAK.sub(b" ", _COMMENT.sub(b"", names.strip(b"()")))
    items = [(name, item) for item in _ITEM.finditer(inner)
             if (name := _text(item.group("name"))) is not None]
    found.append(Import(level, module, tuple(name for name, _ in items),
                        tuple(_bound(item, name) for name, item in items)))
    return match.end()


def _bound(item: re.Match[bytes], name: str) -> str:
    """The name an import item binds: its alias, else ``name``."""
    alias = item.group("alias")
    return alias.decode("utf-8", "replace") if alias else name


def _text(dotted: bytes) -> str | None:
    """A dotted name as Python reads it: blanks dropped, non-ASCII identifiers normalised
    (NFKC, as the tokenizer does); None when it is not one."""
    compact = _BLANKS.sub(b"", dotted) if _BLANK_BYTES.intersection(dotted) else dotted
    try:
        text = compact.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return text if all(part.isidentifier() for part in text.split(".")) else None


def _balanced(fstring: bytes) -> bool:
    """Whether an f-string read as a plain string closes every replacement field it opens:
    one that holds its own quote was cut at that quote and leaves a field open."""
    rest = fstring.replace(b"{{", b"").replace(b"}}", b"")
    return rest.count(b"{") == rest.count(b"}")


def _scan_with_ast(source: bytes) -> tuple[Import, ...] | None:
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences: not ours to say
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(Import(0, alias.name, (), (alias.asname or alias.name.split(".")[0],))
                         for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names)
            bound = () if names == ("*",) else tuple(alias.asname or alias.name
                                                     for alias in node.names)
            found.append(Import(node.level, node.module or "", names, bound))
    return tuple(found)


# ------------------------------------------------------------------------- the folders


@dataclass(frozen=True)
class _Listing:
    """What one folder holds for imports: module stems (``a`` for ``a.py``), compiled
    extension stems, and subfolders whose names are identifiers."""

    modules: frozenset[str]
    compiled: frozenset[str]
    folders: frozenset[str]


_EMPTY_LISTING = _Listing(frozenset(), frozenset(), frozenset())


def _extension_suffixes() -> tuple[str, ...]:
    from importlib.machinery import EXTENSION_SUFFIXES

    return tuple(EXTENSION_SUFFIXES)


class ModuleIndex:
    """What the project's folders hold, each folder asked once: which are packages (hold an
    ``__init__.py``), which modules and subfolders they list. ``overlays`` (absolute path:
    bytes) are files that exist for the run whether or not they are on disk: an editor's
    unsaved buffers, standard input named with ``--stdin-filename``.

    Discovery names the files it finds through the index; the resolver then asks it again
    for the same folders, and gets the answers already found.
    """

    def __init__(self, overlays: Mapping[str, bytes] | None = None) -> None:
        self.overlays = {_absolute(path): data for path, data in (overlays or {}).items()}
        self._packages: dict[str, tuple[str, ...]] = {}
        self._is_package: dict[str, bool] = {}
        self._listings: dict[str, _Listing] = {}
        self._real_folders: dict[str, str] = {}
        self._real: dict[str, str] = {}
        # The folders and files the overlays add to their folders' listings.
        self._added: dict[str, set[str]] = {}
        for path in self.overlays:
            child = path
            folder = os.path.dirname(child)
            while folder != child:
                self._added.setdefault(folder, set()).add(os.path.basename(child))
                child, folder = folder, os.path.dirname(folder)

    # ---------------------------------------------------------------- names of files

    def module_name(self, location: str) -> str | None:
        """The dotted module name of the file at ``location`` (absolute): its package
        folders (those with ``__init__.py``) up to the first one without, then its own
        name. None when a part is not an identifier."""
        folder, name = os.path.split(location)
        parts = [] if name == "__init__.py" else [os.path.splitext(name)[0]]
        parts.extend(self.package_names(folder))
        if not parts or not all(part.isidentifier() for part in parts):
            return None
        return ".".join(reversed(parts))

    def package_names(self, folder: str) -> tuple[str, ...]:
        """``folder``'s name and those of the package folders around it, innermost first,
        as long as each holds an ``__init__.py`` (a loop: package chains may be deep)."""
        known = self._packages
        chain: list[str] = []
        while folder not in known:
            parent = os.path.dirname(folder)
            if parent == folder or not self.is_package(folder):
                known[folder] = ()
                break
            chain.append(folder)
            folder = parent
        names = known[folder]
        for package in reversed(chain):
            names = (os.path.basename(package), *names)
            known[package] = names
        return names

    def base_folder(self, location: str) -> str:
        """The folder above the top package of the file at ``location``: where Python finds
        it by its module name (:meth:`module_name`)."""
        folder = os.path.dirname(location)
        for _ in self.package_names(folder):
            folder = os.path.dirname(folder)
        return folder

    def is_package(self, folder: str) -> bool:
        """Whether ``folder`` holds an ``__init__.py``."""
        known = self._is_package.get(folder)
        if known is None:
            init = os.path.join(folder, "__init__.py")
            known = init in self.overlays or os.path.isfile(init)
            self._is_package[folder] = known
        return known

    def listing(self, folder: str) -> _Listing:
        """The modules, compiled extensions and subfolders of ``folder`` (empty when it
        cannot be listed)."""
        listing = self._listings.get(folder)
        if listing is not None:
            return listing
        modules, compiled, folders = set(), set(), set()
        suffixes = _extension_suffixes()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            entries = []
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if is_dir:
                if name.isidentifier():
                    folders.add(name)
            elif name.endswith(".py"):
                modules.add(name[:-3])
            elif name.endswith(suffixes):
                compiled.add(name.split(".", 1)[0])
        for name in self._added.get(folder, ()):
            if os.path.join(folder, name) in self.overlays:
                if name.endswith(".py"):
                    modules.add(name[:-3])
            elif name.isidentifier():
                folders.add(name)
        listing = _Listing(frozenset(modules), frozenset(compiled), frozenset(folders))
        self._listings[folder] = listing
        return listing

    def real_path(self, location: str, is_link: bool | None = None) -> str:
        """``os.path.realpath(location)``; a file that is not a link (``is_link``, when the
        caller knows) is where the real path of its folder says, resolved once per folder.
        Files are told apart by their real paths: a link to a file is that file."""
        known = self._real.get(location)
        if known is not None:
            return known
        if is_link or (is_link is None and os.path.islink(location)):
            known = self._real[location] = os.path.realpath(location)
            return known
        folder, name = os.path.split(location)
        real = self._real_folders.get(folder)
        if real is None:
            real = self._real_folders[folder] = os.path.realpath(folder)
        known = self._real[location] = os.path.join(real, name)
        return known

    def read(self, location: str) -> bytes:
        """The bytes of the file at ``location``: the overlay's, else the disk's (unbuffered:
        one read of the whole file needs no buffer object)."""
        data = self.overlays.get(location)
        if data is not None:
            return data
        with open(location, "rb", buffering=0) as file:
            return file.readall()


def _absolute(path: str | os.PathLike[str]) -> str:
    return os.path.normpath(os.path.abspath(os.fspath(path)))


# ------------------------------------------------------------------------ the resolver


@dataclass(frozen=True)
class _Found:
    """A module found: its file (None for a namespace package), and the folders its
    submodules are searched in (none for a plain module)."""

    location: str | None
    portions: tuple[str, ...]


#: A compiled extension or another module that is not Python source: found, never read.
_OPAQUE = _Found(None, ())


class _Resolver:
    """Absolute and relative module names to files, for one search path (each file's
    search path is the folder above its top package followed by the import roots)."""

    def __init__(self, index: ModuleIndex, search: tuple[str, ...],
                 installed: tuple[str, str] | None = None) -> None:
        self.index = index
        self.search = search
        #: (folder, top package) when the named file is an installed package's: that folder
        #: then holds only its own package for this run (see :data:`INSTALLED_FOLDERS`)
        self.installed = installed
        self._found: dict[str, _Found | None] = {}
        self._found_in: dict[tuple[tuple[str, ...], str], _Found | None] = {}
        self._stdlib = getattr(sys, "stdlib_module_names", frozenset())

    def find(self, name: str) -> _Found | None:
        """The module ``name`` (dotted, absolute) as Python's path finder finds it, or None
        when it is not the project's."""
        if name in self._found:
            return self._found[name]
        parent_name, _, last = name.rpartition(".")
        if not parent_name:
            found = self._find_in(last, self.search, top=True)
        else:
            parent = self.find(parent_name)
            found = self.find_in(parent.portions, last) if parent else None
        self._found[name] = found
        return found

    def find_in(self, portions: tuple[str, ...], name: str) -> _Found | None:
        """The submodule ``name`` of the package whose folders are ``portions``."""
        key = (portions, name)
        if key not in self._found_in:
            self._found_in[key] = self._find_in(name, portions, top=False)
        return self._found_in[key]

    def _find_in(self, name: str, folders: Sequence[str], top: bool) -> _Found | None:
        """``name`` in the first of ``folders`` that has it as a package or a module; else
        the namespace package of the folders that have it as a plain folder."""
        index = self.index
        portions = []
        for folder in folders:
            if (top and self.installed is not None and folder == self.installed[0]
                    and name != self.installed[1]):
                continue  # another installed distribution: external, never read
            listing = index.listing(folder)
            if name in listing.folders:
                package = os.path.join(folder, name)
                if index.is_package(package):
                    return _Found(os.path.join(package, "__init__.py"), (package,))
            # Python's file finder tries extension modules before sources.
            if name in listing.compiled:
                return _OPAQUE
            if name in listing.modules:
                return _Found(os.path.join(folder, name + ".py"), ())
            if name in listing.folders:
                portions.append(os.path.join(folder, name))
        # A plain folder never shadows the standard library: its regular package comes
        # before any namespace portion on sys.path.
        if not portions or (top and name in self._stdlib):
            return None
        return _Found(None, tuple(portions))

    def package_of(self, location: str, level: int) -> tuple[str, str] | None:
        """(folder, dotted name) of the package a relative import of ``level`` dots in the
        file at ``location`` starts from, or None when it would climb above the top."""
        folder = os.path.dirname(location)
        for _ in range(level - 1):
            if not self._is_package_folder(folder):
                return None
            folder = os.path.dirname(folder)
        if not self._is_package_folder(folder):
            return None
        name = self._package_name(folder)
        return (folder, name) if name else None

    def _is_package_folder(self, folder: str) -> bool:
        """A regular package, or a namespace portion: a folder strictly below a root."""
        if self.index.is_package(folder):
            return True
        return any(_strictly_inside(folder, root) for root in self.search)

    def _package_name(self, folder: str) -> str | None:
        """The dotted name of the package folder ``folder``: its regular package chain, or
        its path below the innermost root holding it (a namespace package)."""
        if self.index.is_package(folder):
            return ".".join(reversed(self.index.package_names(folder)))
        roots = [root for root in self.search if _strictly_inside(folder, root)]
        if not roots:
            return None
        parts = os.path.relpath(folder, max(roots, key=len)).split(os.sep)
        return ".".join(parts) if all(part.isidentifier() for part in parts) else None


def _strictly_inside(folder: str, root: str) -> bool:
    prefix = os.path.join(root, "")
    return folder.startswith(prefix) and len(folder) > len(prefix)


def _is_runtime(name: str) -> bool:
    return name == RUNTIME or name.startswith(RUNTIME + ".")


# ------------------------------------------------------------------------ following


@dataclass
class _Links:
    """The resolved imports of a run, by file key: the files each file imports (Python
    runs them), the module names each file is imported by, and the absolute module each
    relative import names."""

    edges: dict[str, set[str]] = field(default_factory=dict)
    names: dict[str, set[str]] = field(default_factory=dict)  # file key -> module names
    relative: dict[str, dict[tuple[int, str], str]] = field(default_factory=dict)


@dataclass(frozen=True)
class ProjectFiles:
    """The files of a run: the named ones, then the context files their imports reached
    (``context=True``); the import links between them (pairs of indices); and the notes
    on imported modules that could not be read (never errors of the named files).

    Every file carries the names it is imported by and the absolute modules of its
    relative imports (``FileToCheck.imported_as``, ``.relative``): the analysis binds
    imports as the resolver did."""

    files: tuple[FileToCheck, ...]
    links: tuple[tuple[int, int], ...]
    notes: tuple[FileError, ...] = ()


class Project:
    """Resolves the imports of the named files from their place in the project, and reads
    the project modules they import (transitively) as context.

    ``roots`` are the import roots (``src``); ``index`` is discovery's, so that the folders
    it asked about are not asked again; ``shown`` turns a context file's location into the
    path the user sees (by default relative to the current folder when inside it).
    """

    def __init__(self, roots: Sequence[str | os.PathLike[str]], index: ModuleIndex | None = None,
                 shown: Callable[[str], str] | None = None) -> None:
        self.index = index if index is not None else ModuleIndex()
        self.roots = tuple(dict.fromkeys(_absolute(root) for root in roots))
        self._shown = shown or _shown_path
        self._resolvers: dict[tuple[tuple[str, ...], tuple[str, str] | None], _Resolver] = {}
        self._imports: dict[str, tuple[Import, ...]] = {}

    def resolver_for(self, location: str) -> _Resolver:
        """The resolver of a named file: its base folder first, then the roots."""
        base = self.index.base_folder(location)
        search = tuple(dict.fromkeys((base, *self.roots)))
        installed = None
        if os.path.basename(base) in INSTALLED_FOLDERS:
            packages = self.index.package_names(os.path.dirname(location))
            top = packages[-1] if packages else os.path.splitext(os.path.basename(location))[0]
            installed = (base, top)
        resolver = self._resolvers.get((search, installed))
        if resolver is None:
            resolver = self._resolvers[(search, installed)] = _Resolver(
                self.index, search, installed
            )
        return resolver

    def follow(self, named: Sequence[FileToCheck], follow_imports: bool = True) -> ProjectFiles:
        """``named`` (each with its ``location``) and, with ``follow_imports``, the project
        modules their imports reach, every import among them resolved."""
        links = _Links()
        files: dict[str, FileToCheck] = {}
        for file in named:
            files.setdefault(self._key(file), file)
        notes: list[FileError] = []
        unreadable: set[str] = set()
        # Work list of (file key, resolver), in order: a module imported by files of two
        # search paths resolves its own imports along each.
        pending = deque(
            (key, self.resolver_for(file.location or key)) for key, file in files.items()
        )
        seen = {(key, resolver.search) for key, resolver in pending}
        while pending:
            key, resolver = pending.popleft()
            file = files[key]
            for target, location in self._targets(file, key, resolver, links):
                if target not in files:
                    if not follow_imports or target in unreadable:
                        continue
                    context = self._context_file(location, notes)
                    if context is None:
                        unreadable.add(target)
                        continue
                    files[target] = context
                if target != key:
                    links.edges.setdefault(key, set()).add(target)
                if (target, resolver.search) not in seen:
                    seen.add((target, resolver.search))
                    pending.append((target, resolver))
        return self._assemble(files, links, notes)

    def _assemble(self, files: dict[str, FileToCheck], links: _Links,
                  notes: list[FileError]) -> ProjectFiles:
        position = {key: index for index, key in enumerate(files)}
        done = tuple(
            replace(
                file,
                imported_as=tuple(sorted(links.names.get(key, ()))),
                imports=self._imports.get(key),
                relative=tuple(
                    (level, module, absolute)
                    for (level, module), absolute in sorted(links.relative.get(key, {}).items())
                ),
            )
            for key, file in files.items()
        )
        pairs = sorted(
            {(position[key], position[target]) for key, targets in links.edges.items()
             for target in targets if target in position}
        )
        return ProjectFiles(done, tuple(pairs), tuple(sorted(notes)))

    def _key(self, file: FileToCheck) -> str:
        return self.index.real_path(file.location) if file.location else file.path

    def _context_file(self, location: str, notes: list[FileError]) -> FileToCheck | None:
        shown = self._shown(location)
        try:
            source = self.index.read(location)
        except OSError as exc:
            notes.append(FileError(shown, "imported module not read: cannot read: "
                                          f"{exc.strerror or exc}"))
            return None
        return FileToCheck(shown, source, self.index.module_name(location), location,
                           context=True)

    def imports_of(self, file: FileToCheck, key: str) -> tuple[Import, ...]:
        imports = self._imports.get(key)
        if imports is None:
            imports = self._imports[key] = scan_imports(file.source)
        return imports

    def _targets(self, file: FileToCheck, key: str, resolver: _Resolver,
                 links: _Links) -> Iterator[tuple[str, str]]:
        """(key, location) of each project file the imports of ``file`` make Python run,
        each recorded in ``links`` under the name it is imported by."""
        location = file.location or key
        for imported in self.imports_of(file, key):
            parts = imported.module.split(".") if imported.module else []
            if imported.level:
                package = resolver.package_of(location, imported.level)
                if package is None:
                    continue
                folder, name = package
                absolute = ".".join([name, *parts])
                links.relative.setdefault(key, {}).setdefault(
                    (imported.level, imported.module), absolute
                )
                if _is_runtime(absolute):
                    continue
                # The package itself runs first (and `from . import x` may name its own x).
                found: _Found | None = _Found(_init_of(self.index, folder), (folder,))
                yield from self._record(name, found, links)
                for part in parts:
                    assert found is not None
                    found = resolver.find_in(found.portions, part)
                    name = f"{name}.{part}"
                    if found is None:
                        break
                    yield from self._record(name, found, links)
            else:
                absolute = imported.module
                if _is_runtime(absolute):
                    continue
                # `import a.b.c` runs a, a.b and a.b.c.
                name, found = "", None
                for part in parts:
                    name = f"{name}.{part}" if name else part
                    found = resolver.find(name)
                    if found is None:
                        break
                    yield from self._record(name, found, links)
            if found is None or not found.portions:
                continue
            for imported_name in imported.names:
                if imported_name == "*":
                    continue
                # `from pkg import name`: the submodule too, when there is one.
                sub = resolver.find_in(found.portions, imported_name)
                yield from self._record(f"{absolute}.{imported_name}", sub, links)

    def _record(self, name: str, found: _Found | None,
                links: _Links) -> Iterator[tuple[str, str]]:
        if found is None or found.location is None:
            return
        target = self.index.real_path(found.location)
        links.names.setdefault(target, set()).add(name)
        yield target, found.location


def _init_of(index: ModuleIndex, folder: str) -> str | None:
    return os.path.join(folder, "__init__.py") if index.is_package(folder) else None


def _shown_path(location: str) -> str:
    """A context file's path as the user sees it: relative to the current folder when it
    lies inside it, else absolute."""
    try:
        relative = os.path.relpath(location)
    except ValueError:  # another drive
        return location
    return location if relative.startswith(os.pardir) else relative


# ----------------------------------------------------------------------------- groups


def import_groups(files: Sequence[FileToCheck], links: Iterable[tuple[int, int]],
                  seeds: Callable[[bytes], bool]) -> list[Group]:
    """``files`` split into the connected parts of the import graph ``links`` (pairs of
    indices into ``files``), each in run order, ordered by their first file: checking them
    apart finds what checking them together finds, and parts that do not import each other
    can be checked in parallel.

    A group is ``seeded`` when ``seeds`` holds for the bytes of a file in it (it mentions an
    enabled framework, ``dispatch_lint`` or an import of ``jax``, or a name the user
    configured: :class:`~dispatch_lint.frameworks.Prefilter`): only those need the
    data-flow analysis. An unseeded
    group keeps its named files only (their syntax is checked; context files have nothing
    to report).
    """
    parent = list(range(len(files)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for one, other in links:
        root_one, root_other = find(one), find(other)
        if root_one != root_other:
            parent[max(root_one, root_other)] = min(root_one, root_other)
    members: dict[int, list[int]] = {}
    for index in range(len(files)):
        members.setdefault(find(index), []).append(index)
    groups = []
    for indices in members.values():
        seeded = any(seeds(files[i].source) for i in indices)
        chosen = [files[i] for i in indices if seeded or not files[i].context]
        if chosen:
            groups.append(Group(tuple(chosen), seeded))
    return groups


class _Named(Protocol):
    path: str
    source: bytes
    module: str | None
    imported_as: tuple[str, ...] | None
    relative: tuple[tuple[int, str, str], ...]
    imports: tuple[Import, ...] | None


def imports_in(file: _Named) -> tuple[Import, ...]:
    """The import statements of ``file``: those the resolver read, else read now."""
    return file.imports if file.imports is not None else scan_imports(file.source)


def name_links(files: Sequence[_Named],
               modules: Mapping[str, str] | None = None) -> list[tuple[int, int]]:
    """The import links among ``files`` (pairs of indices) judged by module names, as
    :class:`~.summaries.Program` binds them: an import links the files it names, their
    packages and the submodules it names. A file is named by the resolver's
    ``imported_as`` when it has them, else by its module (``modules`` by path, else its
    own ``module``): code that is in no file (:func:`~dispatch_lint.lint_source`) and
    engine calls on a set of files that is the whole world are judged so."""
    by_name: dict[str, int] = {}
    for index, file in enumerate(files):
        names = file.imported_as
        if names is None:
            module = modules.get(file.path) if modules is not None else file.module
            names = (module,) if module else ()
        for name in names:
            if not _is_runtime(name):
                by_name.setdefault(name, index)
    links = []
    for index, file in enumerate(files):
        module = modules.get(file.path) if modules is not None else file.module
        relative = {(level, written): absolute for level, written, absolute in file.relative}
        for imported in imports_in(file):
            if not imported.level:
                absolute: str | None = imported.module
            elif file.imported_as is not None:
                absolute = relative.get((imported.level, imported.module))
            else:
                absolute = _absolute_name(file.path, module, imported)
            if absolute is None or _is_runtime(absolute):
                continue
            parts = absolute.split(".") if absolute else []
            wanted = [".".join(parts[: i + 1]) for i in range(len(parts))]
            wanted.extend(f"{absolute}.{name}" for name in imported.names if name != "*")
            links.extend((index, by_name[name]) for name in wanted if name in by_name)
    return links


def importing(importers: Sequence[Collection[int]], files: Iterable[int]) -> set[int]:
    """``files`` and every file that imports one of them, directly or through others
    (``importers``: the files importing each file, by index)."""
    found = list(files)
    seen = set(found)
    while found:
        for importer in importers[found.pop()]:
            if importer not in seen:
                seen.add(importer)
                found.append(importer)
    return seen


def _absolute_name(path: str, module: str | None, imported: Import) -> str | None:
    """The module ``imported`` names from the file at ``path`` named ``module``: a relative
    import starts from the file's package (itself, for an ``__init__.py``)."""
    package = (module or "").split(".")
    if os.path.basename(path.replace("\\", "/")) != "__init__.py":
        package = package[:-1]
    up = imported.level - 1
    if up > len(package):
        return None
    base = package[: len(package) - up]
    return ".".join([*base, imported.module] if imported.module else base)
