"""Flows across functions, classes, closures, decorators and modules: each case is a set of
files whose ``# expect: DL00x`` marks must equal the findings exactly."""

from __future__ import annotations

import re
import textwrap

import pytest

from dispatch_lint.analyzer.engine import (
    AnalysisResult,
    AnalysisSettings,
    SinkSpec,
    SourceFile,
    analyze,
)

MARK = re.compile(r"#\s*expect:\s*(DL\d{3}(?:\s*,\s*DL\d{3})*)")
RT = "from dispatch_lint import runtime as dispatch\n"


def normalize(text: str) -> str:
    """The case's source: the runtime import line, then the dedented body."""
    if text.startswith(RT):
        return RT + textwrap.dedent(text[len(RT):])
    return textwrap.dedent(text)


def run(sources: dict[str, str], settings: AnalysisSettings | None = None) -> AnalysisResult:
    files = [
        SourceFile(path, normalize(text).encode(), module_of(path))
        for path, text in sources.items()
    ]
    return analyze(files, settings)


def module_of(path: str) -> str:
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def marks(sources: dict[str, str]) -> set[tuple[str, int, str]]:
    out = set()
    for path, text in sources.items():
        for number, line in enumerate(normalize(text).splitlines(), start=1):
            match = MARK.search(line)
            if match:
                out.update((path, number, r.strip()) for r in match.group(1).split(","))
    return out


def found(result: AnalysisResult) -> set[tuple[str, int, str]]:
    return {(d.path, d.line, d.rule) for d in result.diagnostics}


