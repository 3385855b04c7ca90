"""Fuzz the analyzer: it must answer every program, never crash on one, and never be slow.

Five kinds of input, each checked with the same property (:func:`check_files`, plus the
library API's ``lint_source`` on single files):

- ``runtime``: generated programs that use the dispatch runtime in every construct the
  analysis models (branches, loops, try, with, match, helpers, classes, containers, guards),
  so the data-flow engine itself runs, not only the prefilter;
- ``packages``: a generated library module and a client importing its helpers and class,
  so summaries cross modules;
- ``grammar``: hypothesmith's grammar-generated programs with a runtime import added;
- ``fixtures``: the files under ``fixtures/`` with lines deleted, duplicated, swapped,
  statements of one block swapped, bytes truncated or junk inserted;
- ``fixture-packages``: one such mutant checked together with the fixture packages it may
  import.

The test suite runs a few dozen examples of each (``tests/analyzer/test_fuzz.py``); this
script runs many more::

    python scripts/fuzz.py --examples 2000 --seconds 600

A slow program is a failure like a crash: every example must stay within a work budget per
line (:data:`WORK_PER_LINE`, counted, so the test suite checks it too), and here also
within ``--example-seconds`` (default 20). It prints a summary and exits 0, or writes the
smallest failing input it found (its modules and the error) to ``--out`` (default
``fuzz-failures/``) and exits 1. The checked code is never run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import hypothesmith
import libcst
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from dispatch_lint.analyzer.api import lint_source
from dispatch_lint.analyzer.discovery import module_name
from dispatch_lint.analyzer.engine import AnalysisResult, SourceFile, analyze
from dispatch_lint.analyzer.parse import ParseFailure, parse_module
from dispatch_lint.catalog import RULES_BY_ID
from dispatch_lint.frameworks import FRAMEWORKS

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
FUZZED_PATH = "fuzzed.py"

# ---------------------------------------------------------------------------------------------
# The property


def compiles(source: bytes) -> bool:
    """CPython's verdict, the authority on DL000."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, FUZZED_PATH, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


#: The work the analysis may do per line of the checked files (plus WORK_BASE): generated
#: programs take at most 4 steps a line (300 examples of each kind), so a program taking
#: ten times that is a slow one, reported as a failure like a crash.
WORK_PER_LINE = 40
WORK_BASE = 1_000


#: The sentences a framework model starts its findings with, beside the catalog's.
_FRAMEWORK_SENTENCES = tuple(model.message for model in FRAMEWORKS if model.message)


def check_files(sources: Mapping[str, bytes]) -> AnalysisResult:
    """Analyze ``sources`` (module name -> bytes) together and assert what a user relies on.

    The engine must return, not raise, report no internal error, stay within its work budget
    (WORK_PER_LINE), flag DL000 exactly on the files CPython refuses, give every finding a
    catalog rule with its catalog name, severity and message, put it and each step of its
    trace inside the checked files, and say the same thing, traces included, when asked again
    with the files in the opposite order.
    """
    files = [SourceFile(f"{name}.py", source, name) for name, source in sources.items()]
    result = analyze(files)
    assert result.errors == (), f"internal error: {result.errors}"
    lines = sum(source.count(b"\n") + 1 for source in sources.values())
    budget = WORK_BASE + WORK_PER_LINE * lines
    assert result.work <= budget, (
        f"slow: {result.work} steps of analysis for {lines} lines (budget {budget})"
    )

    # CPython counts "\r" and "\r\n" as line ends too; an error may point just past the end.
    line_counts = {f.path: len(f.source.splitlines()) + 1 for f in files}
    for file in files:
        syntax = [d for d in result.diagnostics if d.rule == "DL000" and d.path == file.path]
        if compiles(file.source):
            assert syntax == [], f"DL000 on a file CPython compiles: {syntax}"
        else:
            assert len(syntax) == 1, f"want one DL000 on a file CPython refuses, got {syntax}"
    for diagnostic in result.diagnostics:
        spec = RULES_BY_ID.get(diagnostic.rule)
        assert spec is not None, f"unknown rule {diagnostic.rule}"
        assert (diagnostic.name, diagnostic.severity) == (spec.name, spec.severity), diagnostic
        # the catalog's sentence, or a framework's own (DL003 on JAX tracers)
        assert diagnostic.message.startswith((spec.message, *_FRAMEWORK_SENTENCES)), (
            diagnostic.message)
        assert diagnostic.path in line_counts, diagnostic
        last = line_counts[diagnostic.path]
        assert 1 <= diagnostic.line <= diagnostic.end_line <= last, diagnostic
        assert diagnostic.column >= 1 and diagnostic.end_column >= 1, diagnostic
        for step in diagnostic.trace:
            assert step.path in line_counts, step
            assert 1 <= step.line <= line_counts[step.path] and step.column >= 1, step

    again = analyze(files[::-1])
    assert [(d, d.trace) for d in again.diagnostics] == [
        (d, d.trace) for d in result.diagnostics
    ], "two runs on the same files disagree"
    return result


