"""Automatic fixes (``--fix``, ``--unsafe-fixes``, ``--diff``): planned when a finding is
reported, applied to the text of its file.

A rule that can fix its finding has a ``fix(hit, event, site)`` classmethod beside its check
(``rules/<rule>.py``). It answers with a :class:`Replacement`: a node of the checked tree, the
libcst node to put in its place, a title and whether the fix is safe. :func:`plan_fix` turns
that into a :class:`~dispatch_lint.analyzer.diagnostics.Fix`: libcst generates the code of the
new node, which is compared with the old node's own text in the file, and only the characters
that differ become the edit, so every other byte of the file stays as it was. A ``Fix`` is
plain data (cached, sent between processes, shown by editors); :func:`apply_fixes` applies the
fixes of one file's findings to its bytes and :func:`fix_files` refuses any result that
CPython cannot compile.

Safe means: on every path where the flagged code runs it does what the code meant (the line
raised before; it works now) and nothing that worked changes. The rules decide it from the
finding's values, which hold what the analysis saw in one run of the code: :meth:`FixSite.
runs_once` says whether that is every run (module-level code, or a module-level function
without parameters, outside loops and comprehensions); elsewhere a fix built from those values
is unsafe at best.
"""

from __future__ import annotations

import codecs
import difflib
import io
import os
import re
import tokenize
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import libcst as cst
from libcst.metadata import MetadataWrapper, ScopeProvider

from dispatch_lint.analyzer.diagnostics import (
    SAFE,
    UNSAFE,
    Diagnostic,
    Edit,
    Fix,
    is_enabled,
)
from dispatch_lint.analyzer.model import RUNTIME, runtime_name
from dispatch_lint.analyzer.positions import code_in_block
from dispatch_lint.analyzer.values import squeeze_code

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.engine import Reporter
    from dispatch_lint.analyzer.events import Event, Hit
    from dispatch_lint.analyzer.facts import Finding

__all__ = [
    "SAFE",
    "UNSAFE",
    "FileFix",
    "OTHER_RUNS",
    "FixSite",
    "Replacement",
    "apply_fixes",
    "fix_files",
    "is_enabled",
    "plan_fix",
    "safe_if",
    "unified_diff",
]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

#: Said after the title of a fix that is unsafe only because :meth:`FixSite.runs_once` does
#: not hold.
OTHER_RUNS = "unsafe fix: other runs of this line may see other devices"


@dataclass(frozen=True)
class Replacement:
    """A rule's fix: put ``new`` where ``node`` (in the finding's file) is. ``title`` says
    what it does (the finding's ``help:``); an unsafe fix's title says why it is unsafe."""

    node: cst.CSTNode
    new: cst.CSTNode
    title: str
    applicability: str


def safe_if(certain: bool, node: cst.CSTNode, new: cst.CSTNode, title: str) -> Replacement:
    """A fix that is safe when ``certain``, else unsafe with :data:`OTHER_RUNS` said."""
    if certain:
        return Replacement(node, new, title, SAFE)
    return Replacement(node, new, f"{title} ({OTHER_RUNS})", UNSAFE)


# ------------------------------------------------------------------------------ planning


def plan_fix(reporter: Reporter, finding: Finding) -> Fix | None:
    """The fix of ``finding`` as edits of its file, or None when its rule has none for it.

    Never raises: a fix that cannot be planned leaves the finding as it is."""
    from dispatch_lint.rules import RULES_BY_ID

    rule_class = RULES_BY_ID.get(finding.hit.rule)
    if rule_class is None:
        return None
    try:
        site = FixSite(reporter, finding)
        replacement = rule_class.fix(finding.hit, finding.event, site)
        return site.edits_for(replacement) if replacement is not None else None
    except Exception:  # noqa: BLE001 - a fix is an extra; the finding must still be reported
        return None


