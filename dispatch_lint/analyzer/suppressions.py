"""In-source suppressions: ``# noqa``, ``# noqa: DL001``, ``# dispatch-lint: disable=DL001``
on the flagged line and ``# dispatch-lint: disable-next-line=DL001`` on the line above it.

Comments are found with :mod:`tokenize`, so a ``# noqa`` inside a string is not a comment.
Only files with findings (or all files, when unused suppressions are reported) are tokenized.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dispatch_lint.analyzer.diagnostics import Diagnostic

__all__ = [
    "NOQA_PATTERN",
    "Suppression",
    "SuppressionOutcome",
    "UnusedSuppression",
    "apply_suppressions",
    "find_suppressions",
    "may_hold_suppressions",
]

# Bare noqa, noqa with a code list, any case, with or without a space after the colon:
# the spellings flake8 and ruff accept.
_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
#: The ``# noqa`` grammar, for tools that write such comments (the language server's
#: "suppress on this line" action merges its code into the ``codes`` group).
NOQA_PATTERN = _NOQA
_DIRECTIVE = re.compile(
    r"#\s*dispatch-lint:\s*(?P<kind>disable|disable-next-line)\s*=\s*"
    r"(?P<codes>[A-Za-z]+[0-9]*(?:\s*,\s*[A-Za-z]+[0-9]*)*)"
)
_CODE = re.compile(r"[A-Za-z]+[0-9]*")


@dataclass(frozen=True)
class Suppression:
    """One suppression comment.

    ``target`` is the line whose findings it silences; ``codes`` the rule selectors it names
    (only this project's ``DL`` ones), or None for a bare ``# noqa`` that silences every rule.
    ``line``/``column`` (1-based) and ``text`` locate the comment itself.
    """

    target: int
    codes: tuple[str, ...] | None
    line: int
    column: int
    text: str

    def silences(self, diagnostic: Diagnostic) -> str | None:
        """The code (or ``"noqa"`` for a bare one) that silences ``diagnostic``, if any."""
        if diagnostic.line != self.target:
            return None
        if self.codes is None:
            return "noqa"
        return next(
            (code for code in self.codes if diagnostic.rule.startswith(code)), None
        )


def may_hold_suppressions(source: bytes) -> bool:
    """A byte-level test that rules out tokenizing most files."""
    lowered = source.lower()
    return b"noqa" in lowered or b"dispatch-lint:" in lowered


def find_suppressions(source: bytes) -> tuple[Suppression, ...]:
    """The suppression comments of ``source`` (raw bytes: tokenize honours its encoding).

    A file that cannot be tokenized (it does not parse either) has none.
    """
    if not may_hold_suppressions(source):
        return ()
    found = []
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            if token.type == tokenize.COMMENT:
                found.extend(_parse_comment(token.string, *token.start))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        return tuple(found)
    return tuple(found)


def _parse_comment(comment: str, line: int, column: int) -> list[Suppression]:
    found = []
    for match in _DIRECTIVE.finditer(comment):
        codes = tuple(c.upper() for c in _CODE.findall(match["codes"]))
        target = line + 1 if match["kind"] == "disable-next-line" else line
        codes = tuple(c for c in codes if c.startswith("DL"))
        if codes:
            found.append(
                Suppression(target, codes, line, column + match.start() + 1, match[0])
            )
    noqa = _NOQA.search(comment)
    if noqa is not None:
        if noqa["codes"] is None:
            found.append(
                Suppression(line, None, line, column + noqa.start() + 1, noqa[0])
            )
        else:
            # Codes of other tools (E501) are theirs; a noqa comment naming only those
            # silences none of our rules.
            codes = tuple(
                c.upper()
                for c in _CODE.findall(noqa["codes"])
                if c.upper().startswith("DL")
            )
            if codes:
                found.append(
                    Suppression(line, codes, line, column + noqa.start() + 1, noqa[0])
                )
    return found


@dataclass(frozen=True)
class SuppressionOutcome:
    """Diagnostics split by the file's suppression comments, and the comments (or codes
    of them) that silenced nothing."""

    kept: tuple[Diagnostic, ...]
    suppressed: tuple[Diagnostic, ...]
    #: (suppression, code) pairs: the code of the comment that silenced nothing; the code is
    #: None for a bare noqa comment.
    unused: tuple[tuple[Suppression, str | None], ...]


def apply_suppressions(
    diagnostics: Sequence[Diagnostic], suppressions: Iterable[Suppression]
) -> SuppressionOutcome:
    """Split one file's ``diagnostics`` by its ``suppressions``.

    DL000 is never silenced: a file that does not parse was not checked at all.
    """
    suppressions = tuple(suppressions)
    used: set[tuple[Suppression, str]] = set()
    kept, suppressed = [], []
    for diagnostic in diagnostics:
        silenced = False
        if diagnostic.rule != "DL000":
            for suppression in suppressions:
                code = suppression.silences(diagnostic)
                if code is not None:
                    used.add((suppression, code))
                    silenced = True
        (suppressed if silenced else kept).append(diagnostic)
    unused: list[tuple[Suppression, str | None]] = []
    for suppression in suppressions:
        if suppression.codes is None:
            if (suppression, "noqa") not in used:
                unused.append((suppression, None))
        else:
            unused.extend(
                (suppression, code)
                for code in suppression.codes
                if (suppression, code) not in used
            )
    return SuppressionOutcome(tuple(kept), tuple(suppressed), tuple(unused))


@dataclass(frozen=True, order=True)
class UnusedSuppression:
    """A suppression comment (or one code of it) that silenced nothing, for
    ``--warn-unused-suppressions``. ``code`` is None for a bare ``# noqa``."""

    path: str
    line: int
    column: int
    code: str | None
    text: str

    @property
    def message(self) -> str:
        if self.code is None:
            return f"unused suppression '{self.text}': no finding on this line"
        return f"unused suppression '{self.text}': no {self.code} finding on its line"