def check_source(source: bytes) -> AnalysisResult:
    """:func:`check_files` on one file, then the library API's ``lint_source`` on it, which
    adds selection and suppression comments (tokenizing broken files too): it may only drop
    findings, never raise."""
    result = check_files({FUZZED_PATH.removesuffix(".py"): source})
    through_api = lint_source(source, path=FUZZED_PATH)
    assert set(through_api) <= set(result.diagnostics), "lint_source invented a finding"
    return result


# ---------------------------------------------------------------------------------------------
# Generated programs that use the runtime

IMPORTS = (
    "import dispatch_lint.runtime as dispatch\nfrom dispatch_lint.runtime import guards\n",
    "from dispatch_lint import runtime as dispatch\nfrom dispatch_lint.runtime import guards\n",
    "from dispatch_lint import runtime as dispatch\nimport dispatch_lint.runtime.guards as guards\n",
)
TENSORS = ("t0", "t1", "t2", "t3")
DEVICES = ("d0", "d1")
HELPERS = ("helper0", "helper1")
LIBRARY = "fuzzlib"
DEVICE_STRINGS = ("numpy", "numba", "capture", "autodiff:numpy", "autodiff:capture", "cuda")


@dataclass
class ProgramWriter:
    """Draws one program, statement by statement, bounded in depth and size."""

    draw: Callable[..., object]
    lines: list[str] = field(default_factory=list)
    budget: int = 40

    def pick(self, options: tuple[str, ...] | list[str]) -> str:
        return self.draw(st.sampled_from(options))  # type: ignore[return-value]

    def fill(self, template: str, depth: int) -> str:
        """Fill a template's fields, drawing only the parts the template uses (drawing them all
        up front grows exponentially with depth)."""
        makers: dict[str, Callable[[], str]] = {
            "d": lambda: self.device(depth + 1),
            "a": self.device_argument,
            "i": lambda: self.tensor(depth + 1),
            "o": lambda: self.tensor(depth + 1),
            "n": lambda: self.pick(TENSORS),
            "c": self.condition,
            "h": lambda: self.pick(HELPERS),
            "s": lambda: self.pick(DEVICE_STRINGS),
            "v": lambda: self.pick(DEVICES),
        }
        fields = {key: make() for key, make in makers.items() if "{" + key + "}" in template}
        return template.format(**fields)

    def device(self, depth: int = 0) -> str:
        templates = [
            "dispatch.NumPy()",
            "dispatch.Numba()",
            "dispatch.Capture()",
            'dispatch.device("{s}")',
            "{v}",
            "{n}.device",
        ]
        if depth < 2:
            templates.append("dispatch.Autodiff({d})")
        return self.fill(self.pick(templates), depth)

    def device_argument(self) -> str:
        return self.fill(self.pick(["{d}", '"{s}"']), 0)

    def tensor(self, depth: int = 0) -> str:
        leaves = [
            "{n}",
            "{n}",
            "dispatch.tensor([1.0, 2.0], device={a})",
            "dispatch.zeros((2,), device={a})",
            "dispatch.ones((2, 2), device={d})",
            "dispatch.rand((2,), seed=0, device={d})",
            "dispatch.placeholder((2,))",
            'dispatch.placeholder((2,), device={d}, name="x")',
            "self.weight",
        ]
        composites = [
            "{i} + {o}",
            "({i} * 2.0)",
            "({i} @ {o})",
            "-{i}",
            "dispatch.exp({i})",
            "{i}.sum(axis=0)",
            "{i}.T",
            "{i}.to_device({a})",
            "{i}.inner()",
            "{i}.require_grad()",
            "dispatch.Autodiff({d}).wrap({i})",
            "dispatch.replay([{i}], {{}})",
            'dispatch.export({i}).run({{"x": [1.0, 2.0]}})',
            "guards.ensure_not_capture({i})",
            "{h}({i}, {o})",
            "Model({d}).forward({i})",
            "[{i}, {o}][0]",
            '{{"k": {i}}}["k"]',
            "(lambda v: v * 2.0)({i})",
            "({n} := {i})",
            "({i} if {c} else {o})",
            "{i}.grad({o}.backward())",
        ]
        return self.fill(self.pick(leaves if depth >= 2 else leaves + composites), depth)

    def condition(self) -> str:
        name = self.pick(TENSORS)
        return self.pick(
            [
                f"dispatch.is_capture({name})",
                f"{name}.is_capture",
                f"not guards.is_capture({name})",
                f"{name} is None",
                f"{name} > 0",
                "flag",
                "False",
            ]
        )

    def sink(self) -> str:
        tensor = self.tensor(1)
        name = self.pick(TENSORS)
        return self.pick(
            [
                f"{tensor}.backward()",
                f"{tensor}.numpy()",
                f"{tensor}.item()",
                f"{tensor}.tolist()",
                f"float({tensor})",
                f"bool({tensor})",
                # f-strings take a bare name: before 3.12 they cannot nest the same quotes.
                f'print(f"{{{name}:.3f}}")',
                f'print(f"{{{name}}}", repr({tensor}))',
                f"np.asarray({tensor})",
                f"format({tensor}, '.2f')",
                f"{tensor}.to_device({self.device_argument()})",
            ]
        )

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)
        self.budget -= 1

    def block(self, indent: int, depth: int, most: int = 4) -> None:
        """At least one statement at ``indent``, sometimes ending the path (return or raise)."""
        for _ in range(self.draw(st.integers(1, most))):
            self.statement(indent, depth)
        ending = self.pick(["", "", "", "return", "raise"])
        if ending == "return":
            self.emit(indent, f"return {self.tensor(1)}")
        elif ending == "raise":
            self.emit(indent, f"raise ValueError({self.pick(TENSORS)!r})")

    def statement(self, indent: int, depth: int) -> None:
        simple = [
            "assign",
            "assign",
            "device",
            "sink",
            "sink",
            "unpack",
            "augment",
            "assert",
            "comprehension",
            "pass",
        ]
        compound = ["if", "if_false", "for", "while", "try", "with", "match"]
        kinds = simple + (compound if depth < 3 and self.budget > 0 else [])
        kind = self.pick(kinds)
        t = self.pick(TENSORS)
        if kind == "assign":
            self.emit(indent, f"{t} = {self.tensor()}")
        elif kind == "device":
            self.emit(indent, f"{self.pick(DEVICES)} = {self.device()}")
        elif kind == "sink":
            self.emit(indent, self.sink())
        elif kind == "unpack":
            self.emit(indent, f"{t}, {self.pick(TENSORS)} = {self.tensor(1)}, {self.tensor(1)}")
        elif kind == "augment":
            self.emit(indent, f"{t} {self.pick(['+=', '*=', '-='])} {self.tensor(1)}")
        elif kind == "assert":
            self.emit(indent, f"assert not {t}.is_capture")
        elif kind == "comprehension":
            # depth 2: leaves only, since a walrus in a comprehension's iterable is refused.
            self.emit(indent, f"grads = [x.backward() for x in [{self.tensor(2)}, {t}]]")
        elif kind == "pass":
            self.emit(indent, "pass")
        elif kind == "if":
            self.emit(indent, f"if {self.condition()}:")
            self.block(indent + 1, depth + 1)
            if self.draw(st.booleans()):
                self.emit(indent, "else:")
                self.block(indent + 1, depth + 1)
        elif kind == "if_false":
            self.emit(indent, self.pick(["if False:", "if 0:"]))
            self.block(indent + 1, depth + 1)
        elif kind == "for":
            self.emit(indent, f"for {t} in [{self.tensor(1)}, {self.tensor(1)}]:")
            self.block(indent + 1, depth + 1)
        elif kind == "while":
            self.emit(indent, f"while {self.condition()}:")
            self.block(indent + 1, depth + 1)
            self.emit(indent + 1, "break")
        elif kind == "try":
            self.emit(indent, "try:")
            self.block(indent + 1, depth + 1)
            self.emit(indent, "except dispatch.errors.DispatchError as exc:")
            self.block(indent + 1, depth + 1)
            self.emit(indent, "finally:")
            self.block(indent + 1, depth + 1)
        elif kind == "with":
            self.emit(indent, self.pick(["with guards.training():", 'with guards.mode("off"):']))
            self.block(indent + 1, depth + 1)
        elif kind == "match":
            self.emit(indent, f"match {t}:")
            self.emit(indent + 1, "case dispatch.Tensor(is_capture=True):")
            self.block(indent + 2, depth + 1)
            self.emit(indent + 1, "case _:")
            self.block(indent + 2, depth + 1)

    def function(self, name: str, decorated: bool) -> None:
        if decorated:
            self.emit(0, "@guards.no_capture")
        self.emit(0, f"def {name}(t0, t1=None):")
        self.block(1, 1)
        self.emit(1, f"return {self.tensor(1)}")

    def model_class(self) -> None:
        self.emit(0, "class Model:")
        self.emit(1, "def __init__(self, device):")
        self.emit(2, f"self.weight = dispatch.zeros((2,), device={self.device()})")
        self.emit(1, "def forward(self, t0):")
        self.block(2, 1)
        self.emit(2, f"return {self.tensor(1)}")

    def program(self, role: str = "script") -> str:
        """One module. ``script``: helpers, maybe a class, and ``main``; ``library``: helpers
        and a class; ``client``: ``main`` over the helpers it imports from the library."""
        header = self.pick(IMPORTS) + "import numpy as np\n\nflag = True"
        if role == "client":
            header += f"\nfrom {LIBRARY} import Model, helper0, helper1"
        self.lines.append(header)
        if role != "client":
            for name in HELPERS:
                self.function(name, decorated=self.draw(st.booleans()))
            if role == "library" or self.draw(st.booleans()):
                self.model_class()
        if role != "library":
            self.emit(0, "def main():")
            if self.draw(st.booleans()):
                self.emit(1, "global t3")  # first, so that it precedes every use of t3
            self.block(1, 0, most=8)
            if self.draw(st.booleans()):
                self.emit(0, "main()")
        return "\n".join(self.lines) + "\n"