class FixSite:
    """What a rule's fix function may ask about the finding it fixes: where it is, which
    names the file imports, and whether the values the analysis saw are all there are."""

    def __init__(self, reporter: Reporter, finding: Finding) -> None:
        self._reporter = reporter
        self.event: Event = finding.event
        self.module: cst.Module = reporter.files[finding.event.file].tree
        self._imports: dict[str, str] | None = None

    @property
    def direct(self) -> bool:
        """Whether the finding is at its sink (not at a call that leads to it)."""
        return self.event.node is self.event.sink.node

    @property
    def call(self) -> cst.Call | None:
        """The call the finding is reported at."""
        return self.event.node if isinstance(self.event.node, cst.Call) else None

    def code(self, node: cst.CSTNode) -> str:
        """``node``'s code on one line, shortened, for a title."""
        return squeeze_code(self.module.code_for_node(node))

    # -------------------------------------------------------------------- certainty

    def runs_once(self, node: cst.CSTNode) -> bool:
        """Whether one pass of the analysis saw every run of ``node``: it is module-level
        code, or in a module-level function without parameters, and not inside a loop, a
        comprehension or a lambda. (A function with parameters is analysed once per calling
        context, a loop body once per round; a finding keeps the values of one of them.)"""
        path = _path_to(self.module.body, self.event.anchor)
        if path is None or not _once_per_pass(path, node):
            return False
        function = _function_of(path)
        return function is None or (function is not False and not _has_parameters(
            function.params))

    def helper_only_moves(self, hit: Hit) -> bool:
        """Whether the helper that the finding's call passes the flagged value to does
        nothing with that parameter but the flagged move, once per call of the helper.

        That is: the trace goes from the parameter straight to the sink (no step between);
        the sink is ``param.to_device(...)`` in a module-level function without decorators
        (nothing else sees the arguments), outside loops, comprehensions and lambdas (the
        helper's own pass saw the move's one run for this call); and that receiver is the
        only read of the parameter in the function (see :func:`_only_read`). Then a plain
        tensor in place of the autodiff one changes only the move, which raised and now
        works; nothing returned or kept can carry autodiff."""
        call = self.call
        if call is None or hit.trace is None:
            return False
        steps = hit.trace.steps()
        if (len(steps) < 3 or steps[-3].node is not call
                or not steps[-3].template.startswith("passed to ")
                or steps[-1].node is not self.event.sink.node):
            return False
        param, sink = steps[-2], steps[-1]
        if param.file != sink.file or not isinstance(param.node, cst.Name):
            return False
        module = self._reporter.files[sink.file].tree
        path = _path_to(module.body, sink.anchor)
        if path is None or not _once_per_pass(path, sink.node):
            return False
        function = _function_of(path)
        if not function or function.decorators or not any(
            p.name is param.node for p in _parameters(function.params)
        ):
            return False
        receiver = _moved_name(sink.node)
        return receiver is not None and _only_read(function, param.node) is receiver

    # ---------------------------------------------------------------------- names

    def names(self, expression: cst.BaseExpression, name: str) -> bool:
        """Whether ``expression`` (``dispatch.Autodiff``, ``Autodiff``, ``AD``) is the runtime
        API ``name``, by this file's imports."""
        dotted = _dotted(expression)
        if dotted is None:
            return False
        head, _, rest = dotted.partition(".")
        qualified = self.imports().get(head)
        if qualified is None:
            return False
        return runtime_name(f"{qualified}.{rest}" if rest else qualified) == name

    def runtime(self, name: str) -> cst.BaseExpression | None:
        """An expression for the runtime API ``name`` as this file can write it, or None when
        the file imports neither it nor the runtime module."""
        imports = self.imports()
        for local, qualified in imports.items():
            if qualified.startswith(RUNTIME + ".") and runtime_name(qualified) == name:
                return cst.Name(local)
        for local, qualified in imports.items():
            if qualified == RUNTIME:
                return cst.parse_expression(f"{local}.{name}")
        if imports.get("dispatch_lint") == "dispatch_lint":
            return cst.parse_expression(f"{RUNTIME}.{name}")
        return None

    def imports(self) -> dict[str, str]:
        """Local name -> qualified name, from the file's top-level imports (also those under
        a top-level ``if`` or ``try``); a name imported as two things is left out."""
        if self._imports is None:
            found: dict[str, str | None] = {}
            for statement in _top_level(self.module.body):
                for local, qualified in _imported(statement):
                    found[local] = qualified if found.get(local, qualified) == qualified else None
            self._imports = {k: v for k, v in found.items() if v is not None}
        return self._imports

    # ------------------------------------------------------------------- arguments

    def argument_passed(self, hit: Hit) -> cst.BaseExpression | None:
        """The argument of the call the finding is reported at that carried the flagged
        value into the callee (a plain function's positional parameter, or any keyword
        one), or None when the trace does not say."""
        call = self.call
        if call is None or hit.trace is None:
            return None
        steps = hit.trace.steps()
        for index, step in enumerate(steps[:-1]):
            if step.node is not call or not step.template.startswith("passed to `{code}` as `"):
                continue
            name = step.template.rsplit("`", 2)[-2]
            keyword = next((a for a in call.args if a.keyword is not None
                            and a.keyword.value == name), None)
            if keyword is not None:
                return keyword.value
            param = steps[index + 1].node
            callee = self._reporter.files[steps[index + 1].file].tree
            position = _positional_index(callee, param)
            positional = [a for a in call.args if a.keyword is None]
            if position is None or any(a.star for a in positional[: position + 1]):
                return None
            return positional[position].value if position < len(positional) else None
        return None

    # ----------------------------------------------------------------------- edits

    def edits_for(self, replacement: Replacement) -> Fix | None:
        """``replacement`` as the edit of the characters that change, or None when its
        node's text cannot be found in the file exactly as libcst writes it (then an edit
        could touch other bytes) or the new code would drop a comment."""
        file, anchor = self.event.file, self.event.anchor
        positions = self._reporter.positions(file)
        span = positions.code_span(replacement.node, anchor)
        old = positions.code(replacement.node, anchor)
        start = positions.code_span(anchor, anchor) if anchor is not None else None
        if span is None or old is None or start is None:
            return None
        # Continuation lines of the code carry the indentation of the statement's block.
        line = positions.line_text(start[0])
        indent = line[: len(line) - len(line.lstrip(" \t\f"))]
        if old != code_in_block(self.module, replacement.node, indent):
            return None
        new = code_in_block(self.module, replacement.new, indent)
        if not _comments(replacement.node) <= _comments(replacement.new):
            return None
        start = _common_prefix(old, new)
        end = _common_suffix(old[start:], new[start:])
        line, column = _advance(span[0], span[1], old[:start])
        end_line, end_column = _advance(span[0], span[1], old[: len(old) - end])
        edit = Edit(line, column + 1, end_line, end_column + 1, new[start: len(new) - end])
        return Fix(replacement.title, replacement.applicability, (edit,))


