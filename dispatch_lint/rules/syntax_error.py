"""DL000 syntax-error."""

from __future__ import annotations

from dispatch_lint.catalog import rule
from dispatch_lint.rules.base import Rule


class SyntaxErrorRule(Rule):
    """Flags a file that CPython cannot compile.

    Nothing in such a file can be checked, and importing it fails with ``SyntaxError`` at run
    time. The finding carries CPython's own reason and place. Every other file of the run is
    still checked.

    Example::

        def main(:
            pass

    Fix: correct the syntax; the file is checked once it compiles.
    """

    spec = rule("DL000")
    VALID = ("x = 1\n", "")
    INVALID = ("def main(:  # expect\n    pass\n", "x = (1,  # expect\n")
