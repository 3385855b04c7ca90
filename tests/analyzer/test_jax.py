"""The JAX model as a user sees it: programs under ``jax.jit`` and friends, the lines the
linter flags, the JAX error each message names and the trace back to the traced parameter.

Each case is a small program whose ``# expect: DL003`` comments mark what must be flagged
(no mark: nothing may be). Which operations break, and under which transform, was checked by
running JAX 0.10 on CPU; the fixtures under ``fixtures/jax/`` run the same kind of programs
under JAX itself. The analysis never imports JAX: these tests run without it.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from dispatch_lint.analyzer.engine import AnalysisSettings, SourceFile, analyze

_EXPECT = re.compile(r"#\s*expect:\s*(DL\d{3})")


def lint(files: dict[str, str], settings: AnalysisSettings | None = None):
    sources = [SourceFile(path, textwrap.dedent(text).encode(), module)
               for path, (text, module) in _with_modules(files).items()]
    return analyze(sources, settings)


def _with_modules(files: dict[str, str]) -> dict[str, tuple[str, str]]:
    return {path: (text, path[:-3].replace("/", ".")) for path, text in files.items()}


def found(files: dict[str, str], settings: AnalysisSettings | None = None
          ) -> set[tuple[str, int, str]]:
    result = lint(files, settings)
    assert not result.errors, result.errors
    return {(d.path, d.line, d.rule) for d in result.diagnostics}


def marks(files: dict[str, str]) -> set[tuple[str, int, str]]:
    out = set()
    for path, text in files.items():
        for number, line in enumerate(textwrap.dedent(text).splitlines(), 1):
            match = _EXPECT.search(line)
            if match:
                out.add((path, number, match.group(1)))
    return out


def check(source: str, **modules: str) -> None:
    files = {"main.py": source, **{f"{name}.py": text for name, text in modules.items()}}
    assert found(files) == marks(files)


HEAD = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nimport numpy as np\nimport math\n"

# Each case: (name, program). The head above is prepended; marks count its lines.
CASES = [
    ("jit_condition", """
        @jax.jit
        def f(x):
            if x > 0:  # expect: DL003
                return x
            return -x
        f(1.0)
    """),
    ("jit_conversions", """
        from functools import partial

        @partial(jax.jit, static_argnums=1)
        def f(x, mode):
            if mode == 0:
                return float(x)  # expect: DL003
            if mode == 1:
                return int(x)  # expect: DL003
            if mode == 2:
                return bool(x)  # expect: DL003
            if mode == 3:
                return x.item()  # expect: DL003
            if mode == 4:
                return x.tolist()  # expect: DL003
            if mode == 5:
                return math.exp(x)  # expect: DL003
            return complex(x)  # expect: DL003
    """),
    ("jit_numpy", """
        from functools import partial

        @partial(jax.jit, static_argnames="mode")
        def f(x, mode):
            if mode == 0:
                return np.asarray(x)  # expect: DL003
            if mode == 1:
                return np.exp(x)  # expect: DL003
            if mode == 2:
                return np.where(x > 0, x, 0)  # expect: DL003
            d = np.sum(x)
            e = np.mean(x) + np.reshape(x, (3,)).sum() + np.shape(x)[0]
            return d + e
    """),
    ("jit_format", """
        from functools import partial

        @partial(jax.jit, static_argnums=(1,))
        def f(x, mode):
            print(x, str(x), repr(x), f"{x}", "%s" % x)
            if mode == 0:
                print(f"{x:.3f}")  # expect: DL003
            elif mode == 1:
                print(format(x, ".2f"))  # expect: DL003
            elif mode == 2:
                print("{:.2f}".format(x))  # expect: DL003
            else:
                print("%f" % x)  # expect: DL003
            return x
    """),
    ("jit_index_and_shapes", """
        from functools import partial

        @partial(jax.jit, static_argnums=2)
        def f(x, n, mode):
            table = [1.0, 2.0, 3.0]
            k = x[n]
            if mode == 0:
                return table[n]  # expect: DL003
            if mode == 1:
                return list(range(n))  # expect: DL003
            if mode == 2:
                return jnp.zeros(n)  # expect: DL003
            if mode == 3:
                return jnp.ones((n, 3))  # expect: DL003
            if mode == 4:
                return x.reshape(n)  # expect: DL003
            if mode == 5:
                return jnp.arange(n)  # expect: DL003
            if mode == 6:
                return (1, 2)[n:]  # expect: DL003
            return x[:n]  # expect: DL003
    """),
    ("a_raising_sink_ends_the_path", """
        @jax.jit
        def f(x):
            a = float(x)  # expect: DL003
            b = int(x)
            return a + b

        @jax.jit
        def g(x):
            if x.ndim > 1:
                x = np.asarray(x)  # expect: DL003
            return bool(x)  # expect: DL003
    """),
    ("concrete_inside_jit", """
        @jax.jit
        def f(x, mask=None):
            n = int(x.shape[0])
            if x.ndim == 2:
                x = x.sum(axis=0)
            if mask is not None:
                x = x * mask
            pi = float(np.pi)
            y = jnp.zeros(x.shape[0]) + jnp.arange(len(x))
            for i in range(x.shape[0]):
                y = y.at[i].set(i * pi)
            if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jnp.floating):
                y = y + round(x)
            return y + n
    """),
    ("jnp_results_are_tracers", """
        @jax.jit
        def f(x):
            z = jnp.zeros(())
            if z > 0:  # expect: DL003
                pass

        @jax.jit
        def g(x):
            k = jax.random.PRNGKey(0)
            return float(jax.random.normal(k, ()))  # expect: DL003
    """),
    ("static_arguments", """
        from functools import partial

        @partial(jax.jit, static_argnums=1)
        def f(x, n):
            return jnp.zeros(n) + int(n) + x

        @partial(jax.jit, static_argnames=("n",))
        def g(x, n):
            return jnp.ones(n) + x

        @partial(jax.jit, static_argnums=[1])
        def h(x, n, m):
            return jnp.ones(n) + jnp.ones(m)  # expect: DL003

        f(1.0, 3)
        g(1.0, 3)
    """),
    ("jit_call_forms", """
        from jax import jit, vmap

        def f(x):
            return float(x)  # expect: DL003

        def g(x):
            return bool(x)  # expect: DL003

        fast_f = jit(f)
        fast_g = vmap(g)
        fast_f(1.0)
        fast_g(jnp.ones(3))
        jax.jit(f, static_argnums=0)(2.0)
    """),
    ("grad_alone_is_concrete", """
        def loss(w, n):
            if w > 0:
                w = w * int(w) * len(range(int(w)))
            return w * float(w)  # expect: DL003

        jax.grad(loss)(1.0, 2)
        jax.value_and_grad(loss)(1.0, 2)
    """),
    ("grad_inside_jit_is_abstract", """
        def loss(w):
            if w > 0:  # expect: DL003
                return w * 2.0
            return w

        @jax.jit
        def step(w):
            return jax.grad(loss)(w)

        step(1.0)
    """),
    ("grad_argnums_only", """
        def loss(w, scale):
            return w * float(scale)

        jax.grad(loss)(1.0, 2.0)
    """),
    ("vmap_in_axes_none", """
        def f(x, t):
            if t > 0:
                return x
            return -x

        jax.vmap(f, in_axes=(0, None))(jnp.ones(3), 1.0)
    """),
    ("helper_context_sensitive", """
        def clip(v):
            if v > 1.0:
                return 1.0
            return v

        @jax.jit
        def f(x):
            return clip(x)  # expect: DL003

        clip(np.float32(2.0))
        print(clip(f(1.0)))
    """),
    ("jitted_result_is_concrete", """
        @jax.jit
        def f(x):
            return x * 2.0

        y = f(jnp.ones(()))
        print(float(y), y.item(), f"{y:.3f}")
        if y > 0:
            print(np.asarray(f(y)))
    """),
    ("lax_bodies", """
        def scan_body(carry, x):
            if x > 0:  # expect: DL003
                carry = carry + x
            return carry, None

        def loop_body(i, acc):
            return acc + float(i)  # expect: DL003

        def cond_fun(c):
            return c < 3 and c.item() < 2  # expect: DL003

        def body_fun(c):
            return c + 1

        lax.scan(scan_body, 0.0, jnp.ones(3))
        lax.fori_loop(0, 3, loop_body, 0.0)
        lax.while_loop(cond_fun, body_fun, 0.0)
        lax.cond(True, lambda v: v + int(v), lambda v: v, 1.0)  # expect: DL003
        lax.switch(0, [lambda v: v * bool(v), lambda v: v], 1.0)  # expect: DL003
    """),
    ("bound_method_passed_to_jit", """
        class Model:
            def __init__(self, scale):
                self.scale = scale
                self.apply = jax.jit(self._apply)

            def _apply(self, x):
                if x > self.scale:  # expect: DL003
                    return x
                return x * self.scale

        Model(2.0).apply(1.0)
    """),
    ("callbacks_get_concrete_values", """
        def log(v):
            print(f"{float(v):.3f}")

        @jax.jit
        def f(x):
            jax.debug.callback(log, x)
            jax.debug.print("x = {x:.3f}", x=x)
            return x

        f(1.0)
    """),
    ("never_traced", """
        def plain(x):
            if x > 0:
                return float(x)
            return np.asarray(x).item()

        plain(jnp.ones(()))
    """),
    ("custom_jvp_outside_trace", """
        @jax.custom_jvp
        def f(x):
            return x * float(x)  # expect: DL003

        f.defjvp(lambda primals, tangents: (f(primals[0]), tangents[0]))
        f(1.0)
        jax.grad(f)(1.0)
        jax.jit(f)(1.0)
    """),
    ("escape_global_and_containers", """
        key = jax.random.PRNGKey(0)
        history = []
        cache = {}

        @jax.jit
        def init(x):
            global key
            key, sub = jax.random.split(key)  # expect: DL009
            y = x + jax.random.normal(sub, x.shape)
            history.append(y)  # expect: DL009
            cache["y"] = y  # expect: DL009
            local = []
            local.append(y)
            mine = {"y": y}
            return local[0] + mine["y"]

        init(jnp.ones(3))
    """),
    ("escape_self_in_traced_method", """
        from functools import partial

        class Tracker:
            def __init__(self):
                self.step = jax.jit(self._step)

            def _step(self, x):
                self.last = x  # expect: DL009
                return x + 1.0

            @partial(jax.jit, static_argnums=0)
            def update(self, x):
                self.seen = x  # expect: DL009
                return x

        t = Tracker()
        t.step(1.0)
        t.update(1.0)
    """),
    ("escape_through_helper", """
        LOG = []

        def remember(v):
            LOG.append(v)

        @jax.jit
        def f(x):
            remember(x * 2)  # expect: DL009
            return x

        remember(1.0)
        f(1.0)
    """),
    ("escape_nonlocal_in_scan_body", """
        def run(xs):
            last = None

            def body(c, x):
                nonlocal last
                last = x  # expect: DL009
                return c + x, None

            lax.scan(body, 0.0, xs)
            return last

        run(jnp.ones(3))
    """),
    ("escaped_tracer_is_not_read_again_outside", """
        class Box:
            def __init__(self):
                self.value = 0.0

        box = Box()

        @jax.jit
        def f(x):
            box.value = x * 2  # expect: DL009
            return x

        f(1.0)
        print(float(box.value))  # the escape is the finding, not each later use
    """),
    ("shape_queries_are_concrete", """
        def g(x):
            return x * 2

        @jax.jit
        def f(x):
            out = jax.eval_shape(g, x)
            if out:
                return jnp.zeros(out.shape)
            return x

        f(jnp.ones(3))
    """),
    ("tracers_mix_in_arithmetic", """
        @jax.jit
        def f(x, y):
            z = x * y + (x - y) / 2
            return int(z)  # expect: DL003

        f(1.0, 2.0)
    """),
    ("tree_map_gives_what_its_function_returns", """
        @jax.jit
        def f(batch):
            sizes = jax.tree.leaves(jax.tree.map(lambda x: x.shape[0], batch))
            if sizes[0] > 2:
                return batch
            doubled = jax.tree.leaves(jax.tree.map(lambda x: x * 2, batch))
            return float(doubled[0])  # expect: DL003

        f({"x": jnp.ones(3)})
    """),
    ("isinstance_of_a_python_type_is_no_tracer", """
        def scalar(v):
            return float(v) if isinstance(v, (int, float)) else v

        def array(v):
            return float(v) if isinstance(v, jax.Array) else v

        @jax.jit
        def f(x):
            y = scalar(x) + scalar(3)
            return y, array(x)  # expect: DL003

        f(1.0)
    """),
    ("an_objects_update_method_is_no_container_store", """
        from typing import Callable, NamedTuple

        class Optimizer(NamedTuple):
            update: Callable

        def make_step(optimizer, seen):
            @jax.jit
            def step(params):
                new, _ = optimizer.update(params * 2, None)
                seen.update({"params": params})  # expect: DL009
                return new

            return step

        make_step(Optimizer(lambda g, s: (g * 0.1, s)), {})(jnp.ones(3))
    """),
    ("a_pytree_nodes_methods_give_no_tracer", """
        from typing import NamedTuple

        class State(NamedTuple):
            rate: jax.Array

        def has_rate(node):
            return "rate" in node._asdict()

        def total(node):
            return float(node.sum())

        @jax.jit
        def f(state, x):
            if has_rate(state):
                return total(x)  # expect: DL003
            return x

        f(State(jnp.float32(0.1)), jnp.ones(3))
    """),
    ("numpy_array_indexed_by_a_tracer", """
        def coordinates(shape, mask):
            return np.indices(shape)[:, mask]

        @jax.jit
        def f(x):
            b = np.ones(3) * x
            return coordinates(x.shape, b > 0)  # expect: DL003

        @jax.jit
        def h(i):
            grid = np.arange(5)
            return grid[i]  # expect: DL003

        @jax.jit
        def g(t):
            return np.arange(5)[:t]  # expect: DL003

        f(jnp.ones(3))
        h(1)
        g(2)
        print(np.indices((2,))[:, np.array([True, False])], np.arange(5)[1:3])
    """),
    ("grad_alone_comparisons_and_integer_casts_are_concrete", """
        def loss(w):
            mask = np.asarray(w > 0)
            bucket = float(np.asarray(w.astype(jnp.int32)))
            scaled = float(w.astype(jnp.float32))  # expect: DL003
            return jnp.sum(w * mask) + bucket + scaled

        def loss_jit(w):
            return float(np.asarray(w.astype(jnp.int32)))  # expect: DL003

        jax.grad(loss)(2.0)
        jax.jit(loss_jit)(2.0)
    """),
    ("vmap_stages_nothing_jit_does", """
        def calibrated(x):
            total = float(jnp.linspace(0.0, 1.0, 5).sum())
            return x / total

        def staged(x):
            total = float(jnp.linspace(0.0, 1.0, 5).sum())  # expect: DL003
            return x / total

        jax.vmap(calibrated)(jnp.ones(2))
        jax.jit(staged)(jnp.ones(2))
        jax.jit(jax.vmap(staged))(jnp.ones(2))
    """),
    ("custom_rules_under_grad_alone_see_concrete_primals", """
        @jax.custom_jvp
        def soft(x):
            return x * float(x)

        soft.defjvp(lambda primals, tangents: (soft(primals[0]), tangents[0]))

        @jax.custom_vjp
        def hard(x):
            return x * float(x)  # expect: DL003

        hard.defvjp(lambda x: (hard(x), x), lambda x, g: (2 * x * g,))

        jax.grad(soft)(1.0)
        jax.value_and_grad(jax.grad(soft))(1.0)
        jax.jit(jax.grad(hard))(1.0)
    """),
]


@pytest.mark.parametrize(("name", "body"), CASES, ids=[c[0] for c in CASES])
def test_jax_case(name: str, body: str) -> None:
    check(HEAD + textwrap.dedent(body))


def test_helper_in_another_module_is_judged_in_its_caller_context() -> None:
    helpers = """
        import numpy as np

        def to_host(v):
            return np.asarray(v)

        def norm(v):
            return float((v * v).sum())
    """
    main = HEAD + textwrap.dedent("""
        from helpers import norm, to_host

        @jax.jit
        def f(x):
            return to_host(x)  # expect: DL003

        @jax.jit
        def g(x):
            return norm(x)  # expect: DL003

        print(norm(np.ones(3)), to_host(np.ones(3)))
        f(jnp.ones(3))
        g(jnp.ones(3))
    """)
    check(main, helpers=helpers)


def test_message_names_the_jax_error_the_fix_and_the_traced_parameter() -> None:
    source = HEAD + textwrap.dedent("""
        def positive(v):
            if v > 0:
                return v
            return -v

        @jax.jit
        def step(params, batch):
            return positive(params) + batch
    """)
    (diag,) = lint({"main.py": source}).diagnostics
    assert diag.rule == "DL003" and diag.line == 14
    assert diag.message.startswith("JAX tracers hold no concrete value: ")
    assert "TracerBoolConversionError" in diag.message
    assert "jnp.where" in diag.message and "jax.lax.cond" in diag.message
    assert "parameter `params` of `step()`, traced by `jax.jit` (line 13), through " \
        "`positive()`" in diag.message
    steps = [(s.line, s.message) for s in diag.trace]
    assert steps[0] == (13, "parameter `params` of `step()`, traced by `jax.jit`")
    assert (14, "passed to `positive(params)` as `v`") in steps
    assert steps[-1] == (8, "used as a condition: `v > 0`")  # in the helper


def test_escape_message_names_unexpected_tracer_error() -> None:
    source = HEAD + textwrap.dedent("""
        seen = []

        @jax.jit
        def step(x):
            seen.append(x)
            return x
    """)
    (diag,) = lint({"main.py": source}).diagnostics
    assert diag.rule == "DL009"
    assert diag.message.startswith("A traced value escapes its trace: ")
    assert "UnexpectedTracerError" in diag.message
    assert "return the value from the traced function" in diag.message


def test_frameworks_setting_restricts_the_models() -> None:
    files = {"main.py": HEAD + textwrap.dedent("""
        from dispatch_lint import runtime as dispatch

        @jax.jit
        def f(x):
            return float(x)

        dispatch.placeholder((2,)).backward()
    """)}
    assert {r for _, _, r in found(files)} == {"DL001", "DL003"}
    assert {r for _, _, r in found(files, AnalysisSettings(frameworks=("jax",)))} == {"DL003"}
    assert {r for _, _, r in found(files, AnalysisSettings(frameworks=("dispatch",)))} == {
        "DL001"}
    assert found(files, AnalysisSettings(frameworks=())) == set()


def test_a_configured_sink_flags_tracers_in_the_frameworks_words() -> None:
    from dispatch_lint.analyzer.engine import SinkSpec

    source = HEAD + textwrap.dedent("""
        import mylib

        @jax.jit
        def f(x):
            mylib.log_value(x)
            return x
    """)
    settings = AnalysisSettings(sinks=(SinkSpec("mylib.log_value", 0, "DL003"),))
    (diag,) = lint({"main.py": source}, settings).diagnostics
    assert (diag.line, diag.rule) == (11, "DL003")
    assert diag.message.startswith("JAX tracers hold no concrete value: a traced value is "
                                   "passed to `mylib.log_value(x)`")
    assert "parameter `x` of `f()`, traced by `jax.jit`" in diag.message


def test_a_file_that_only_says_ajax_is_not_a_jax_file() -> None:
    """The prefilter looks for an import of jax: "ajax" and "tex2jax" in HTML strings (rich,
    numba) leave a file to the syntax check alone, as before frameworks existed."""
    from dispatch_lint.frameworks import Prefilter

    mentions = Prefilter()
    html = b'CSS = "https://cdnjs.cloudflare.com/ajax/libs/x.css"  # tex2jax_ignore\n'
    assert not mentions(html)
    assert not mentions(b"import flax_utils\nfrom tex2jax import x\n")
    assert mentions(b"import jax.numpy as jnp\n")
    assert mentions(b"from jax import lax\n")
    assert mentions(b"import numpy, jax\n")
    assert mentions(b"if True:\n    import numpy as np, jax.numpy as jnp\n")


def test_jax_imported_beside_another_module_is_seen() -> None:
    """`import numpy, jax` makes a JAX file like `import jax` does."""
    source = ("import numpy, jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n"
              "        return x\n    return -x\n")
    (diag,) = lint({"main.py": source}).diagnostics
    assert (diag.line, diag.rule) == (6, "DL003")
