"""The results cache in ``.dispatch_lint_cache/`` beside the configuration (or the current folder).

An entry is the engine's result for one group of files that may import each other (see
:mod:`.project`), keyed by a hash of every file of the group (shown path, module name,
content, whether it is named or read as context because a named file imports it, how its
imports resolved), the user's model (sources, sinks, sanitizers), the tool's version and a fingerprint
of the analyzer's own code. Editing a helper module therefore re-checks every file that imports
it, and a reinstall or an edited checkout never reuses results of other code. Results are
cached before selection and suppressions, which are cheap and applied on every run.

The cache is only ever a shortcut: a file that is missing, truncated, corrupt, written by
another version or unreadable is ignored (and replaced at the end of the run), never trusted
and never an error. Writes go to a temporary file renamed into place, so a reader sees a
whole old file or a whole new one, and two runs racing lose at most each other's new entries.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispatch_lint.analyzer.diagnostics import (
    Diagnostic,
    Edit,
    FileError,
    Fix,
    TraceStep,
)
from dispatch_lint.analyzer.parallel import FileToCheck, GroupResult

__all__ = ["CACHE_DIR", "GroupKey", "ResultCache", "group_key"]

CACHE_DIR = ".dispatch_lint_cache"
_RESULTS = "results.json"
#: Bumped when the layout of the results file changes.
_FORMAT = 2
#: Entries no run has used for this long are dropped when the file is rewritten.
_KEEP_SECONDS = 30 * 24 * 3600
#: A used entry's timestamp is refreshed (one rewrite) at most this often.
_REFRESH_SECONDS = 24 * 3600
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by dispatch-lint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


@dataclass(frozen=True)
class GroupKey:
    """Where a group's result is kept, and what it was computed from.

    ``slot`` names the group: its files (shown path, module name) in run order and the
    user's model. A slot holds one result, like ruff's one entry per file, so a file edited
    a hundred times leaves one entry, not a hundred. ``content`` hashes the slot and every
    file's bytes: a stored result is used only when it matches.
    """

    slot: str
    content: str


def group_key(files: Iterable[FileToCheck], model: str) -> GroupKey:
    """The key of the result of the group ``files`` under the user's ``model`` (as text:
    the ``repr`` of the settings)."""
    names = hashlib.sha256(model.encode())
    contents = []
    for file in files:
        names.update(
            b"\0%s\0%s\0%s\0"
            % (
                file.path.encode("utf-8", "surrogateescape"),
                (file.module or "").encode(),
                b"context" if file.context else b"named",
            )
        )
        contents.append(hashlib.sha256(file.source).digest())
        # How its imports were resolved: a module added or moved elsewhere in the project
        # changes what the same bytes import.
        contents.append(repr((file.imported_as, file.relative)).encode())
    slot = names.hexdigest()
    return GroupKey(
        slot, hashlib.sha256(slot.encode() + b"".join(contents)).hexdigest()
    )


class ResultCache:
    """The results stored under ``folder`` for the running version of the linter."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.stamp = _code_stamp()
        self._entries = self._load()
        self._new: dict[str, dict[str, Any]] = {}
        self._now = int(time.time())

    @classmethod
    def beside(cls, root: Path) -> ResultCache:
        """The cache of the project whose configuration (or current folder) is ``root``."""
        return cls(root / CACHE_DIR)

    def get(self, key: GroupKey) -> GroupResult | None:
        """The stored result for ``key``, or None."""
        entry = self._entries.get(key.slot)
        if entry is None or entry.get("content") != key.content:
            return None
        try:
            result = _decode(entry)
        except (TypeError, ValueError, KeyError, IndexError):
            return None  # A damaged entry is a miss, never an error.
        if self._now - entry["seen"] > _REFRESH_SECONDS:
            self._new[key.slot] = {**entry, "seen": self._now}
        return result

    def put(self, key: GroupKey, result: GroupResult) -> None:
        """Store ``result`` under ``key``, in place of the slot's older result (written by
        :meth:`save`)."""
        self._new[key.slot] = {
            **_encode(result),
            "content": key.content,
            "seen": self._now,
        }

    def save(self) -> None:
        """Write the new entries, merged with what another run may have written meanwhile.
        A folder that cannot be written is left alone: the cache is optional."""
        if not self._new:
            return
        try:
            self._prepare_folder()
            entries = {**self._load(), **self._new}
            keep = self._now - _KEEP_SECONDS
            document = {
                "format": _FORMAT,
                "stamp": self.stamp,
                "entries": {k: v for k, v in entries.items() if v["seen"] >= keep},
            }
            _write_atomically(self.folder / _RESULTS, json.dumps(document).encode())
        except OSError:
            return
        self._new = {}

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            document = json.loads((self.folder / _RESULTS).read_bytes())
        except (
            OSError,
            ValueError,
            RecursionError,
        ):  # missing, unreadable, truncated, not JSON
            return {}
        if not (
            isinstance(document, dict)
            and document.get("format") == _FORMAT
            and document.get("stamp") == self.stamp
            and isinstance(document.get("entries"), dict)
        ):
            return {}
        return {
            key: entry
            for key, entry in document["entries"].items()
            if isinstance(entry, dict) and isinstance(entry.get("seen"), int)
        }

    def _prepare_folder(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        for name, text in (
            (".gitignore", "# Created by dispatch-lint.\n*\n"),
            ("CACHEDIR.TAG", _TAG),
        ):
            if not (self.folder / name).is_file():
                _write_atomically(self.folder / name, text.encode())


def _write_atomically(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=".tmp-", suffix=path.name
    )
    try:
        with os.fdopen(handle, "wb") as out:
            if hasattr(os, "fchmod"):
                os.fchmod(
                    out.fileno(), 0o644
                )  # not mkstemp's 0600: a cache, not a secret
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _code_stamp() -> str:
    """The linter's version and a fingerprint of the analysis code: an editable install or a
    checkout changes the analysis without changing the version number."""
    from dispatch_lint import __version__

    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"{__version__}\0{_FORMAT}".encode())
    for folder in (
        package,
        package / "analyzer",
        package / "analyzer" / "report",
        package / "rules",
    ):
        try:
            found = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in found:
            if entry.name.endswith(".py"):
                stat = entry.stat()
                digest.update(
                    f"{folder.name}/{entry.name}\0{stat.st_size}\0"
                    f"{stat.st_mtime_ns}\0".encode()
                )
    return f"{__version__}-{digest.hexdigest()[:20]}"


