"""Positions through anchors are exactly the positions of a whole-module code generation.

The reference everywhere is ``node_positions`` (libcst's position-recording code generation
over the whole module, what the diagnostics used before anchors): every node an anchor can
place must sit where the reference puts it, and whatever an anchor cannot place must still
get the reference's answer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import hypothesmith
import libcst as cst
import pytest
import rich
from hypothesis import HealthCheck, given, settings
from libcst.metadata import MetadataWrapper, PositionProvider

from dispatch_lint.analyzer.positions import (
    AnchorPositions,
    node_positions,
    statement_pairs,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures").rglob("*.py"))
RICH = sorted(Path(rich.__file__).parent.rglob("*.py"))


def assert_anchors_agree(source: bytes | str) -> int:
    """Check every anchor of ``source`` against the reference; return how many nodes it placed."""
    module = cst.parse_module(source)
    reference = node_positions(module)
    positions = AnchorPositions(module, source)
    pairs = statement_pairs(module, ast.parse(source))
    assert pairs is not None, "libcst and ast statements did not pair up"
    placed_count = 0
    for anchor in pairs:
        placed = positions.anchor_positions(anchor)
        if isinstance(anchor, cst.BaseSmallStatement):
            # A small statement is always placed as a whole, with everything inside it.
            assert anchor in placed
        for node, where in placed.items():
            assert where == reference[node], (type(anchor).__name__, type(node).__name__)
        placed_count += len(placed)
    return placed_count


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_fixture_node_sits_where_whole_module_codegen_puts_it(path: Path) -> None:
    source = path.read_bytes()
    assert_anchors_agree(source)
    assert_anchors_agree(source + b"\n" + source)  # every anchor through ast


@pytest.mark.parametrize("path", [*FIXTURES[::10], *RICH[::10]], ids=lambda p: p.name)
def test_the_whole_module_positions_are_libcsts_own(path: Path) -> None:
    module = cst.parse_module(path.read_bytes())
    libcsts = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert node_positions(module) == dict(libcsts)


def test_every_node_of_half_the_rich_package_sits_where_whole_module_codegen_puts_it() -> None:
    # Real code with continuation lines, decorators, unicode, `del`, `async`, nested
    # functions: every other module of rich (about half its 500,000 nodes; all of them took
    # 20 s of the suite's budget).
    assert sum(assert_anchors_agree(path.read_bytes()) for path in RICH[::2]) > 200_000


TRICKY = {
    "continuation lines in an indented block": (
        "def f():\n"
        "    inputs = (\n"
        "        g(1),\n"
        "        h(2),\n"
        "    )\n"
        "    total = a + \\\n"
        "        b\n"
    ),
    "a parenthesised tuple and generator in headers": (
        "for x in (1.0, 2.0):\n"
        "    pass\n"
        "for y in ((1, 2)):\n"
        "    pass\n"
        "total = sum((v for v in x))\n"
    ),
    "a condition that starts on a continuation line": (
        "class A:\n"
        "    def f(self):\n"
        "        if (\n"
        "            self.a and\n"
        "            self.b\n"
        "        ):\n"
        "            return 1\n"
        "        elif (self.c):\n"
        "            return 2\n"
    ),
    "non-ascii text before the node on its line": 'label = "é→ü"; y = f(x)\n',
    "headers of every compound statement": (
        "import contextlib\n"
        "@decorate(1)\n"
        "@other\n"
        "async def f(a: int, /, b=g(2), *args: str, c: 'C' = h(), **kw) -> R:\n"
        "    async with open(p) as (fh), ctx() as fw:\n"
        "        async for q in fh:\n"
        "            del q\n"
        "    while cond(a):\n"
        "        break\n"
        "    else:\n"
        "        pass\n"
        "    try:\n"
        "        pass\n"
        "    except (KeyError, ValueError) as exc:\n"
        "        raise\n"
        "    finally:\n"
        "        pass\n"
        "    match command.split():\n"
        "        case [x] if x > 0:\n"
        "            pass\n"
        "        case _:\n"
        "            pass\n"
        "class B(Base, *mixins, metaclass=Meta): x = 1; y = 2\n"
        "if a: b = 1\n"
        "elif c: d = 2\n"
        "else: e = 3\n"
    ),
    "windows line endings": "def f():\r\n    x = (\r\n        1)\r\n    return g(x)\r\n",
    "def headers found in the text, repeated in it, or split over lines": (
        "def f(a, b=(1,\n"
        "            2)):\n"
        "    return 'def g( x ,y'\n"
        "def g( x ,y):\n"
        "    pass\n"
        "class C:\n"
        "    def m(\n"
        "        self,\n"
        "        x,\n"
        "    ):\n"
        "        pass\n"
        "    async def n(self, *, k: 'int' = 3) -> None: pass\n"
        "def \\\n"
        "  h(a): pass\n"
    ),
    "tab indentation": "def f():\n\tif x:\n\t\ty = (1,\n\t\t     2)\n",
}


@pytest.mark.parametrize("source", TRICKY.values(), ids=TRICKY.keys())
def test_tricky_layouts_are_placed_exactly(source: str) -> None:
    assert assert_anchors_agree(source) > 0
    # Written twice, no statement's code is unique: every anchor is placed through ast.
    assert assert_anchors_agree(source + source) > 0


def test_a_declared_encoding_and_a_byte_order_mark_are_honoured() -> None:
    code = "# -*- coding: latin-1 -*-\nname = 'façade'; x = f(y)\n"
    assert assert_anchors_agree(code.encode("latin-1")) > 0
    assert assert_anchors_agree((code + code).encode("latin-1")) > 0
    marked = b"\xef\xbb\xbfab = 1; x = f(y)\n"
    assert assert_anchors_agree(marked) > 0
    assert assert_anchors_agree(marked + marked[3:]) > 0


def _call_of(module: cst.Module, name: str, which: int | None = None) -> cst.Call:
    found = [
        node for node in _walk(module)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name)
        and node.func.value == name
    ]
    if which is None:
        assert len(found) == 1
        which = 0
    return found[which]


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    out = [node]
    for child in node.children:
        out.extend(_walk(child))
    return out


@pytest.mark.parametrize("padding", ["", "def g():\n    return helper(\n        x,\n    )\n"])
def test_the_position_of_a_call_through_its_statement(padding: str) -> None:
    # With the padding, the statement's code is not unique and ast places it.
    source = "def f():\n    x = 1\n    return helper(\n        x,\n    )\n" + padding
    module = cst.parse_module(source)
    call = _call_of(module, "helper", 0)
    returned = module.body[0].body.body[1].body[0]  # type: ignore[attr-defined]
    where = AnchorPositions(module, source).position(call, returned)
    assert where is not None
    assert (where.start.line, where.start.column, where.end.line, where.end.column) == (3, 11, 5, 5)


def test_a_node_outside_its_anchor_falls_back_to_the_whole_module() -> None:
    source = "a = first(1)\nb = second(2)\n"
    module = cst.parse_module(source)
    wrong_anchor = module.body[0].body[0]  # type: ignore[attr-defined]
    call = _call_of(module, "second")
    positions = AnchorPositions(module, source)
    assert call not in positions.anchor_positions(wrong_anchor)
    assert positions.position(call, wrong_anchor) == node_positions(module)[call]


def test_statements_that_do_not_pair_up_fall_back_to_the_whole_module() -> None:
    # `x = f(1)` twice: its code is not unique, so only ast could place the inner one.
    source = "x = f(1)\nif x:\n    x = f(1)\n"
    module = cst.parse_module(source)
    # An ast of other code: the statement lists differ, so no pairing may be trusted.
    other = ast.parse("x = f(1)\nwhile x:\n    x = f(1)\n")
    assert statement_pairs(module, other) is None
    positions = AnchorPositions(module, source, tree=other)
    anchor = module.body[1].body.body[0].body[0]  # type: ignore[attr-defined]
    call = _call_of(module, "f", 1)
    assert positions.anchor_positions(anchor) == {}
    where = positions.position(call, anchor)
    assert where == node_positions(module)[call]
    assert (where.start.line, where.start.column) == (3, 8)  # type: ignore[union-attr]


def test_a_statement_whose_code_is_unique_needs_no_ast() -> None:
    source = "x = f(1)\nif x:\n    y = g(2)\n"
    module = cst.parse_module(source)
    # The foreign ast is never consulted: the statement's code occurs once in the source.
    positions = AnchorPositions(module, source, tree=ast.parse("pass\n"))
    anchor = module.body[1].body.body[0].body[0]  # type: ignore[attr-defined]
    call = _call_of(module, "g")
    assert positions.anchor_positions(anchor)[call] == node_positions(module)[call]


def test_a_node_without_anchor_and_a_foreign_node() -> None:
    source = "x = f(1)\n"
    module = cst.parse_module(source)
    positions = AnchorPositions(module, source)
    call = _call_of(module, "f")
    assert positions.position(call) == node_positions(module)[call]
    assert positions.position(cst.Name("elsewhere")) is None


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hypothesmith.from_grammar())
def test_generated_programs_are_placed_exactly(source: str) -> None:
    try:
        cst.parse_module(source)
        compile(source, "<generated>", "exec")
    except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError):
        return  # outside what both parsers accept: the engine never positions such code
    assert_anchors_agree(source)
    assert_anchors_agree(source + "\n" + source)


def assert_code_agrees(source: bytes | str) -> None:
    """The text of every expression and statement an anchor holds is libcst's code for it
    (up to whitespace, which messages squeeze)."""
    module = cst.parse_module(source)
    positions = AnchorPositions(module, source)
    pairs = statement_pairs(module, ast.parse(source))
    assert pairs is not None
    for anchor in pairs:
        for node in positions.anchor_positions(anchor):
            if isinstance(node, (cst.BaseExpression, cst.BaseSmallStatement, cst.Arg)):
                text = positions.code(node, anchor)
                assert text is not None
                assert text.split() == cst.Module(body=()).code_for_node(node).split()


@pytest.mark.parametrize("path", FIXTURES[::3], ids=lambda p: str(p.relative_to(ROOT)))
def test_the_code_of_a_node_is_its_source_text(path: Path) -> None:
    source = path.read_bytes()
    assert_code_agrees(source)
    assert_code_agrees(source + b"\n" + source)  # every anchor through ast


@pytest.mark.parametrize("source", TRICKY.values(), ids=TRICKY.keys())
def test_the_code_of_a_node_is_its_source_text_in_tricky_layouts(source: str) -> None:
    assert_code_agrees(source)
    assert_code_agrees(source + source)


def test_the_code_of_a_node_without_anchor_and_of_a_foreign_node() -> None:
    source = "x = (\n    f(1,  2)  )\n"
    module = cst.parse_module(source)
    positions = AnchorPositions(module, source)
    assert positions.code(_call_of(module, "f")) == "(\n    f(1,  2)  )"
    assert positions.code(cst.Name("elsewhere")) is None
