"""Line and column positions of libcst nodes, computed only where a diagnostic needs them.

Resolving positions for every file (libcst's ``PositionProvider`` through a
``MetadataWrapper``) costs a deep copy plus a code-generation pass per file. The analysis
does not need positions at all; only the few nodes a diagnostic or a trace step points at do.

:class:`AnchorPositions` positions such a node through its *anchor*: the statement the
analysis was running when it met the node. Only the anchor's own code is generated, with
position recording, then shifted to where the anchor sits in the file. Where is found
without parsing again when the anchor's code occurs exactly once in the source (most
statements); else CPython's ``ast`` (parsed once per file, a fraction of a libcst parse)
says where each statement and each header expression of a compound statement starts.
Anything that does not fit (statement lists of the two parsers that do not pair up, a node
outside its anchor, a shift that does not check out) falls back to one position-recording
code generation of the whole module, so an anchor can make positions cheaper, never wrong.

A node's position also gives its text: messages cut a node's code from the source
(:meth:`AnchorPositions.code`) instead of generating it again.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

__all__ = ["AnchorPositions", "code_in_block", "node_positions", "statement_pairs"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


#: (start line, start column, end line, end column): lines 1-based, columns 0-based
Span = tuple[int, int, int, int]


class _Spans(CodegenState):
    """A code-generation state that records where each node's code starts and ends.

    It records what libcst's ``PositionProvider`` records (the syntactic range of each node,
    else the range of all its code) as plain tuples, and skips what nobody reads (the tokens'
    text is kept only because the module's code generation pops its last newline)."""

    def __init__(self, module: cst.Module, indent: str) -> None:
        super().__init__(default_indent=module.default_indent,
                         default_newline=module.default_newline)
        if indent:
            self.indent_tokens.append(indent)
        self.spans: dict[cst.CSTNode, Span] = {}
        #: all of each node's code, whitespace and parentheses included (for its text)
        self.code_spans: dict[cst.CSTNode, Span] = {}
        self.line = 1
        self.column = 0
        self.starts: list[tuple[int, int]] = []
        #: whether the code depends on the indentation of the block around it
        self.indented = False

    def add_indent_tokens(self) -> None:
        self.indented = True
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" not in value and "\r" not in value:
            self.column += len(value)
            return
        lines = _LINE_BREAK.split(value)
        self.line += len(lines) - 1
        self.column = len(lines[-1])

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        line, column = self.starts.pop()
        whole = (line, column, self.line, self.column)
        self.code_spans[node] = whole
        self.spans.setdefault(node, whole)  # a syntactic range, recorded inside, wins

    def record_syntactic_position(self, node: cst.CSTNode, *,
                                  start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """Records a node's syntactic range around the code it generates (libcst's nodes call
    ``with state.record_syntactic_position(node): ...``); a class is cheaper than a
    generator-based context manager on this path, taken for most nodes."""

    __slots__ = ("column", "end_node", "line", "node", "start_node", "state")

    def __init__(self, state: _Spans, node: cst.CSTNode, start_node: cst.CSTNode | None,
                 end_node: cst.CSTNode | None) -> None:
        self.state, self.node = state, node
        self.start_node, self.end_node = start_node, end_node
        self.line, self.column = state.line, state.column

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        state, spans = self.state, self.state.spans
        line, column = self.line, self.column
        end_line, end_column = state.line, state.column
        # Some nodes take their range from a child (a decorated def starts at `def`).
        if self.start_node is not None:
            line, column = spans[self.start_node][:2]
        if self.end_node is not None:
            end_line, end_column = spans[self.end_node][2:]
        spans[self.node] = (line, column, end_line, end_column)


def _record(module: cst.Module, node: cst.CSTNode, indent: str = "") -> dict[cst.CSTNode, Span]:
    """Spans of ``node`` and everything inside it, as if its code started at line 1, col 0.

    ``indent`` is the indentation of the block holding ``node``: libcst writes it again at
    the start of continuation lines that it marks as indented."""
    return _generate(module, node, indent).spans


def _generate(module: cst.Module, node: cst.CSTNode, indent: str = "") -> _Spans:
    state = _Spans(module, indent)
    node._codegen(state)
    return state


def code_in_block(module: cst.Module, node: cst.CSTNode, indent: str) -> str:
    """``node``'s code as libcst writes it inside a block indented by ``indent``: what the
    file holds for it (``module.code_for_node`` writes continuation lines as if at the top
    level)."""
    return "".join(_generate(module, node, indent).tokens)


def _code_range(span: Span) -> CodeRange:
    return CodeRange(CodePosition(span[0], span[1]), CodePosition(span[2], span[3]))


def node_positions(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """Syntactic start/end of every node of ``module`` (lines 1-based, columns 0-based), as
    libcst's ``PositionProvider`` gives them: the reference anchors are held to."""
    return {node: _code_range(span) for node, span in _record(module, module).items()}


# ----------------------------------------------------------------------- statement pairing


def _cst_statements(body: Sequence[cst.CSTNode], out: list[cst.CSTNode]) -> None:
    """Small and compound statements of ``body`` in pre-order, in the order ``ast`` has them."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend(stmt.body)
            continue
        out.append(stmt)
        if isinstance(stmt, cst.If):
            _cst_suite(stmt.body, out)
            if isinstance(stmt.orelse, cst.If):  # elif: a nested If in both parsers
                _cst_statements((stmt.orelse,), out)
            elif stmt.orelse is not None:
                _cst_suite(stmt.orelse.body, out)
        elif isinstance(stmt, (cst.For, cst.While)):
            _cst_suite(stmt.body, out)
            if stmt.orelse is not None:
                _cst_suite(stmt.orelse.body, out)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            _cst_suite(stmt.body, out)
            for handler in stmt.handlers:
                _cst_suite(handler.body, out)
            if stmt.orelse is not None:
                _cst_suite(stmt.orelse.body, out)
            if stmt.finalbody is not None:
                _cst_suite(stmt.finalbody.body, out)
        elif isinstance(stmt, cst.Match):
            for case in stmt.cases:
                _cst_suite(case.body, out)
        elif isinstance(stmt, (cst.With, cst.FunctionDef, cst.ClassDef)):
            _cst_suite(stmt.body, out)


def _cst_suite(suite: cst.BaseSuite, out: list[cst.CSTNode]) -> None:
    if isinstance(suite, cst.IndentedBlock):
        _cst_statements(suite.body, out)
    else:  # `if x: a; b` keeps its small statements on the header's line
        out.extend(suite.body)  # type: ignore[attr-defined]


def _ast_statements(body: Sequence[ast.stmt], out: list[ast.stmt]) -> None:
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, ast.Match):
            for case in stmt.cases:
                _ast_statements(case.body, out)
            continue
        _ast_statements(getattr(stmt, "body", ()), out)
        for handler in getattr(stmt, "handlers", ()):
            _ast_statements(handler.body, out)
        _ast_statements(getattr(stmt, "orelse", ()), out)
        _ast_statements(getattr(stmt, "finalbody", ()), out)


def _kind(name: str) -> str:
    """An ``ast`` statement class name spelled as libcst spells it."""
    # libcst marks `async def/for/with` with a field, ast with its own classes.
    name = name.removeprefix("Async")
    return "Del" if name == "Delete" else name


def statement_pairs(module: cst.Module, tree: ast.Module) -> dict[cst.CSTNode, ast.stmt] | None:
    """Each libcst statement of ``module`` with its ``ast`` twin from ``tree``.

    None when the two statement lists differ in length or in kind anywhere: then no pairing
    can be trusted."""
    ours: list[cst.CSTNode] = []
    _cst_statements(module.body, ours)
    theirs: list[ast.stmt] = []
    _ast_statements(tree.body, theirs)
    if len(ours) != len(theirs):
        return None
    for mine, twin in zip(ours, theirs):
        if type(mine).__name__ != _kind(type(twin).__name__):
            return None
    return dict(zip(ours, theirs))


# ------------------------------------------------------------------------ anchor pieces

#: a piece of an anchor whose code is generated alone, the ``ast`` node that says where it
#: starts, and the name it must carry (for pieces paired by position in a list)
_Piece = tuple[cst.CSTNode, ast.AST, str | None]


def _header_pieces(stmt: cst.CSTNode, twin: ast.stmt,
                   pairs: dict[cst.CSTNode, ast.stmt]) -> Iterator[_Piece]:
    """The expressions of a compound statement's header (not its body), with their twins."""
    if isinstance(stmt, cst.If):
        yield stmt.test, twin.test, None  # type: ignore[attr-defined]
        # The analysis may run an elif chain as part of the first `if`.
        while isinstance(stmt.orelse, cst.If):
            stmt = stmt.orelse
            yield stmt.test, pairs[stmt].test, None  # type: ignore[attr-defined]
    elif isinstance(stmt, cst.While):
        yield stmt.test, twin.test, None  # type: ignore[attr-defined]
    elif isinstance(stmt, cst.For):
        yield stmt.target, twin.target, None  # type: ignore[attr-defined]
        yield stmt.iter, twin.iter, None  # type: ignore[attr-defined]
    elif isinstance(stmt, cst.With):
        items = twin.items  # type: ignore[attr-defined]
        if len(items) == len(stmt.items):
            for item, ast_item in zip(stmt.items, items):
                yield item.item, ast_item.context_expr, None
                if item.asname is not None and ast_item.optional_vars is not None:
                    yield item.asname.name, ast_item.optional_vars, None
    elif isinstance(stmt, cst.Match):
        yield stmt.subject, twin.subject, None  # type: ignore[attr-defined]
        for case, ast_case in zip(stmt.cases, twin.cases):  # type: ignore[attr-defined]
            if case.guard is not None and ast_case.guard is not None:
                yield case.guard, ast_case.guard, None
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        for handler, ast_handler in zip(stmt.handlers, twin.handlers):  # type: ignore[attr-defined]
            if handler.type is not None and ast_handler.type is not None:
                yield handler.type, ast_handler.type, None
    elif isinstance(stmt, cst.FunctionDef):
        yield from _decorator_pieces(stmt.decorators, twin)
        yield from _parameter_pieces(stmt.params, twin.args)  # type: ignore[attr-defined]
        if stmt.returns is not None and twin.returns is not None:  # type: ignore[attr-defined]
            yield stmt.returns.annotation, twin.returns, None  # type: ignore[attr-defined]
    elif isinstance(stmt, cst.ClassDef):
        yield from _decorator_pieces(stmt.decorators, twin)
        bases, keywords = twin.bases, twin.keywords  # type: ignore[attr-defined]
        if len(stmt.bases) == len(bases) and len(stmt.keywords) == len(keywords):
            for arg, base in zip(stmt.bases, bases):
                yield arg.value, (base.value if isinstance(base, ast.Starred) else base), None
            for arg, keyword in zip(stmt.keywords, keywords):
                yield arg.value, keyword.value, None


def _name_of(piece: cst.CSTNode) -> str | None:
    if isinstance(piece, cst.Param):
        return piece.name.value
    return getattr(piece, "value", None)


def _decorator_pieces(decorators: Sequence[cst.Decorator], twin: ast.stmt) -> Iterator[_Piece]:
    ast_decorators = twin.decorator_list  # type: ignore[attr-defined]
    if len(decorators) == len(ast_decorators):
        for decorator, ast_decorator in zip(decorators, ast_decorators):
            yield decorator.decorator, ast_decorator, None


def _parameter_pieces(params: cst.Parameters, args: ast.arguments) -> Iterator[_Piece]:
    """Each parameter's name, annotation and default, paired with ``ast.arguments``."""
    ours: list[cst.Param] = [*params.posonly_params, *params.params]
    theirs: list[ast.arg] = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(theirs) - len(args.defaults))
    defaults += args.defaults
    if isinstance(params.star_arg, cst.Param) and args.vararg is not None:
        ours.append(params.star_arg)
        theirs.append(args.vararg)
        defaults.append(None)
    ours += params.kwonly_params
    theirs += args.kwonlyargs
    defaults += args.kw_defaults
    if params.star_kwarg is not None and args.kwarg is not None:
        ours.append(params.star_kwarg)
        theirs.append(args.kwarg)
        defaults.append(None)
    if len(ours) != len(theirs) or len(theirs) != len(defaults):
        return
    for param, arg, default in zip(ours, theirs, defaults):
        if not param.star:  # CPython's `arg` of `*args` starts after the star
            yield param, arg, arg.arg
        yield param.name, arg, arg.arg
        if param.annotation is not None and arg.annotation is not None:
            yield param.annotation.annotation, arg.annotation, None
        if param.default is not None and default is not None:
            yield param.default, default, None


# ------------------------------------------------------------------------------ lookup


@dataclass(frozen=True)
class _Placed:
    """One piece of an anchor: spans as if it started at line 1, column 0, and the shift
    that moves them to where the piece really is."""

    generated: _Spans
    line_shift: int
    #: added to columns on the piece's first line (later lines carry their indentation)
    column_shift: int
    #: nodes starting before this line (parentheses before the piece) cannot be placed
    first_line: int

    @property
    def spans(self) -> dict[cst.CSTNode, Span]:
        return self.generated.spans

    def get(self, node: cst.CSTNode) -> CodeRange | None:
        span = self.shifted(self.generated.spans.get(node))
        return _code_range(span) if span is not None else None

    def shifted(self, span: Span | None) -> Span | None:
        if span is None or span[0] < self.first_line:
            return None
        line, column, end_line, end_column = span
        if line == 1:
            column += self.column_shift
        if end_line == 1:
            end_column += self.column_shift
        return (line + self.line_shift, column, end_line + self.line_shift, end_column)


class AnchorPositions:
    """Positions of the nodes of one module, found through anchors when possible.

    ``source`` is the module's text (bytes as read, or str); ``tree`` its ``ast`` when the
    caller already has one. Everything is computed on first use and kept."""

    def __init__(self, module: cst.Module, source: bytes | str,
                 tree: ast.Module | None = None) -> None:
        self.module = module
        self._source = source
        self._tree = tree
        self._pairs: dict[cst.CSTNode, ast.stmt] | None = None
        self._paired = False
        self._decoded: str | None = None
        self._lines: list[str] | None = None
        self._anchors: dict[cst.CSTNode, list[_Placed]] = {}
        self._whole: _Placed | None = None
        self._line_offsets: list[int] | None = None
        self._top: set[cst.BaseSmallStatement] | None = None

    def position(self, node: cst.CSTNode, anchor: cst.CSTNode | None = None
                 ) -> CodeRange | None:
        """Where ``node`` is (lines 1-based, columns 0-based), None if it is not in the module.

        ``anchor`` is the statement whose code holds ``node``; without one, or when the node
        is not inside it, the whole module's positions answer."""
        span = self.span(node, anchor)
        return _code_range(span) if span is not None else None

    def span(self, node: cst.CSTNode, anchor: cst.CSTNode | None = None) -> Span | None:
        """:meth:`position` as a plain tuple (start line, column, end line, end column)."""
        for placed in self._placed(anchor):
            span = placed.shifted(placed.spans.get(node))
            if span is not None:
                return span
        return None

    def code(self, node: cst.CSTNode, anchor: cst.CSTNode | None = None) -> str | None:
        """The source text of all of ``node``'s code (its parentheses and the whitespace it
        owns included: what libcst generates for it alone, up to indentation), found like
        :meth:`position`; None if it is not in the module."""
        span = self.code_span(node, anchor)
        if span is None:
            return None
        return self._text()[self._offset(span[0], span[1]):self._offset(span[2], span[3])]

    def line_text(self, line: int) -> str:
        """The text of ``line`` (1-based) of the module, without its line break."""
        lines = self._text_lines()
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    def code_span(self, node: cst.CSTNode, anchor: cst.CSTNode | None = None) -> Span | None:
        """Where the text :meth:`code` returns is (lines 1-based, columns 0-based)."""
        for placed in self._placed(anchor):
            span = placed.shifted(placed.generated.code_spans.get(node))
            if span is not None:
                return span
        return None

    def _offset(self, line: int, column: int) -> int:
        offsets = self._line_offsets
        if offsets is None:
            offsets = [0]
            offsets += (m.end() for m in _LINE_BREAK.finditer(self._text()))
            self._line_offsets = offsets
        return offsets[line - 1] + column

    def anchor_positions(self, anchor: cst.CSTNode) -> dict[cst.CSTNode, CodeRange]:
        """Positions of all the nodes inside ``anchor`` that could be placed through ``ast``."""
        out: dict[cst.CSTNode, CodeRange] = {}
        for placed in self._pieces(anchor):
            for node in placed.spans:
                where = placed.get(node)
                if where is not None:
                    out[node] = where
        return out

    def _placed(self, anchor: cst.CSTNode | None) -> Iterator[_Placed]:
        """The anchor's placed pieces, then the whole module (generated on first need)."""
        if anchor is not None:
            yield from self._pieces(anchor)
        if self._whole is None:
            self._whole = _Placed(_generate(self.module, self.module), 0, 0, 1)
        yield self._whole

    def _pieces(self, anchor: cst.CSTNode) -> list[_Placed]:
        known = self._anchors.get(anchor)
        if known is None:
            known = self._anchors[anchor] = self._place(anchor)
        return known

    def _place(self, anchor: cst.CSTNode) -> list[_Placed]:
        if isinstance(anchor, cst.BaseSmallStatement):
            generated = _generate(self.module, anchor)
            # Code that depends on its block's indentation was generated as if at the top
            # level, which is right for a top-level statement (a long literal split over lines).
            if not generated.indented or anchor in self._top_level():
                found = self._found_in_text(generated)
                if found is not None:
                    return [found]
            # Not unique: ``ast`` says where it is.
            return self._placed_through_ast(anchor, generated)
        if isinstance(anchor, cst.FunctionDef):
            found = self._parameters_found_in_text(anchor)
            if found is not None:
                return [found]
        return self._placed_through_ast(anchor)

    def _top_level(self) -> set[cst.BaseSmallStatement]:
        top = self._top
        if top is None:
            top = self._top = {small for line in self.module.body
                               if isinstance(line, cst.SimpleStatementLine) for small in line.body}
        return top

    def _parameters_found_in_text(self, function: cst.FunctionDef) -> _Placed | None:
        """A def's parameters (what traces through a function point at) placed by searching
        the source for its header up to them, ``def name(a, b=1``, when that occurs once."""
        spaces = (function.whitespace_after_def, function.whitespace_after_name,
                  function.whitespace_before_params)
        if not all(isinstance(space, cst.SimpleWhitespace) for space in spaces):
            return None
        after_def, after_name, before_params = (s.value for s in spaces)  # type: ignore
        generated = _generate(self.module, function.params)
        if generated.indented:
            return None
        header = f"def{after_def}{function.name.value}{after_name}({before_params}"
        return self._found_in_text(generated, header)

    def _found_in_text(self, generated: _Spans, before: str = "") -> _Placed | None:
        """A statement placed by searching the source for its code, which needs no ``ast``:
        code that occurs exactly once in the module can only be the statement's own.
        ``generated`` is its code generation, which must not depend on its block; ``before``
        is the source text right before it, searched with it."""
        code = before + "".join(generated.tokens)
        text = self._text()
        offset = text.find(code)
        if not code.strip() or offset < 0 or text.find(code, offset + 1) >= 0:
            return None
        offset += len(before)
        line_start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
        line = text.count("\n", 0, offset) + 1
        if "\r" in text:  # old Mac and Windows line breaks: count each break once
            line += text.count("\r", 0, offset) - text.count("\r\n", 0, offset)
        return _Placed(generated, line - 1, offset - line_start, 1)

    def _placed_through_ast(self, anchor: cst.CSTNode,
                            generated: _Spans | None = None) -> list[_Placed]:
        """The anchor's pieces placed where their ``ast`` twins are (``generated``: the small
        statement's own code generation, when already done)."""
        pairs = self._pairing()
        twin = pairs.get(anchor) if pairs is not None else None
        if twin is None or pairs is None:
            return []
        if isinstance(anchor, cst.BaseSmallStatement):
            pieces: Iterator[_Piece] = iter(((anchor, twin, None),))
        else:
            pieces = _header_pieces(anchor, twin, pairs)
        lines = self._text_lines()
        indent = ""
        if twin.lineno <= len(lines):
            line = lines[twin.lineno - 1]
            indent = line[: len(line) - len(line.lstrip(" \t\f"))]
        if generated is not None and generated.indented and indent:
            generated = None  # generated at the top level, the anchor is in a block
        placed: list[_Placed] = []
        for piece, where, name in pieces:
            if name is not None and _name_of(piece) != name:
                continue
            shifted = self._shifted(piece, where, indent, generated)
            if shifted is not None:
                placed.append(shifted)
        return placed

    def _shifted(self, piece: cst.CSTNode, where: ast.AST, indent: str,
                 generated: _Spans | None = None) -> _Placed | None:
        """The piece's spans with the shift to where ``ast`` says it starts, if it checks out."""
        if generated is None:
            generated = _generate(self.module, piece, indent)
        spans = generated.spans
        first = last = spans.get(piece)
        lpar, rpar = getattr(piece, "lpar", None), getattr(piece, "rpar", None)
        if lpar and rpar and isinstance(where, (ast.Tuple, ast.GeneratorExp)):
            # CPython counts a tuple's (or generator's) own parentheses as part of it.
            first, last = spans.get(lpar[-1]), spans.get(rpar[0])
        line = getattr(where, "lineno", None)
        if first is None or last is None or line is None:
            return None
        column = self._column(line, where.col_offset)  # type: ignore[attr-defined]
        start_line, start_column = first[0], first[1]
        if start_line == 1:
            column_shift = column - start_column
        elif column == start_column:
            # The piece starts on a continuation line, which carries its own indentation.
            column_shift = 0
        else:
            return None
        line_shift = line - start_line
        end_line = getattr(where, "end_lineno", None)
        if end_line is not None and end_line != last[2] + line_shift:
            return None  # the twins do not end on the same line: not the same code
        return _Placed(generated, line_shift, column_shift, start_line)

    def _pairing(self) -> dict[cst.CSTNode, ast.stmt] | None:
        if not self._paired:
            self._paired = True
            tree = self._tree
            if tree is None:
                tree = self._tree = self._parse()
            if tree is not None:
                self._pairs = statement_pairs(self.module, tree)
        return self._pairs

    def _parse(self) -> ast.Module | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escape sequences and the like
                return ast.parse(self._source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None

    def _text(self) -> str:
        text = self._decoded
        if text is None:
            source = self._source
            if isinstance(source, bytes):
                # libcst's encoding for a byte order mark (utf-8-sig) drops it, as it does.
                source = source.decode(self.module.encoding, errors="replace")
            text = self._decoded = source
        return text

    def _text_lines(self) -> list[str]:
        lines = self._lines
        if lines is None:
            lines = self._lines = _LINE_BREAK.split(self._text())
        return lines

    def _column(self, line: int, byte_offset: int) -> int:
        """``ast`` counts columns in UTF-8 bytes, libcst in characters."""
        lines = self._text_lines()
        if line > len(lines):
            return byte_offset
        text_line = lines[line - 1]
        if text_line.isascii():
            return byte_offset
        return len(text_line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