#: Builtins that read a function's locals by name.
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec"})


def _once_per_pass(path: Sequence[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` (in the statement ``path[-1]``) runs at most once each time the code
    around it does: no loop around its statement, no lambda or comprehension around it in
    the statement."""
    if any(isinstance(s, (cst.For, cst.While)) for s in path):
        return False
    inside = _expression_path(path[-1], node)
    return inside is not None and not any(
        isinstance(n, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp))
        for n in inside
    )


def _function_of(path: Sequence[cst.CSTNode]) -> cst.FunctionDef | Literal[False] | None:
    """The module-level function the statement at the end of ``path`` is in; None for
    module-level code; False for a method or a nested function."""
    functions = [s for s in path if isinstance(s, cst.FunctionDef)]
    if not functions:
        return None
    if len(functions) > 1 or path[0] is not functions[0]:
        return False
    return functions[0]


def _parameters(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from (*params.posonly_params, *params.params, *params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star


def _moved_name(node: cst.CSTNode) -> cst.Name | None:
    """``t`` of ``t.to_device(...)``."""
    if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "to_device" and isinstance(node.func.value, cst.Name)):
        return node.func.value
    return None


def _only_read(function: cst.FunctionDef, param: cst.Name) -> cst.CSTNode | None:
    """The one place ``function`` reads its parameter ``param``, by libcst's scope analysis
    of the function alone (a nested function's read counts); None when it reads it in more
    places, binds the name again, or calls ``locals()``, ``vars()``, ``eval`` or ``exec``,
    which could read it by name."""
    scopes = MetadataWrapper(cst.Module(body=[function]), unsafe_skip_copy=True).resolve(
        ScopeProvider)
    if any(access.node.value in _INTROSPECTION
           for scope in {s for s in scopes.values() if s is not None}
           for access in scope.accesses if isinstance(access.node, cst.Name)):
        return None
    scope = scopes.get(function.body)
    assignments = list(scope.assignments[param.value]) if scope is not None else []
    if len(assignments) != 1:
        return None
    (assignment,) = assignments
    reads = list(assignment.references)
    return reads[0].node if len(reads) == 1 else None


def _has_parameters(params: cst.Parameters) -> bool:
    return bool(params.params or params.posonly_params or params.kwonly_params
                or isinstance(params.star_arg, cst.Param) or params.star_kwarg)


def _blocks(statement: cst.CSTNode) -> Iterator[Sequence[cst.CSTNode]]:
    """The statement lists directly inside a compound statement (or a clause of one)."""
    if isinstance(statement, cst.SimpleStatementLine):
        yield statement.body
        return
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body.body
    for clause in ("orelse", "finalbody"):
        part = getattr(statement, clause, None)
        if part is not None:
            yield (part,)
    for many in ("handlers", "cases"):
        yield from ((h,) for h in getattr(statement, many, ()))


def _path_to(body: Sequence[cst.CSTNode], anchor: cst.CSTNode | None
             ) -> list[cst.CSTNode] | None:
    """The statements and clauses from the module's top level down to ``anchor``, or None
    when it is not among them. Expressions are not entered: statements are few."""
    if anchor is None:
        return None
    pending: list[tuple[Sequence[cst.CSTNode], list[cst.CSTNode]]] = [(body, [])]
    while pending:
        nodes, path = pending.pop()
        for node in nodes:
            here = [*path, node]
            if node is anchor:
                return here
            if not isinstance(node, cst.BaseSmallStatement):
                pending.extend((block, here) for block in _blocks(node))
    return None


def _expression_path(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from ``root`` (the anchor statement) down to ``target``, or None. The
    bodies of a compound statement are not entered: a node in them has its own anchor."""
    pending: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(root, [])]
    while pending:
        node, path = pending.pop()
        here = [*path, node]
        if node is target:
            return here
        pending.extend((child, here) for child in node.children
                       if not isinstance(child, cst.BaseSuite))
    return None


def _top_level(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Small statements at the module's top level, also under its ``if`` and ``try``."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, (cst.If, cst.Try, cst.Else, cst.ExceptHandler,
                                    cst.Finally)):
            for block in _blocks(statement):
                yield from _top_level(block)


def _imported(statement: cst.CSTNode) -> Iterator[tuple[str, str]]:
    if isinstance(statement, cst.Import):
        for alias in statement.names:
            full = _dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                yield alias.asname.name.value, full
            else:
                head = full.split(".", 1)[0]
                yield head, head
    elif (isinstance(statement, cst.ImportFrom) and not statement.relative
          and statement.module is not None and not isinstance(statement.names, cst.ImportStar)):
        base = _dotted(statement.module)
        for alias in statement.names:
            name = _dotted(alias.name)
            if base is None or name is None:
                continue
            local = (alias.asname.name.value
                     if alias.asname is not None and isinstance(alias.asname.name, cst.Name)
                     else name)
            yield local, f"{base}.{name}"


def _dotted(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def _positional_index(module: cst.Module, param: cst.CSTNode) -> int | None:
    """Where ``param`` (a parameter, or its name) sits among the positional parameters of
    its function, when that function is a plain function (a method's ``self`` makes
    positions shift)."""
    pending: list[tuple[Sequence[cst.CSTNode], bool]] = [(module.body, False)]
    while pending:
        nodes, in_class = pending.pop()
        for node in nodes:
            if isinstance(node, cst.FunctionDef):
                positional = [*node.params.posonly_params, *node.params.params]
                for index, candidate in enumerate(positional):
                    if param is candidate or param is candidate.name:
                        return None if in_class else index
            if not isinstance(node, cst.BaseSmallStatement):
                pending.extend((block, isinstance(node, cst.ClassDef))
                               for block in _blocks(node))
    return None


def _comments(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.Comment):
            found.add(current.value)
        pending.extend(current.children)
    return found


def _common_prefix(a: str, b: str) -> int:
    size = len(os.path.commonprefix([a, b]))
    # Never split a "\r\n" line break: columns count from the line's start.
    if 0 < size < len(a) and a[size - 1] == "\r" and a[size] == "\n":
        size -= 1
    return size


def _common_suffix(a: str, b: str) -> int:
    size = len(os.path.commonprefix([a[::-1], b[::-1]]))
    if 0 < size < len(a) and a[-size] == "\n" and a[-size - 1] == "\r":
        size -= 1
    return size


def _advance(line: int, column: int, text: str) -> tuple[int, int]:
    """The position after ``text`` when it starts at ``line``:``column`` (0-based)."""
    pieces = _LINE_BREAK.split(text)
    if len(pieces) == 1:
        return line, column + len(text)
    return line + len(pieces) - 1, len(pieces[-1])


# -------------------------------------------------------------- helpers for the rules


def argument(call: cst.Call, keyword: str, position: int = 0) -> cst.BaseExpression | None:
    """The value of ``call``'s argument ``keyword`` (or at ``position``) when the call has
    exactly that one argument and no star arguments."""
    if len(call.args) != 1 or call.args[0].star:
        return None
    arg = call.args[0]
    if arg.keyword is None:
        return arg.value if position == 0 else None
    return arg.value if arg.keyword.value == keyword else None


def string_value(node: cst.CSTNode) -> str | None:
    """The text of a plain string literal (no f-string, no bytes, no implicit joining)."""
    if isinstance(node, cst.SimpleString) and "f" not in node.prefix.lower():
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def with_text(literal: cst.SimpleString, text: str) -> cst.SimpleString | None:
    """``literal`` holding ``text`` instead, with its own prefix and quotes; None when
    ``text`` would need escapes there."""
    if "\\" in text or literal.quote[0] in text or "\n" in text:
        return None
    return literal.with_changes(value=f"{literal.prefix}{literal.quote}{text}{literal.quote}")


def binds_tightly(node: cst.BaseExpression) -> bool:
    """Whether ``.attr`` may follow ``node``'s code as it is (no parentheses needed)."""
    return bool(node.lpar) or isinstance(
        node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString)
    )


def has_no_side_effects(node: cst.BaseExpression) -> bool:
    """A name or a chain of attributes of a name: evaluating it earlier or later is the same."""
    return _dotted(node) is not None


def in_place_of(call: cst.Call, value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` to stand where ``call`` stood, keeping the call's own parentheses."""
    return value.with_changes(lpar=[*call.lpar, *value.lpar], rpar=[*value.rpar, *call.rpar])


def method_call(receiver: cst.BaseExpression, name: str,
                args: Sequence[cst.Arg] = ()) -> cst.Call:
    """``receiver.name(args)``, with parentheses around ``receiver`` when it needs them."""
    if not binds_tightly(receiver):
        receiver = receiver.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name(name)), args=args)


