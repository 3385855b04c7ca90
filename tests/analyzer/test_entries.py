"""The analysis starts from the files that can make a data-less value, and reaches the rest
only where they lead: a large library beside one runtime-using script costs what the script
needs of it, never the whole library (issue 13: real packages answered in seconds).

Cost is counted as work (``AnalysisResult.work``), never timed. Every program here runs: the
finding asserted is the error the runtime (or JAX) raises on it.
"""

from __future__ import annotations

from dispatch_lint.analyzer.engine import AnalysisResult, SourceFile, analyze

RUNTIME = "from dispatch_lint import runtime as dispatch\n"

#: a library module: real Python the analysis would spend work on if it started there
LIBRARY_MODULE = """\
from lib import util

logger = util.get_logger(__name__)


class Block{n}:
    def __init__(self, width):
        self.width = width
        self.layers = [util.scale(width, i) for i in range(4)]

    def forward(self, x):
        for layer in self.layers:
            if layer > self.width:
                x = x * layer
            else:
                x = x + layer
        return x


def build{n}(widths):
    blocks = {{}}
    for i, width in enumerate(widths):
        blocks[f"block{{i}}"] = Block{n}(width)
    return blocks
"""
UTIL = """\
LOGGERS = {}


def get_logger(name):
    return LOGGERS.setdefault(name, [])


def scale(width, i):
    return width * (i + 1)
"""
STEP = RUNTIME + """\
from lib import util


def update(pred, target):
    return ((pred - target) ** 2).sum().backward()


cap = dispatch.Capture()
update(dispatch.placeholder((4,), device=cap, name="p"), dispatch.zeros((4,), device=cap))
"""


def findings(result: AnalysisResult) -> list[tuple[str, int, str]]:
    return [(d.path, d.line, d.rule) for d in result.diagnostics]


def library_with(modules: int, step: str = STEP) -> AnalysisResult:
    """``step.py`` and a library of ``modules`` modules that all import its ``util``, as a
    package's modules import its logging helper, checked in one run."""
    files = [SourceFile("lib/__init__.py", b""), SourceFile("lib/util.py", UTIL.encode())]
    files += [SourceFile(f"lib/block{n}.py", LIBRARY_MODULE.format(n=n).encode())
              for n in range(modules)]
    return analyze([*files, SourceFile("step.py", step.encode())])


def test_a_library_beside_a_script_costs_no_work_the_script_does_not_lead_to() -> None:
    few, many = library_with(3), library_with(60)
    assert findings(few) == findings(many) == [("step.py", 10, "DL001")]
    assert few.errors == many.errors == ()
    assert 0 < many.work == few.work


def test_a_container_of_the_library_s_core_read_does_not_run_the_modules_nobody_imports(
) -> None:
    # Reading `util.LOGGERS` runs the importers of util that may have filled it before, as a
    # registry needs (fixtures/hookkit); only those an import the analysis ran names: the
    # blocks never run for this script (transformers' core: 1,400 modules, minutes).
    step = STEP + 'util.get_logger("train").append(1)\n'
    few, many = library_with(3, step), library_with(60, step)
    assert findings(few) == findings(many) == [("step.py", 10, "DL001")]
    assert 0 < many.work == few.work


def test_a_library_function_a_script_calls_is_analysed_with_the_script_s_values() -> None:
    helper = "def finish(loss):\n    return loss.backward()\n"
    script = RUNTIME + (
        "from lib.train import finish\n\n"
        "cap = dispatch.Capture()\n"
        "finish(dispatch.placeholder((2,), device=cap).sum())\n"
    )
    result = analyze([
        SourceFile("lib/__init__.py", b""),
        SourceFile("lib/train.py", helper.encode()),
        SourceFile("step.py", script.encode()),
    ])
    assert findings(result) == [("step.py", 5, "DL001")]
    steps = [step.path for step in result.diagnostics[0].trace]
    assert "lib/train.py" in steps


JAX_LIBRARY = '''\
"""Array helpers. Inside `jax.jit` these run on tracers; see jax.lax.cond for branches."""
import jax.numpy as jnp


def clip(x, low):
    # jax.vmap(clip) would batch this
    return jnp.maximum(x, low)
'''


def test_a_module_that_only_names_a_transform_in_text_does_not_start_the_analysis() -> None:
    user = "import jax\nfrom lib import arrays\n\n\ndef f(x):\n    return arrays.clip(x, 0.0)\n"
    alone = analyze([SourceFile("lib/__init__.py", b""),
                     SourceFile("lib/arrays.py", JAX_LIBRARY.encode()),
                     SourceFile("use.py", user.encode())])
    assert findings(alone) == []
    assert alone.work == 0


def test_a_transform_imported_under_an_alias_starts_the_analysis() -> None:
    user = (
        "import jax.numpy as jnp\n"
        "from jax import jit as compiled\n\n\n"
        "@compiled\n"
        "def step(x):\n"
        "    if x.sum() > 0:\n"
        "        return x\n"
        "    return -x\n\n\n"
        "step(jnp.ones(3))\n"
    )
    result = analyze([SourceFile("use.py", user.encode())])
    assert findings(result) == [("use.py", 7, "DL003")]