@st.composite
def runtime_programs(draw: Callable[..., object]) -> bytes:
    """Programs that use the dispatch runtime in every construct the analysis models."""
    return ProgramWriter(draw).program().encode()


@st.composite
def runtime_packages(draw: Callable[..., object]) -> dict[str, bytes]:
    """Two modules, a library and a client importing its helpers and class: the analysis
    must carry summaries across modules."""
    return {
        LIBRARY: ProgramWriter(draw).program("library").encode(),
        "fuzzmain": ProgramWriter(draw).program("client").encode(),
    }


def grammar_programs() -> st.SearchStrategy[bytes]:
    """hypothesmith's grammar-generated programs, with a runtime import so no prefilter skips
    them (appended: a prefix could move a ``from __future__`` import off the first line)."""
    return hypothesmith.from_grammar().map(
        lambda code: (code + "\nfrom dispatch_lint import runtime as dispatch\n").encode()
    )


# ---------------------------------------------------------------------------------------------
# Mutated fixtures

JUNK = (
    b"(",
    b")",
    b":",
    b"\t",
    b"\x00",
    b"\xff\xfe",
    b"yield",
    b"return",
    b"else:",
    b"    ",
    b"\\",
    b"'''",
    b"\r",
    b"\xef\xbb\xbf",
    b"# -*- coding: latin-1 -*-\n",
    b"lambda: ",
)