# ------------------------------------------------------------------------------ applying


def apply_fixes(source: bytes, fixes: Iterable[Fix]) -> tuple[bytes, tuple[Fix, ...]]:
    """``source`` with ``fixes`` applied, and the fixes that were; a fix whose edits overlap
    one applied before it (in file order) waits for the next round, after a new lint.

    The bytes are decoded as CPython decodes them (coding cookie, byte order mark) and
    encoded back the same way; a file that does not decode exactly gets no fix."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        text = source.decode(encoding)
        if text.encode(encoding) != source:
            return source, ()
    except (SyntaxError, LookupError, UnicodeError):
        return source, ()
    if encoding == "utf-8-sig" or source.startswith(codecs.BOM_UTF8):
        text = text.lstrip("\ufeff")
        bom = codecs.BOM_UTF8
        encoding = "utf-8"
    else:
        bom = b""
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]

    def offset(line: int, column: int) -> int | None:
        if not 1 <= line <= len(starts):
            return None
        end = starts[line] if line < len(starts) else len(text)
        at = starts[line - 1] + column - 1
        return at if starts[line - 1] <= at <= end else None

    planned: list[tuple[int, int, Fix, list[tuple[int, int, str]]]] = []
    for fix in fixes:
        ranges = []
        for edit in fix.edits:
            start, end = offset(edit.line, edit.column), offset(edit.end_line, edit.end_column)
            if start is None or end is None or end < start:
                break
            ranges.append((start, end, edit.content))
        else:
            if ranges:
                ranges.sort()
                planned.append((ranges[0][0], ranges[-1][1], fix, ranges))
    planned.sort(key=lambda item: (item[0], item[1]))
    chosen: list[tuple[Fix, list[tuple[int, int, str]]]] = []
    taken: list[tuple[int, int]] = []
    for start, end, fix, ranges in planned:
        if any(start < t_end and t_start < end or start == t_start for t_start, t_end in taken):
            continue
        chosen.append((fix, ranges))
        taken.append((start, end))
    edits = sorted((r for _, ranges in chosen for r in ranges), reverse=True)
    for start, end, content in edits:
        text = text[:start] + content + text[end:]
    return bom + text.encode(encoding), tuple(fix for fix, _ in chosen)


@dataclass(frozen=True)
class FileFix:
    """One file's fixes: its bytes before and after, and the findings they fix."""

    path: str
    before: bytes
    after: bytes
    fixed: tuple[Diagnostic, ...]


