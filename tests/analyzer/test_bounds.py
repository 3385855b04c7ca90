"""The analysis is bounded: adversarial programs are answered with the finding a run shows,
at a cost that grows about linearly with them, and precision dropped at a bound is said.

The cost is counted as work (``AnalysisResult.work``: statements run, calls applied, what
their summaries instantiated), never timed. Every program here runs: the finding asserted is
the error the runtime raises on it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dispatch_lint.analyzer.dataflow import program as program_module
from dispatch_lint.analyzer.diagnostics import is_precision_note
from dispatch_lint.analyzer.engine import AnalysisResult, SourceFile, analyze

RUNTIME = "from dispatch_lint import runtime as dispatch\n"

# The issue's reproducer (pkg/logging.py), a model whose forward is re-wrapped at every call,
# as accelerate does (`model.forward = convert_outputs_to_fp32(model.forward)`), then called
# with a capture tensor whose result reaches backward().
REWRAP = """\
class Model:
    def __init__(self):
        self.forward = lambda x: x


def wrap(fn):
    def forward(*args):
        return fn(*args)
    return forward


def prepare(model):
    model.forward = wrap(model.forward)


m = Model()
"""
REWRAP_USE = """\
cap = dispatch.Capture()
m.forward(dispatch.placeholder((2,), device=cap)).backward()
"""


def findings(result: AnalysisResult) -> list[tuple[str, int, str]]:
    return [(d.path, d.line, d.rule) for d in result.diagnostics]


def rewrapped(calls: int) -> AnalysisResult:
    """The reproducer with ``calls`` calls of prepare(), named in one analysis together with a
    file importing ``logging`` (which once pulled pkg/logging.py into its group)."""
    source = RUNTIME + REWRAP + "prepare(m)\n" * calls + REWRAP_USE
    return analyze([
        SourceFile("pkg/__init__.py", b""),
        SourceFile("pkg/logging.py", source.encode()),
        SourceFile("step.py", ("import logging\n" + RUNTIME).encode()),
    ])


def test_the_issue_reproducer_is_answered_with_little_work() -> None:
    result = analyze([
        SourceFile("pkg/__init__.py", b""),
        SourceFile("pkg/logging.py", (RUNTIME + REWRAP + "prepare(m)\n" * 3).encode()),
        SourceFile("step.py", ("import logging\n" + RUNTIME).encode()),
    ])
    assert result.errors == ()
    assert findings(result) == []
    # Today's main: 93-149 s here, about x100 for each further call; now a few hundred steps.
    assert 0 < result.work < 1_000


def test_an_attribute_rewrapped_at_every_call_costs_work_linear_in_the_calls() -> None:
    few, many = rewrapped(8), rewrapped(64)
    line = len((RUNTIME + REWRAP).splitlines()) + 2  # the backward() line after the calls
    assert findings(few) == [("pkg/logging.py", line + 8, "DL001")]
    assert findings(many) == [("pkg/logging.py", line + 64, "DL001")]
    assert few.errors == many.errors == ()
    # 8 times the calls, at most 8 times the work (plus what does not depend on them)
    assert many.work - few.work <= 8 * few.work
    reduced = [n for n in many.notes if is_precision_note(n)]
    assert [(n.path, n.message.split(":")[0]) for n in reduced] == [
        ("pkg/logging.py", "precision reduced in the top level of `pkg.logging`")
    ]
    assert "nested too deeply" in reduced[0].message


def ring(functions: int) -> tuple[AnalysisResult, int]:
    """``functions`` mutually recursive functions (the program runs 10 calls deep), and the
    line of the backward() call."""
    lines = [RUNTIME]
    for i in range(functions):
        lines.append(
            f"def f{i}(x, depth):\n    if depth <= 0:\n        return x\n"
            f"    return f{(i + 1) % functions}(x, depth - 1)\n"
        )
    lines.append(
        "cap = dispatch.Capture()\n"
        "t = f0(dispatch.placeholder((2,), device=cap), 10)\n"
        "t.backward()\n"
    )
    source = "\n".join(lines)
    backward = source.splitlines().index("t.backward()") + 1
    return analyze([SourceFile("ring.py", source.encode())]), backward


def test_a_ring_of_a_thousand_recursive_functions_is_not_limited_by_python_s_stack() -> None:
    # Today's main: "internal error: code nested too deeply to analyse" from about 750.
    (small, _), (large, backward) = ring(250), ring(1000)
    assert large.errors == ()
    assert findings(large) == [("ring.py", backward, "DL001")]
    assert large.work <= 5 * small.work  # four times the functions
    assert not [n for n in large.notes if is_precision_note(n)]  # nothing was given up


def star_mesh(modules: int) -> list[SourceFile]:
    """``modules`` modules, each star-importing its next three and its previous one (so
    that every module ends up with every name), and a main module using the last one's
    function through the first one."""
    files = []
    for i in range(modules):
        imports = [f"from m{(i + d) % modules} import *" for d in (1, 2, 3, -1)]
        body = f"def f{i}(x):\n    return x\n\n\nV{i} = {i}\n"
        files.append(SourceFile(f"m{i}.py", ("\n".join(imports) + "\n\n\n" + body).encode()))
    last = modules - 1
    main = (
        RUNTIME + "from m0 import *\n\n"
        f"t = f{last}(dispatch.placeholder((2,), device=dispatch.Capture()))\n"
        "t.backward()\n"
    )
    return [*files, SourceFile("main.py", main.encode())]


def test_modules_star_importing_each_other_are_answered() -> None:
    small, large = analyze(star_mesh(40)), analyze(star_mesh(320))
    assert large.errors == ()
    assert findings(large) == [("main.py", 5, "DL001")]
    # Every module ends up with every module's names, but a star import is a link that a
    # read follows, not a copy of all of them: eight times the modules, about eight times
    # the work (copying made it 64 times, and each module was analysed again as names
    # came round the ring).
    assert large.work <= 10 * small.work


def test_a_container_past_the_precise_slots_bound_never_takes_a_key_for_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(program_module, "MAX_PRECISE_SLOTS", 8)
    entries = "".join(f'    "k{i}": dispatch.zeros((2,)),\n' for i in range(20))
    source = (
        RUNTIME + "cap = dispatch.Capture()\n"
        f"weights = {{\n{entries}}}\n"
        'weights["k3"] = dispatch.placeholder((2,), device=cap)\n'
        'print(weights["k15"].tolist())\n'  # past the bound: a real tensor at run time
        'print(weights["k3"].tolist())\n'  # a precise slot: the capture tensor, found
    )
    result = analyze([SourceFile("weights.py", source.encode())])
    lines = source.splitlines()
    assert findings(result) == [("weights.py", lines.index('print(weights["k3"].tolist())') + 1,
                                 "DL003")]
    reduced = [n for n in result.notes if is_precision_note(n)]
    assert len(reduced) == 1 and "constant keys or indices" in reduced[0].message


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dispatch_lint", *args], cwd=cwd, capture_output=True,
        text=True, check=False,
    )


def test_precision_dropped_is_one_line_and_named_per_function_with_verbose(
    tmp_path: Path,
) -> None:
    (tmp_path / "model.py").write_text(RUNTIME + REWRAP + "prepare(m)\n" * 3 + REWRAP_USE)
    plain = run_cli("model.py", "--no-cache", cwd=tmp_path)
    assert "precision reduced in 1 function" in plain.stderr and "--verbose" in plain.stderr
    assert "`model`" not in plain.stderr
    verbose = run_cli("model.py", "--no-cache", "--verbose", cwd=tmp_path)
    assert (
        "model.py: note: precision reduced in the top level of `model`: closures or tuples "
        "nested too deeply became unknown"
    ) in verbose.stderr
    assert plain.stdout == verbose.stdout and plain.returncode == verbose.returncode == 1
    as_json = run_cli("model.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert [d["rule"] for d in json.loads(as_json.stdout)["diagnostics"]] == ["DL001"]


def weights_literal(entries: int) -> tuple[AnalysisResult, int]:
    """A dict literal of ``entries`` real tensors, one key then rebound to a capture tensor
    and read, and the line of that read."""
    body = "".join(f'    "k{i}": dispatch.zeros((2,)),\n' for i in range(entries))
    source = (
        RUNTIME + "cap = dispatch.Capture()\n" f"weights = {{\n{body}}}\n"
        'weights["k3"] = dispatch.placeholder((2,), device=cap)\n'
        'print(weights["k3"].tolist())\n'
    )
    result = analyze([SourceFile("weights.py", source.encode())])
    return result, len(source.splitlines())


def test_a_huge_literal_is_answered_with_its_finding_past_the_precise_slots_bound() -> None:
    # Past MAX_PRECISE_SLOTS (4,096) keys: the issue's 50,000-entry dict took 824 MB.
    (small, _), (large, line) = weights_literal(500), weights_literal(5_000)
    assert large.errors == ()
    assert findings(large) == [("weights.py", line, "DL003")]
    # The literal's entries are one statement: ten times them is not ten times the work.
    assert large.work <= 2 * small.work
    reduced = [n for n in large.notes if is_precision_note(n)]
    assert len(reduced) == 1 and "constant keys or indices" in reduced[0].message
    assert not [n for n in small.notes if is_precision_note(n)]


def shared_projection(reads: int, calls: int) -> tuple[AnalysisResult, int]:
    """A helper whose ``reads`` format calls all read one attribute of its parameter (one
    pending event each, all over ``cfg.t``), called ``calls`` times with a config holding a
    capture tensor; and how often the analysis read an attribute."""
    body = "".join(f'    print(f"{{cfg.t:.{i % 5}f}}")\n' for i in range(reads))
    source = (
        RUNTIME + "class Config:\n    def __init__(self, t):\n        self.t = t\n\n\n"
        f"def report(cfg):\n{body}\n\n"
        "cap = dispatch.Capture()\n"
        + "report(Config(dispatch.placeholder((2,), device=cap)))\n" * calls
    )
    counted = [0]
    original = program_module.FunctionRun.attribute

    def attribute(self, obj, name, node):  # type: ignore[no-untyped-def]
        counted[0] += 1
        return original(self, obj, name, node)

    program_module.FunctionRun.attribute = attribute  # type: ignore[method-assign]
    try:
        result = analyze([SourceFile("report.py", source.encode())])
    finally:
        program_module.FunctionRun.attribute = original  # type: ignore[method-assign]
    return result, counted[0]


def test_a_parameter_s_projection_is_read_once_per_call_however_many_events_hold_it() -> None:
    (few, few_reads), (many, many_reads) = shared_projection(2, 4), shared_projection(40, 4)
    assert few.errors == many.errors == ()
    # every format call of the helper is judged at each call: DL003 at each call line
    assert [rule for _, _, rule in findings(many)] == ["DL003"] * 4
    assert len(findings(few)) == 4
    assert not [n for n in many.notes if is_precision_note(n)]
    # 38 more format calls: the helper's body, analysed a few times (5 here), reads `cfg.t`
    # 38 more times in each; the 4 calls' substitutions read it once per call whatever the
    # events holding it (when each event read it again: 38 * 9 more reads)
    assert many_reads - few_reads <= 38 * 6


def written_views(writers: int, own_slots: bool = False) -> tuple[AnalysisResult, int]:
    """``writers`` functions that each write their parameter to a global dict and then call
    one reader of it: each caller's path hands the reader another view of the dict (see
    dataflow/views.py), so the reader is summarised once per writer. The first call passes a
    capture tensor, whose value the reader returns to ``backward()`` (DL001 when it runs);
    the line of that call. With ``own_slots`` each writer writes a dict of its own (optax's
    tests each fill their own parameters before they call the optimizer), all of which the
    reader reads: the views differ in their slots, not only in what one slot holds."""
    def slot(i: int) -> str:
        return f"slot_{i}" if own_slots else "settings"

    dicts = "".join(f"{name} = {{'scale': 1.0}}\n"
                    for name in dict.fromkeys(slot(i) for i in range(writers)))
    body = "".join(f"    total = total + {slot(i)}['scale'] * {i}\n"
                   for i in range(writers if own_slots else 30))
    source = (
        RUNTIME + dicts + "\n\n"
        f"def reader():\n    total = 0.0\n{body}    return {slot(0)}['scale']\n\n\n"
        + "".join(f"def writer_{i}(value):\n    {slot(i)}['scale'] = value\n"
                  "    return reader()\n\n\n" for i in range(writers))
        + "cap = dispatch.Capture()\n"
        "writer_0(dispatch.placeholder((2,), device=cap)).backward()\n"
        + "".join(f"writer_{i}(dispatch.zeros((2,)) * {i})\n" for i in range(1, writers))
    )
    return analyzed_at("views.py", source,
                       "writer_0(dispatch.placeholder((2,), device=cap)).backward()")


def analyzed_at(path: str, source: str, statement: str) -> tuple[AnalysisResult, int]:
    """``source`` analysed as the file ``path``, and the line of its line ``statement``."""
    return analyze([SourceFile(path, source.encode())]), source.splitlines().index(statement) + 1


def test_a_function_read_under_many_callers_views_is_summarised_a_bounded_number_of_times(
) -> None:
    # flax's from_state_dict, recursing through a registry, met 589 views; here one per writer
    (few, few_line), (many, many_line) = written_views(16), written_views(64)
    assert findings(few) == [("views.py", few_line, "DL001")]
    assert findings(many) == [("views.py", many_line, "DL001")]
    # Four times the writers; the reader (30 statements) summarised for the first MAX_VIEWS
    # (16) views only, then once for the unknown view every later writer shares (the
    # writers' own work grows with them)
    assert many.work <= 1.5 * few.work
    reduced = [n.message for n in many.notes if is_precision_note(n)]
    assert len(reduced) == 1
    assert "`views.reader()`: called with more than 16 different views" in reduced[0]
    assert not [n for n in few.notes if is_precision_note(n)]


def backward_found(path: str, *runs: tuple[AnalysisResult, int]) -> list[AnalysisResult]:
    """The results of ``runs``, each of which found the DL001 at its line and nothing else."""
    for result, line in runs:
        assert findings(result) == [(path, line, "DL001")]
    return [result for result, _ in runs]


def precision_notes(result: AnalysisResult) -> list[str]:
    return [n.message for n in result.notes if is_precision_note(n)]


def test_callers_past_the_views_bound_share_one_summary_whatever_slots_they_wrote() -> None:
    few, many = backward_found("views.py", written_views(16, own_slots=True),
                               written_views(64, own_slots=True))
    # Four times the writers and the reader's reads. The reader is summarised for the first
    # 16 views, then for one view the later writers share (its slots grow with them): 3.7
    # times the work here; with a summary per later writer's slots, 9.2 times.
    assert many.work <= 5 * few.work
    reduced = precision_notes(many)
    assert len(reduced) == 1 and "`views.reader()`: called with more than 16" in reduced[0]


def factories(count: int) -> tuple[AnalysisResult, int]:
    """``count`` factories that each make an instance of one class holding a closure of
    their own (optax's optimizers, each a GradientTransformation of its update function),
    and as many callers that each call one factory's ``tx.update``; the first passes a
    capture tensor, whose result reaches ``backward()``."""
    source = (
        RUNTIME + "\n\nclass Transformation:\n    def __init__(self, update):\n"
        "        self.update = update\n\n\n"
        + "".join(f"def make_{i}():\n    def update(x):\n        return x * {i}.0\n"
                  "    return Transformation(update)\n\n\n" for i in range(count))
        + "".join(f"def use_{i}(x):\n    tx = make_{i}()\n    return tx.update(x)\n\n\n"
                  for i in range(count))
        + "cap = dispatch.Capture()\n"
        "use_0(dispatch.placeholder((2,), device=cap)).backward()\n"
        + "".join(f"use_{i}(dispatch.zeros((2,)))\n" for i in range(1, count))
    )
    return analyzed_at("tx.py", source, "use_0(dispatch.placeholder((2,), device=cap)).backward()")


def test_instances_of_one_class_made_at_many_nodes_keep_their_fields_apart() -> None:
    few, many = backward_found("tx.py", factories(8), factories(32))
    # Four times the factories: past MAX_INSTANCE_SITES (8) each factory's instances are
    # one per node, so `tx.update` is that factory's closure alone (3.9 times the work).
    # With one instance for the whole class past the bound, each call applied every later
    # factory's closure (8.5 times).
    assert many.work <= 5 * few.work
    assert not precision_notes(many)


# A class made at more than MAX_INSTANCE_SITES (8) sites, and a helper that wraps what two
# calls give it in an instance of it: past the bound, the instances made at the helper's node
# are one, whatever call made them; its fields are then unknown (with the one instance's
# fields joined, the second call's `trained.tensor` was the first's capture tensor too).
SHARED_INSTANCES = """

class Holder:
    def __init__(self, source):
        self.tensor = source.tensor


class Source:
    def __init__(self, tensor):
        self.tensor = tensor


def wrap(source):
    return Holder(source)


plain = [Holder(Source(1)), Holder(Source(2)), Holder(Source(3)), Holder(Source(4)),
         Holder(Source(5)), Holder(Source(6)), Holder(Source(7)), Holder(Source(8))]
exported = wrap(Source(dispatch.placeholder((2,), device=dispatch.Capture())))
trained = wrap(Source(dispatch.zeros((2,), device=dispatch.Autodiff(dispatch.NumPy()))))
trained.tensor.require_grad().sum().backward()
"""


def test_instances_of_different_calls_made_one_past_the_bound_are_said() -> None:
    result = analyze([SourceFile("shared.py", (RUNTIME + SHARED_INSTANCES).encode())])
    assert findings(result) == []  # the program runs cleanly
    assert precision_notes(result) == [(
        "precision reduced in `shared.wrap()`: the instances of `Holder` made by different "
        "calls are one, with fields unknown (a class's instances are told apart at 8 sites "
        "at most)"
    )]
    # Below the bound (sites: the list's 4, wrap's, and its two calls' copies), each call's
    # instance is its own: nothing to say.
    fewer = SHARED_INSTANCES.replace("Holder(Source(5)),", "").replace(
        "Holder(Source(6)), Holder(Source(7)), Holder(Source(8))", "")
    assert precision_notes(analyze([SourceFile("shared.py", (RUNTIME + fewer).encode())])) == []


# datasets' _align_features: a recursive call passes the function's own parameters on inside
# a list, with dict subclasses of the tree in the calling context; asking which objects the
# parameter holds read them as its own again, without end.
ALIGN = """

class Features(dict):
    pass


def is_null(feature):
    return feature is None


def align(features_list):
    merged = {}
    for features in features_list:
        for k, v in features.items():
            if k in merged and isinstance(v, dict):
                merged[k] = align([merged[k], v])[0]
            elif k not in merged or is_null(merged[k]):
                merged[k] = v
    return [Features({k: merged[k] for k in features.keys()}) for features in features_list]


class Dataset:
    def __init__(self, features):
        self.features = features


def concatenate(datasets):
    return align([d.features for d in datasets])


aligned = concatenate([Dataset(Features(a=Features(b=1))), Dataset(Features(a=Features(b=2)))])
cap = dispatch.Capture()
dispatch.placeholder((2,), device=cap).backward()
"""


def test_a_recursive_call_passing_its_own_parameters_on_is_answered() -> None:
    source = RUNTIME + ALIGN
    result = analyze([SourceFile("align.py", source.encode())])
    assert result.errors == ()  # today's main: "internal error: code nested too deeply"
    assert findings(result) == [("align.py", len(source.splitlines()), "DL001")]
    assert result.work <= 20_000  # 10,596 measured


# numpyro's uniform_reparam_transform returns lambdas that call it again on a part of their
# distribution: a new closure at every level and round (234 of one lambda). Here one closure
# per name the factory is given, each summarised again for what it captured.
def made_closures(names: int) -> tuple[AnalysisResult, int]:
    body = "".join(f"        t = t * {i + 1}.0 + len(name)\n" for i in range(24))
    lines = [
        "def scaled(name):",
        "    def apply(t):",
        body.rstrip("\n"),
        "        return t",
        "    return apply",
        "",
        "",
        "x = dispatch.ones((2,))",
        "cap = dispatch.Capture()",
    ]
    lines += [f'x = scaled("k{i}")(x)' for i in range(names)]
    lines.append('scaled("last")(dispatch.placeholder((2,), device=cap)).sum().backward()')
    source = RUNTIME + "\n".join(lines) + "\n"
    return analyze([SourceFile("closures.py", source.encode())]), len(source.splitlines())


def test_a_function_made_as_many_different_closures_is_summarised_a_bounded_number_of_times(
) -> None:
    (few, few_line), (many, many_line) = made_closures(12), made_closures(96)
    assert findings(few) == [("closures.py", few_line, "DL001")]
    assert findings(many) == [("closures.py", many_line, "DL001")]
    # Eight times the closures; `apply` (26 statements) summarised for the first
    # MAX_CLOSURES (16) only, then once for the unknown capture all later ones share (the
    # calls' own work grows with them; summarised for each closure: 6.8 times the work)
    assert many.work <= 2.5 * few.work
    reduced = [n.message for n in many.notes if is_precision_note(n)]
    assert len(reduced) == 1
    assert "`closures.scaled.<locals>.apply()`: made as more than 16 different closures" \
        in reduced[0]
    assert not [n for n in few.notes if is_precision_note(n)]


# numpyro's uniform_reparam_transform again, as it is: the parameter holds any of many
# classes (a dispatch on types), and each lambda it returns captures that may-set. A closure
# capturing one function of the code (a decorator's wrapper) has a bound of its own per
# function wrapped; a may-set of classes is no wrapper, or every set of them would be new.
def made_over_classes(classes: int) -> AnalysisResult:
    lines = [f"class D{i}:\n    base = None\n" for i in range(classes)]
    lines += [
        "def transform(d):",
        "    if d.base is not None:",
        "        return lambda q: transform(d.base)(q) * 2.0",
        "    return lambda q: q",
        "",
        "",
        "for cls in (" + ", ".join(f"D{i}" for i in range(classes)) + ",):",
        "    cls.base = D0",
        "    transform(cls)(dispatch.ones((2,)))",
        "transform(D1)(dispatch.placeholder((2,))).backward()",
    ]
    source = RUNTIME + "\n".join(lines) + "\n"
    return analyze([SourceFile("types.py", source.encode())])


def test_closures_over_may_sets_of_classes_stay_bounded() -> None:
    few, many = made_over_classes(6), made_over_classes(30)
    assert [f[2] for f in findings(many)] == ["DL001"]
    assert many.work <= 8 * few.work


def test_decorator_wrappers_of_many_functions_keep_their_precision() -> None:
    """chex wraps over a hundred assertions with one decorator: each wrapper is a closure
    capturing the function it wraps, a name and a sibling helper closure."""
    lines = [
        "def checked(fn, name=None):",
        "    def report(msg):",
        "        return f'{name}: {msg}'",
        "    def wrapper(*args):",
        "        return fn(*args)",
        "    return wrapper",
        "",
    ]
    for i in range(40):
        lines += ["@checked", f"def step{i}(t):", f"    return t * {i}.0", ""]
    lines.append("x = dispatch.ones((2,))")
    lines += [f"x = step{i}(x)" for i in range(40)]
    lines.append("step39(dispatch.placeholder((2,))).backward()")
    source = RUNTIME + "\n".join(lines) + "\n"
    result = analyze([SourceFile("wrapped.py", source.encode())])
    assert [f[2] for f in findings(result)] == ["DL001"]
    assert not [n for n in result.notes if is_precision_note(n)]



def guarded_formats(guards: int) -> AnalysisResult:
    """A helper with ``guards`` capture tests in a row, each dropping the number format of
    one of its parameters for a capture tensor (the branches of each go on apart to the end
    of the block, see Statements.run_block), called with capture tensors: it runs (the
    tensors print as placeholders) and reads no data."""
    params = ", ".join(f"t{i}" for i in range(guards))
    body = "".join(f"    spec{i} = '.3f'\n    if dispatch.is_capture(t{i}):\n"
                   f"        spec{i} = ''\n    print(format(t{i}, spec{i}))\n"
                   for i in range(guards))
    args = ", ".join("dispatch.placeholder((2,))" for _ in range(guards))
    source = RUNTIME + f"def report({params}):\n{body}\n\nreport({args})\n"
    return analyze([SourceFile("formats.py", source.encode())])


def test_capture_tests_in_a_row_split_the_rest_of_the_block_once_not_at_each() -> None:
    few, many = guarded_formats(3), guarded_formats(24)
    assert findings(few) == findings(many) == []
    # 8 times the guards: about 8 times the work (a split at each guard of the rest of the
    # block would double it 21 more times)
    assert many.work <= few.work * 8 * 3