def fixture_sources() -> list[Path]:
    """The fixture programs, in a stable order (none yet while the fixtures are written)."""
    return sorted(FIXTURES.rglob("*.py")) if FIXTURES.is_dir() else []


def swap_statements(source: bytes, rng: random.Random) -> bytes:
    """Swap two statements of one block (module or indented body), keeping the rest intact."""
    if not compiles(source):  # a mutant of a mutant may no longer parse; keep it as it is
        return source
    try:
        # the analyzer's own parse: it also takes what CPython compiles and libcst's decoding
        # refuses (bytes invalid in the file's encoding inside a comment)
        module = parse_module(source)
    except ParseFailure:  # valid Python that libcst does not know yet
        return source

    class Collect(libcst.CSTVisitor):
        def __init__(self) -> None:
            self.blocks: list[libcst.CSTNode] = []

        def visit_Module(self, node: libcst.Module) -> None:
            if len(node.body) >= 2:
                self.blocks.append(node)

        def visit_IndentedBlock(self, node: libcst.IndentedBlock) -> None:
            if len(node.body) >= 2:
                self.blocks.append(node)

    collect = Collect()
    module.visit(collect)
    if not collect.blocks:
        return source
    target = rng.choice(collect.blocks)
    body = list(target.body)  # type: ignore[attr-defined]
    i, j = rng.sample(range(len(body)), 2)
    body[i], body[j] = body[j], body[i]

    class Swap(libcst.CSTTransformer):
        def on_leave(self, original: libcst.CSTNode, updated: libcst.CSTNode) -> libcst.CSTNode:
            if original is target:
                return updated.with_changes(body=tuple(body))
            return updated

    return module.visit(Swap()).bytes