CASES: dict[str, dict[str, str]] = {
    "helper_two_contexts": {
        "main.py": RT + """
            def train_step(t):
                loss = (t * t).sum()
                return loss.backward()

            def main():
                w = dispatch.tensor([1.0], device="autodiff:numpy").require_grad()
                train_step(w)
                x = dispatch.placeholder((1,), name="x")
                train_step(x)  # expect: DL001
        """,
    },
    "helper_chain_three_deep": {
        "main.py": RT + """
            def read(t):
                return t.numpy()

            def middle(t):
                return read(t + 1.0)

            def outer(t):
                return middle(t)

            def main():
                outer(dispatch.ones((2,)))
                outer(dispatch.placeholder((2,)))  # expect: DL003
        """,
    },
    "factory_returns_capture": {
        "main.py": RT + """
            def make_inputs():
                dev = dispatch.Capture()
                return dispatch.placeholder((2,), device=dev, name="x"), dev

            def main():
                x, dev = make_inputs()
                x.to_device(dev)
                x.to_device(dispatch.NumPy())  # expect: DL002
        """,
    },
    "factory_called_twice_makes_two_devices": {
        "main.py": RT + """
            def make():
                return dispatch.placeholder((2,))

            def main():
                a = make()
                b = make()
                c = a + b  # expect: DL008
                d = a + a
        """,
    },
    "global_device_shared": {
        "main.py": RT + """
            CAP = dispatch.Capture()

            def get():
                return CAP

            def main():
                a = dispatch.placeholder((2,), device=get())
                b = dispatch.placeholder((2,), device=get())
                c = a + b
        """,
    },
    "methods_properties_call_and_fields": {
        "main.py": RT + """
            import contextlib

            class Model:
                def __init__(self, device):
                    self.device = device
                    self.w = dispatch.ones((2,)).to_device(device)

                @property
                def weight(self):
                    return self.w

                def __call__(self, x):
                    return x * self.w

                def loss(self, x):
                    return self(x).sum()

            def main():
                m = Model(dispatch.Capture())
                with contextlib.suppress(dispatch.errors.DispatchError):  # the path goes on
                    m.weight.numpy()  # expect: DL003
                m.loss(dispatch.ones((2,)))  # expect: DL008
        """,
    },
    "static_and_class_methods": {
        "main.py": RT + """
            class Factory:
                @staticmethod
                def device():
                    return dispatch.device("capture")

                @classmethod
                def inputs(cls):
                    return dispatch.placeholder((2,), device=cls.device())

            def main():
                Factory.inputs().backward()  # expect: DL001
        """,
    },
    "closure_factory": {
        "main.py": RT + """
            def make_mover(dev):
                def move(t):
                    return t.to_device(dev)
                return move

            def main():
                to_host = make_mover(dispatch.NumPy())
                to_host(dispatch.ones((2,), device=dispatch.Numba()))
                to_host(dispatch.placeholder((2,)))  # expect: DL002
        """,
    },
    "decorators_wraps_and_no_capture": {
        "main.py": RT + """
            import functools
            from dispatch_lint.runtime import guards

            def logged(fn):
                @functools.wraps(fn)
                def wrapper(*args, **kwargs):
                    return fn(*args, **kwargs)
                return wrapper

            @logged
            def read(t):
                return t.item()

            @guards.no_capture
            def fit(batch):
                return batch.backward()

            def main():
                read(dispatch.placeholder(()))  # expect: DL003
                fit(dispatch.ones((1,), device="autodiff:numpy"))
                fit([dispatch.placeholder((1,))])  # expect: DL001
        """,
    },
    "default_argument_device": {
        "main.py": RT + """
            def export(data, device="capture"):
                return dispatch.tensor(data, device=device)

            def main():
                export([1.0], device="numpy").numpy()
                export([1.0]).numpy()  # expect: DL003
        """,
    },
    "container_argument_effect": {
        "main.py": RT + """
            def collect(out, t):
                out.append(t)

            def main():
                seen = []
                collect(seen, dispatch.placeholder((2,)))
                for t in seen:
                    t.backward()  # expect: DL001
        """,
    },
    "field_set_from_parameter": {
        "main.py": RT + """
            class Trainer:
                def __init__(self):
                    self.batch = None

                def feed(self, t):
                    self.batch = t

                def step(self):
                    return self.batch.sum().backward()

            def main():
                tr = Trainer()
                tr.feed(dispatch.placeholder((2,)))
                tr.step()  # expect: DL001
        """,
    },
    "cross_module_relative_and_reexport": {
        "pkg/__init__.py": "from .factory import make_input\n",
        "pkg/factory.py": RT + """
            def make_input():
                return dispatch.placeholder((2,), name="x")
        """,
        "pkg/train.py": """
            from . import make_input
            from .helpers import fit

            def main():
                fit(make_input())  # expect: DL001
        """,
        "pkg/helpers.py": """
            def fit(t):
                return t.sum().backward()
        """,
    },
    "cross_module_alias_import": {
        "consts.py": 'EXPORT_DEVICE = "capture"\n',
        "app.py": RT + """
            import consts as C

            def main():
                t = dispatch.zeros((2,), device=C.EXPORT_DEVICE)
                t.numpy()  # expect: DL003
        """,
    },
    "recursion_terminates": {
        "main.py": RT + """
            def down(t, n):
                if n == 0:
                    return t.numpy()
                return down(t, n - 1)

            def ping(t):
                return pong(t)

            def pong(t):
                return ping(t)

            def main():
                down(dispatch.placeholder((2,)), 3)  # expect: DL003
                ping(dispatch.placeholder((2,)))
        """,
    },
    "bad_input_import_cycles_and_star": {
        "a.py": "from b import *\nimport dispatch_lint.runtime as dispatch\nX = 1\n",
        "b.py": "from a import *\nfrom a import X as Y\n",
        "c.py": "import a\nimport unknown.thing\nunknown.thing.make().backward()\na.whatever().numpy()\n",
    },
    "star_imports_link_names_through_modules": {
        # main gets `read` from helpers through tools; `_private` is never star-imported;
        # `show` bound before the star import is the imported one after it
        "helpers.py": """
            def read(t):
                return t.numpy()

            def _private(t):
                return t.numpy()

            def show(t):
                return t.tolist()
        """,
        "tools.py": "from helpers import *\n",
        "main.py": RT + """
            def show(t):
                return t

            def _private(t):
                return t

            from tools import *

            def main():
                read(dispatch.placeholder((2,)))  # expect: DL003
                show(dispatch.placeholder((2,)))  # expect: DL003
                _private(dispatch.placeholder((2,)))
        """,
    },
    "star_imports_overridden_after_the_import": {
        "helpers.py": "def read(t):\n    return t.numpy()\n",
        "main.py": RT + """
            from helpers import *

            def read(t):
                return t

            read(dispatch.placeholder((2,)))
        """,
    },
    "functions_in_a_dict": {
        "main.py": RT + """
            def read(t):
                return t.numpy()

            HANDLERS = {"read": read}

            def main():
                HANDLERS["read"](dispatch.placeholder((2,)))  # expect: DL003
        """,
    },
    "tracer_objects_and_guards": {"tracer.py": 'import contextlib\nimport dispatch_lint.runtime as rt\nfrom dispatch_lint.runtime.guards import no_capture, ensure_not_capture, is_capture\n\n\n@no_capture\ndef optimizer_step(params, lr=0.1):\n    for p in params:\n        p.backward()\n\n\nclass Tracer:\n    def __init__(self):\n        self.graph = rt.Capture()\n        self.inputs = []\n\n    def input(self, shape, name):\n        t = rt.placeholder(shape, device=self.graph, name=name)\n        self.inputs.append(t)\n        return t\n\n    def constant(self, t):\n        return t.to_device(self.graph)\n\n\ndef main():\n    tr = Tracer()\n    a = tr.input((2,), "a")\n    b = tr.constant(rt.ones((2,)))\n    c = a * b\n    optimizer_step([c])  # expect: DL001\n    d = ensure_not_capture(rt.ones((2,), device="autodiff:numba"))\n    d.backward()\n    for t in tr.inputs:\n        if not is_capture(t):\n            t.backward()\n    c2 = c.to_device(tr.graph)\n    with contextlib.suppress(rt.errors.DispatchError):  # a sink that always raises ends a path\n        c3 = c.to_device(rt.Capture())  # expect: DL002\n    other = Tracer()\n    z = a + other.input((2,), "z")  # expect: DL008\n\n\nif __name__ == "__main__":\n    main()\n'},
    "device_factories_and_formatting": {"factories.py": 'from dispatch_lint import runtime as dispatch\n\n\ndef build(kind):\n    if kind == "export":\n        return dispatch.device("capture")\n    return dispatch.device("autodiff:numpy")\n\n\ndef run(kind):\n    dev = build(kind)\n    x = dispatch.ones((3,), device=dev)\n    if dispatch.is_capture(x):\n        prog = dispatch.export(x * 2.0)\n        return prog.run({})\n    loss = (x * x).sum()\n    loss.backward()\n    return loss.inner()\n\n\ndef fmt(t):\n    return f"{t.item():.3f}"\n\n\ndef main():\n    print(run("export"))\n    print(run("train"))\n    t = dispatch.placeholder(())\n    print(fmt(t))  # expect: DL003\n    print(fmt(dispatch.ones(())))\n    vals = {"a": dispatch.placeholder((2,)), "b": dispatch.ones((2,))}\n    for name, v in vals.items():\n        print(name, v.shape)\n    total = vals["b"].sum().item()\n    numbers = [float(v.sum()) for v in vals.values()]  # expect: DL003\n\n\nmain()\n'},
    "dataclass_contextmanager_generator_super_global": {"program.py": 'import contextlib\nfrom dataclasses import dataclass\nfrom dispatch_lint import runtime as dispatch\n\n\n@dataclass\nclass Config:\n    device: object = None\n    scale: float = 1.0\n\n\n@contextlib.contextmanager\ndef capturing():\n    dev = dispatch.Capture()\n    yield dev\n\n\ndef batches(n):\n    for i in range(n):\n        yield dispatch.placeholder((2,), name=f"b{i}")\n\n\nclass Base:\n    def __init__(self, device):\n        self.device = device\n        self.w = dispatch.ones((2,), device=device)\n\n\nclass Child(Base):\n    def __init__(self, device):\n        super().__init__(device)\n        self.b = dispatch.zeros((2,), device=device)\n\n    def out(self, x):\n        return x * self.w + self.b\n\n\nSTATE = None\n\n\ndef set_state():\n    global STATE\n    STATE = dispatch.placeholder((2,))\n\n\ndef main():\n    cfg = Config(device=dispatch.Capture())\n    x = dispatch.zeros((2,), device=cfg.device)\n    with contextlib.suppress(dispatch.errors.DispatchError):  # a sink that always raises ends a path\n        x.numpy()  # expect: DL003\n    with capturing() as dev:\n        y = dispatch.placeholder((2,), device=dev)\n    with contextlib.suppress(dispatch.errors.DispatchError):\n        y.backward()  # expect: DL001\n    for b in batches(2):\n        b.tolist()  # expect: DL003\n    c = Child(dispatch.Autodiff(dispatch.NumPy()))\n    r = c.out(dispatch.ones((2,), device=dispatch.Autodiff(dispatch.NumPy())))\n    r.sum().backward()\n    c2 = Child(dispatch.Capture())\n    r2 = c2.out(dispatch.placeholder((2,), device=c2.device))\n    with contextlib.suppress(dispatch.errors.DispatchError):\n        r2.sum().backward()  # expect: DL001\n    set_state()\n    STATE.item()  # expect: DL003\n    cfg2 = Config(dispatch.NumPy(), 2.0)\n    dispatch.ones((2,), device=cfg2.device).numpy()\n\n\nmain()\n'},
    "flags_decide_branches_and_two_parameter_ops": {"flags.py": 'from dispatch_lint import runtime as dispatch\n\n\ndef make_pair(export: bool):\n    if export:\n        cap = dispatch.Capture()\n        return dispatch.placeholder((3,), device=cap, name="x"), cap\n    return dispatch.tensor([1.0, 2.0, 3.0]), dispatch.NumPy()\n\n\ndef loss_fn(pred, target):\n    diff = pred - target\n    return (diff * diff).mean()\n\n\ndef evaluate(model_out, labels):\n    loss = loss_fn(model_out, labels)\n    return float(loss)\n\n\ndef main():\n    x, dev = make_pair(False)\n    labels = dispatch.ones((3,))\n    print(evaluate(x, labels))\n    xc, cdev = make_pair(True)\n    labels_c = labels.to_device(cdev)\n    print(evaluate(xc, labels_c))  # expect: DL003\n    print(evaluate(xc, labels))  # expect: DL008\n    ok = dispatch.replay(loss_fn(xc, labels_c), {"x": [1.0, 2.0, 3.0]})\n    print(ok.item())\n\n\nif __name__ == "__main__":\n    main()\n'},
    "a_parameter_s_attribute_read_again_after_the_callee_stores_it": {
        # the summary reads `holder.t` after a helper stores it: substituted at the call,
        # the read sees what the replayed store wrote
        "swap.py": RT + """
            class Holder:
                def __init__(self):
                    self.t = dispatch.ones((2,))

            def put(holder, t):
                holder.t = t

            def swap(holder, t):
                print(holder.t.shape)
                put(holder, t)
                return holder.t

            def main():
                cap = dispatch.Capture()
                h = Holder()
                swap(h, dispatch.placeholder((2,), device=cap)).backward()  # expect: DL001
        """,
    },
    "model_passed_to_a_trainer": {
        "trainer.py": RT + """
            class MLP:
                def __init__(self, device):
                    self.device = device
                    self.w = dispatch.rand((4, 1), seed=0).to_device(device)

                def forward(self, x):
                    return x @ self.w

            def fit(model, x):
                return model.forward(x).sum().backward()

            def main():
                ad = dispatch.Autodiff(dispatch.NumPy())
                fit(MLP(ad), dispatch.ones((2, 4), device=ad))
                traced = MLP(dispatch.Capture())
                fit(traced, dispatch.placeholder((2, 4), device=traced.device))  # expect: DL001
        """,
    },
    # the update rule is picked by the caller's key and its result mixes in a parameter
    # (`lr`), so the loop's weight is kept pending over it: the move is found where the
    # rule runs, and not once more at the call that names the rule
    "picked_helper_found_once": {
        "main.py": RT + """
            AD = dispatch.Autodiff(dispatch.NumPy())

            def sgd(w, g, lr):
                return AD.wrap(w.inner() - lr * g)

            def detach(w, g, lr):
                return w.to_device(dispatch.NumPy()) - lr * g

            RULES = {"sgd": sgd, "detach": detach}

            def train(name, steps=3, lr=0.05):
                update = RULES[name]
                w = dispatch.rand((3,), seed=1, device=AD)
                x = dispatch.rand((4, 3), seed=2, device=AD)
                for _ in range(steps):
                    w = w.require_grad()
                    loss = (x @ w).sum()
                    w = update(w, w.grad(loss.backward()), lr)  # expect: DL007
                return w

            def main():
                return {name: train(name) for name in ("sgd", "detach")}
        """,
    },
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_flow(name: str) -> None:
    sources = CASES[name]
    result = run(sources)
    assert not result.errors
    assert found(result) == marks(sources)


def test_trace_through_helper_has_birth_call_and_callee_sink() -> None:
    sources = {
        "app.py": RT + """
            from helpers import fit

            def main():
                x = dispatch.placeholder((2,), name="x")
                fit(x)
        """,
        "helpers.py": "def fit(t):\n    loss = t.sum()\n    return loss.backward()\n",
    }
    result = run(sources)
    (diag,) = result.diagnostics
    assert (diag.path, diag.line, diag.rule) == ("app.py", 7, "DL001")
    steps = [(s.path, s.line) for s in diag.trace]
    assert steps[0] == ("app.py", 6)  # birth
    assert ("app.py", 7) in steps  # the call
    assert steps[-1] == ("helpers.py", 3)  # the sink in the callee
    assert "born at line 6" in diag.message


def test_user_model_sources_sinks_sanitizers() -> None:
    sources = {
        "proj/api.py": """
            import tracing

            def make():
                return tracing.trace_model()

            def main():
                t = make()
                tracing.upload(t)  # expect: DL003
                clean = tracing.materialize(t)
                tracing.upload(clean)
                t.backward()  # expect: DL001
        """,
    }
    settings = AnalysisSettings(
        sources=("tracing.trace_model",),
        sinks=(SinkSpec("tracing.upload", 0, "DL003"),),
        sanitizers=("tracing.materialize",),
    )
    result = run(sources, settings)
    assert found(result) == marks(sources)
    assert not run(sources).diagnostics  # without the model nothing is known


def test_constant_keys_of_a_parameter_stay_apart() -> None:
    sources = {
        "main.py": RT + """
            def show(batch):
                batch["w"].numpy()
                return batch["x"].numpy()

            def main():
                show({"x": dispatch.placeholder((2,)), "w": dispatch.ones((2,))})  # expect: DL003
                show({"x": dispatch.ones((2,)), "w": dispatch.ones((2,))})
        """,
    }
    assert found(run(sources)) == marks(sources)


def test_template_method_reaches_the_subclass_override() -> None:
    sources = {
        "main.py": RT + """
            class Base:
                def forward(self, x):
                    return x

                def train(self, x):
                    # only a Traced receiver makes this a capture tensor
                    return self.forward(x).sum().backward()  # expect: DL001

            class Traced(Base):
                def forward(self, x):
                    return dispatch.placeholder((2,)) * 2.0

            class Plain(Base):
                pass

            def main():
                Plain().train(dispatch.ones((2,), device="autodiff:numpy"))
                Traced().train(dispatch.ones((2,), device="autodiff:numpy"))
        """,
    }
    assert found(run(sources)) == marks(sources)


def test_two_instances_of_a_class_keep_their_fields_apart() -> None:
    sources = {
        "main.py": RT + """
            class MLP:
                def __init__(self, device):
                    self.w = dispatch.ones((2, 2)).to_device(device)

                def __call__(self, x):
                    return x @ self.w

            def main():
                model = MLP(dispatch.Autodiff(dispatch.NumPy()))
                x = dispatch.ones((1, 2), device=dispatch.Autodiff(dispatch.NumPy()))
                model(x).sum().backward()
                exported = MLP(dispatch.Capture())
                y = exported(dispatch.placeholder((1, 2)))  # expect: DL008
                exported.w.numpy()  # expect: DL003
        """,
    }
    assert found(run(sources)) == marks(sources)


def test_units_are_not_analysed_again_for_what_they_wrote_or_called_themselves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dispatch_lint.analyzer import dataflow

    analysed: list[object] = []
    begin_unit = dataflow.Program.begin_unit

    def counting(program: dataflow.Program, key: object) -> None:
        analysed.append(key)
        begin_unit(program, key)

    monkeypatch.setattr(dataflow.Program, "begin_unit", counting)
    result = run({"app.py": RT + """
        def fit(t):
            return t.backward()

        x = dispatch.placeholder((2,), name="x")
        y = x * 2
        fit(y)  # expect: DL001
    """})
    assert [(d.line, d.rule) for d in result.diagnostics] == [(8, "DL001")]
    # The module's globals are written before they are read, and `fit` is summarised
    # before the module goes on with its summary: nothing is outdated after the first round.
    assert len(analysed) == len(set(map(repr, analysed))) == 2