# ------------------------------------------------------------------------ (de)serializing


def _encode(result: GroupResult) -> dict[str, Any]:
    return {
        "diagnostics": [
            [
                d.path,
                d.line,
                d.column,
                d.rule,
                d.name,
                d.severity,
                d.message,
                d.end_line,
                d.end_column,
                [[s.path, s.line, s.column, s.message] for s in d.trace],
                list(d.notes),
                d.headline,
                d.help,
                _encode_fix(d.fix),
            ]
            for d in result.diagnostics
        ],
        "errors": [[e.path, e.message] for e in result.errors],
        "notes": [[n.path, n.message] for n in result.notes],
    }


def _encode_fix(fix: Fix | None) -> list[Any] | None:
    if fix is None:
        return None
    edits = [[e.line, e.column, e.end_line, e.end_column, e.content] for e in fix.edits]
    return [fix.title, fix.applicability, edits]


#: The types of a stored finding's fields before its trace and notes, and of a trace step's.
_DIAGNOSTIC_FIELDS = (str, int, int, str, str, str, str, int, int)
_STEP_FIELDS = (str, int, int, str)
_EDIT_FIELDS = (int, int, int, int, str)


def _decode(entry: dict[str, Any]) -> GroupResult:
    """The result stored in ``entry``; ``TypeError`` or ``ValueError`` (or ``KeyError``,
    ``IndexError``) when anything in it has the wrong shape."""
    diagnostics = []
    for item in entry["diagnostics"]:
        *fields, trace, notes, headline, advice, fix = item
        steps = tuple(TraceStep(*_typed(s, _STEP_FIELDS)) for s in trace)
        diagnostics.append(
            Diagnostic(
                *_typed(fields, _DIAGNOSTIC_FIELDS),
                trace=steps,
                notes=tuple(_typed(notes, (str,) * len(notes))),
                headline=_typed([headline], (str,))[0],
                help=_typed([advice], (str,))[0],
                fix=_decode_fix(fix),
            )
        )
    return GroupResult(
        tuple(diagnostics),
        tuple(FileError(*_typed(e, (str, str))) for e in entry["errors"]),
        tuple(FileError(*_typed(n, (str, str))) for n in entry["notes"]),
    )


def _decode_fix(entry: Any) -> Fix | None:
    if entry is None:
        return None
    title, applicability, edits = _typed(entry, (str, str, list))
    return Fix(title, applicability, tuple(Edit(*_typed(e, _EDIT_FIELDS)) for e in edits))


def _typed(values: Any, types: tuple[type, ...]) -> list[Any]:
    if not isinstance(values, list) or len(values) != len(types):
        raise ValueError("malformed cache entry")
    for value, kind in zip(values, types):
        # ``type() is``: a bool is an int to isinstance; a line number never is one.
        if type(value) is not kind:
            raise TypeError("malformed cache entry")
    return values