def mutate(source: bytes, seed: int, count: int) -> bytes:
    """Apply ``count`` random line- and statement-level mutations to ``source``."""
    rng = random.Random(seed)
    for _ in range(count):
        lines = source.splitlines(keepends=True) or [b""]
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        kind = rng.choice(
            ("delete", "duplicate", "swap_lines", "swap_statements", "truncate", "junk", "dedent")
        )
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(j, lines[i])
        elif kind == "swap_lines":
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "dedent":
            lines[i] = lines[i].lstrip(b" \t")
        elif kind == "junk":
            line = lines[i]
            at = rng.randrange(len(line) + 1)
            lines[i] = line[:at] + rng.choice(JUNK) + line[at:]
        source = b"".join(lines)
        if kind == "truncate":
            source = source[: rng.randrange(len(source) + 1)]
        elif kind == "swap_statements":
            source = swap_statements(source, rng)
    return source


def fixture_mutants(fixture: Path) -> st.SearchStrategy[bytes]:
    original = fixture.read_bytes()
    return st.builds(mutate, st.just(original), st.integers(0, 2**32 - 1), st.integers(1, 3))


def all_fixture_mutants() -> st.SearchStrategy[bytes]:
    fixtures = fixture_sources()
    if not fixtures:
        return st.nothing()
    return st.one_of([fixture_mutants(path) for path in fixtures])


def fixture_module(path: Path) -> str:
    """The dotted module name of a fixture file, from its import root (the first folder up
    without ``__init__.py``: ``fixtures/``, or ``fixtures/jax/`` for the JAX fixtures)."""
    return module_name(path.resolve()) or path.stem


@st.composite
def fixture_package_mutants(draw: Callable[..., object]) -> dict[str, bytes]:
    """One fixture file mutated, checked together with every fixture package (the modules the
    fixtures import), so that a broken module is also met across imports and summaries."""
    fixtures = fixture_sources()
    packaged = [path for path in fixtures if (path.parent / "__init__.py").is_file()]
    chosen: Path = draw(st.sampled_from(fixtures))  # type: ignore[assignment]
    modules = {fixture_module(path): path.read_bytes() for path in packaged}
    modules[fixture_module(chosen)] = draw(fixture_mutants(chosen))  # type: ignore[assignment]
    return modules


# ---------------------------------------------------------------------------------------------
# The long run


def as_module(source: bytes) -> dict[str, bytes]:
    return {FUZZED_PATH.removesuffix(".py"): source}


def check_modules(modules: Mapping[str, bytes]) -> AnalysisResult:
    """One file also goes through ``lint_source``; several are analysed together."""
    if len(modules) == 1:
        return check_source(next(iter(modules.values())))
    return check_files(modules)