def fix_files(diagnostics: Sequence[Diagnostic], sources: Mapping[str, bytes],
              unsafe: bool = False) -> tuple[list[FileFix], list[tuple[str, str]]]:
    """The fixed text of every file with an enabled fix among ``diagnostics`` (``sources``
    holds each file's bytes as linted), and (path, reason) for files left unfixed because
    the result would not compile. Nothing is written."""
    from dispatch_lint.analyzer.parse import check_syntax

    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        if is_enabled(diagnostic.fix, unsafe) and diagnostic.path in sources:
            by_path.setdefault(diagnostic.path, []).append(diagnostic)
    fixed: list[FileFix] = []
    refused: list[tuple[str, str]] = []
    for path, found in sorted(by_path.items()):
        before = sources[path]
        after, applied = apply_fixes(before, [d.fix for d in found if d.fix is not None])
        if not applied or after == before:
            continue
        problem = check_syntax(after, path)
        if problem is not None:
            refused.append((path, f"the fixed file would not compile ({problem.reason} at "
                                  f"line {problem.line}), so it was left as it is"))
            continue
        done = {id(fix) for fix in applied}
        fixed.append(FileFix(path, before, after,
                             tuple(d for d in found if id(d.fix) in done)))
    return fixed, refused


def unified_diff(change: FileFix) -> str:
    """``change`` as a unified diff (``--- path`` / ``+++ path``), decoded for display."""
    from dispatch_lint.analyzer.report.text import source_lines

    def lines(source: bytes) -> list[str]:
        decoded = source_lines(source)
        return [line + "\n" for line in decoded[:-1]] + ([decoded[-1]] if decoded[-1] else [])

    diff = difflib.unified_diff(lines(change.before), lines(change.after),
                                fromfile=change.path, tofile=change.path)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in diff)