#: Each kind of input, as modules (name -> bytes) to check together.
KINDS: dict[str, Callable[[], st.SearchStrategy[dict[str, bytes]]]] = {
    "runtime": lambda: runtime_programs().map(as_module),
    "packages": runtime_packages,
    "grammar": lambda: grammar_programs().map(as_module),
    "fixtures": lambda: all_fixture_mutants().map(as_module),
    "fixture-packages": fixture_package_mutants,
}


@dataclass
class KindStats:
    examples: int = 0
    with_findings: int = 0
    rules: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


class FoundFailure(Exception):
    def __init__(self, kind: str, modules: Mapping[str, bytes], error: BaseException) -> None:
        super().__init__(f"{kind}: {type(error).__name__}: {error}")
        self.kind, self.modules, self.error = kind, modules, error


def run_batch(
    kind: str, strategy: st.SearchStrategy[dict[str, bytes]], examples: int, stats: KindStats,
    example_seconds: float | None = None,
) -> None:
    """Run ``examples`` fresh examples; raise FoundFailure with the shrunk input on failure.
    An example taking more than ``example_seconds`` fails too (hypothesis's deadline)."""
    failing: list[tuple[dict[str, bytes], BaseException]] = []

    @settings(
        max_examples=examples,
        deadline=None if example_seconds is None else timedelta(seconds=example_seconds),
        database=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def one(modules: dict[str, bytes]) -> None:
        try:
            result = check_modules(modules)
        except BaseException as error:  # keep the last (smallest, after shrinking) input
            failing.append((modules, error))
            raise
        stats.examples += 1
        findings = [d.rule for d in result.diagnostics]
        stats.with_findings += bool(findings)
        stats.rules.update(findings)

    try:
        one()
    except BaseException as error:
        if not failing:
            raise
        modules, cause = failing[-1]
        raise FoundFailure(kind, modules, cause) from error


def write_failure(out: Path, failure: FoundFailure) -> Path:
    """Write the failing modules and the error into ``out/fuzz-failure-<kind>/``."""
    folder = out / f"fuzz-failure-{failure.kind}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in failure.modules.items():
        (folder / f"{name}.py").write_bytes(source)
    details = "".join(traceback.format_exception(failure.error))
    (folder / "error.txt").write_text(details, encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500, help="examples per kind")
    parser.add_argument("--seconds", type=float, default=300.0, help="time budget in total")
    parser.add_argument("--kind", choices=[*KINDS, "all"], default="all")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    parser.add_argument(
        "--example-seconds", type=float, default=20.0,
        help="an example analysed for longer fails (besides the work budget per line)",
    )
    parser.add_argument("--batch", type=int, default=25, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    kinds = list(KINDS) if args.kind == "all" else [args.kind]
    if not fixture_sources():
        print(f"no fixtures under {FIXTURES}: skipping the fixture mutants")
        kinds = [kind for kind in kinds if not kind.startswith("fixture")]
    stats = {kind: KindStats() for kind in kinds}
    strategies = {kind: KINDS[kind]() for kind in kinds}
    deadline = time.monotonic() + args.seconds
    active = list(kinds)
    try:
        # Round-robin in small batches so each kind gets its share of the time budget.
        while active and time.monotonic() < deadline:
            for kind in list(active):
                left = args.examples - stats[kind].examples
                if left <= 0 or time.monotonic() >= deadline:
                    active.remove(kind)
                    continue
                started = time.monotonic()
                run_batch(kind, strategies[kind], min(args.batch, left), stats[kind],
                          args.example_seconds)
                stats[kind].seconds += time.monotonic() - started
    except FoundFailure as failure:
        path = write_failure(args.out, failure)
        print(f"FAILURE {failure}\nsmallest failing input written to {path}/", file=sys.stderr)
        return 1

    for kind, kind_stats in stats.items():
        top = ", ".join(f"{rule} x{n}" for rule, n in sorted(kind_stats.rules.items()))
        print(
            f"{kind:16} {kind_stats.examples:6} programs, {kind_stats.with_findings:5} with "
            f"findings, {kind_stats.seconds:7.1f} s  [{top or 'no findings'}]"
        )
    print("ok: the analyzer answered every program")
    return 0


if __name__ == "__main__":
    sys.exit(main())
