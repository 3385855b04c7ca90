"""The intra-procedural data flow, one construct per test: each source marks the lines a rule
must flag with ``# expect: DL00x``; every other line must stay silent."""

from __future__ import annotations

import re
import textwrap

import pytest

from dispatch_lint.analyzer.engine import AnalysisResult, SourceFile, analyze

HEADER = "from dispatch_lint import runtime as dispatch\n"
MARK = re.compile(r"#\s*expect:\s*(DL\d{3}(?:\s*,\s*DL\d{3})*)")


def run(source: str) -> AnalysisResult:
    return analyze([SourceFile("case.py", (HEADER + textwrap.dedent(source)).encode())])


def marks(source: str) -> set[tuple[int, str]]:
    out = set()
    lines = (HEADER + textwrap.dedent(source)).splitlines()
    for number, line in enumerate(lines, start=1):
        match = MARK.search(line)
        if match:
            out.update((number, r.strip()) for r in match.group(1).split(","))
    return out


CASES: dict[str, str] = {
    "alias_and_reassignment_kills": """
        x = dispatch.placeholder((3,), name="x")
        y = x
        y.backward()  # expect: DL001
        y = dispatch.tensor([1.0], device=dispatch.Autodiff(dispatch.NumPy()))
        y.backward()
    """,
    "if_else_join_may_be_capture": """
        def main(export):
            if export:
                t = dispatch.placeholder((2,), name="t")
            else:
                t = dispatch.tensor([1.0, 2.0], device="autodiff:numpy")
            t.sum().backward()  # expect: DL001
    """,
    "loop_carried_to_fixpoint": """
        def main():
            acc = dispatch.zeros((2,), device="autodiff:numpy")
            cap = dispatch.Capture()
            for i in range(3):
                acc.sum().backward()  # expect: DL001
                acc = dispatch.ones((2,), device=cap)
    """,
    "while_loop_and_break": """
        def main():
            t = dispatch.ones((2,))
            while True:
                t = dispatch.placeholder((2,))
                break
            t.numpy()  # expect: DL003
    """,
    "try_except_finally": """
        def main():
            t = dispatch.ones((2,))
            try:
                t = dispatch.placeholder((2,))
                risky()
            except ValueError:
                t.item()  # expect: DL003
            finally:
                print(t)
    """,
    "with_block": """
        import contextlib
        def main():
            with contextlib.suppress(ValueError):
                x = dispatch.placeholder((2,), name="x")
            x.to_device(dispatch.NumPy())  # expect: DL002
    """,
    "match_statement": """
        def main(kind):
            match kind:
                case "export":
                    dev = dispatch.Capture()
                case _:
                    dev = dispatch.NumPy()
            t = dispatch.ones((2,), device=dev)
            t.tolist()  # expect: DL003
    """,
    "comprehension_and_generator": """
        from contextlib import suppress
        def main():
            xs = [dispatch.placeholder((2,), name=f"x{i}") for i in range(2)]
            with suppress(dispatch.errors.DispatchError):  # a sink that always raises ends a path
                vals = [x.item() for x in xs]  # expect: DL003
            total = sum(float(x) for x in xs)  # expect: DL003
    """,
    "lambda_bound_to_name": """
        def main():
            step = lambda t: t.backward()
            x = dispatch.placeholder((2,))
            step(x)  # expect: DL001
            step(dispatch.ones((2,), device="autodiff:numpy"))
    """,
    "walrus": """
        def main():
            if (x := dispatch.placeholder((2,))) is not None:
                x.numpy()  # expect: DL003
    """,
    "tuple_unpacking_keeps_slots": """
        from contextlib import suppress
        def main():
            a, b = dispatch.placeholder((2,)), dispatch.ones((2,), device="autodiff:numpy")
            b.backward()
            with suppress(dispatch.errors.DispatchError):
                a.backward()  # expect: DL001
            (c, d), e = (a, b), 1
            d.backward()
            c.backward()  # expect: DL001
    """,
    "augmented_assignment_mixes": """
        def main():
            acc = dispatch.zeros((2,))
            acc += dispatch.placeholder((2,))  # expect: DL008
    """,
    "containers_dict_slots": """
        from contextlib import suppress
        def main():
            batch = {"x": dispatch.placeholder((2,)), "w": dispatch.ones((2,))}
            batch["w"].numpy()
            with suppress(dispatch.errors.DispatchError):
                batch["x"].numpy()  # expect: DL003
            items = [dispatch.ones((2,))]
            items.append(dispatch.placeholder((2,)))
            for t in items:
                t.item()  # expect: DL003
    """,
    "self_attr_across_methods": """
        class Exporter:
            def __init__(self):
                self.dev = dispatch.Capture()
            def inputs(self):
                return dispatch.placeholder((2,), device=self.dev, name="x")
            def check(self):
                x = self.inputs()
                x.backward()  # expect: DL001
                y = x.to_device(self.dev)
                return y
    """,
    "module_global_device": """
        DEV = dispatch.device("capture")
        def make():
            return dispatch.ones((2,), device=DEV)
        def main():
            make().numpy()  # expect: DL003
    """,
    "guards_narrow": """
        from dispatch_lint.runtime import guards
        def a(t):
            if dispatch.is_capture(t):
                return None
            return t.numpy()
        def b(t):
            if not t.is_capture:
                t.item()
        def c(t):
            assert not guards.is_capture(t)
            return t.tolist()
        def d(t):
            guards.ensure_not_capture(t)
            return float(t)
        def main(flag):
            x = dispatch.placeholder((2,))
            a(x)
            b(x)
            if dispatch.is_capture(x):
                x.numpy()  # expect: DL003
            # ensure_not_capture lets a value that may be capture through as real.
            d(x if flag else dispatch.ones((2,)))
            c(x)
            d(x)
            x.numpy()  # c() and d() raise for capture tensors: x is real here
    """,
    "guards_ensure_certain_capture": """
        from dispatch_lint.runtime import guards
        def d(t):
            guards.ensure_not_capture(t)
            return float(t)
        def main():
            x = dispatch.placeholder((2,))
            # ensure_not_capture raises on a value that is certainly capture (DL001)
            d(x)  # expect: DL001
    """,
    "replay_results_are_real": """
        def main():
            x = dispatch.placeholder((2,), name="x")
            y = (x * 2.0).exp()
            out = dispatch.replay(y, {"x": [1.0, 2.0]})
            out.numpy()
            prog = dispatch.export(y)
            res = prog.run({"x": [1.0, 2.0]}, device=dispatch.Numba())
            res.tolist()
            (res + dispatch.ones((2,))).numpy()  # expect: DL008
    """,
    "device_strings_and_positional": """
        from contextlib import suppress
        def main():
            a = dispatch.tensor([1.0], dispatch.Numba())
            b = dispatch.tensor([1.0], "numpy")
            with suppress(dispatch.errors.DispatchError):
                c = a + b  # expect: DL008
            d = dispatch.Autodiff(dispatch.device("capture"))  # expect: DL004
            e = dispatch.device("autodiff:capture")  # expect: DL004
            f = dispatch.Autodiff("autodiff:numpy")  # expect: DL005
    """,
    "unknown_is_not_capture": """
        import somewhere
        def main(t):
            t.backward()
            somewhere.make().to_device(dispatch.NumPy())
            u = somewhere.tensor()
            u.numpy()
    """,
    "lookalike_methods_stay_silent": """
        class Loss:
            def backward(self):
                return 0
            def numpy(self):
                return 1
        def main():
            loss = Loss()
            loss.backward()
            loss.numpy()
    """,
    "dead_code_is_silent": """
        def main():
            x = dispatch.placeholder((2,))
            if False:
                x.backward()
            if 0:
                x.numpy()
            return x
            x.item()
    """,
    "string_formatting": """
        from contextlib import suppress
        def main():
            x = dispatch.placeholder((), name="x")
            print(f"{x}", str(x), repr(x), x.shape, len(x))
            with suppress(dispatch.errors.DispatchError):
                print(f"{x:.2f}")  # expect: DL003
            with suppress(dispatch.errors.DispatchError):
                print(format(x, ".1f"))  # expect: DL003
            with suppress(dispatch.errors.DispatchError):
                if x > 0:  # expect: DL003
                    pass
            while x:  # expect: DL003
                break
    """,
    "autodiff_rules": """
        from contextlib import suppress
        def main():
            w = dispatch.tensor([1.0])
            with suppress(dispatch.errors.DispatchError):  # a sink that always raises ends a path
                w.require_grad()  # expect: DL006
            ad = dispatch.Autodiff(dispatch.NumPy())
            v = dispatch.tensor([1.0], device=ad).require_grad()
            loss = (v * v).sum()
            grads = loss.backward()
            g = v.grad(grads)
            with suppress(dispatch.errors.DispatchError):
                g.backward()  # expect: DL006
            with suppress(dispatch.errors.DispatchError):
                v.to_device(dispatch.NumPy())  # expect: DL007
            v.inner().to_device(dispatch.Numba())
            mixed = v * dispatch.ones((1,))
            mixed.backward()
            bad = v * dispatch.ones((1,), device=dispatch.Numba())  # expect: DL008
    """,
    "two_capture_devices": """
        from contextlib import suppress
        def main():
            c1, c2 = dispatch.Capture(), dispatch.Capture()
            x = dispatch.placeholder((2,), device=c1)
            y = dispatch.placeholder((2,), device=c2)
            z = x + dispatch.ones((2,)).to_device(c1)
            with suppress(dispatch.errors.DispatchError):
                w = x + y  # expect: DL008
            x.to_device(c2)  # expect: DL002
            x.to_device(c1)
    """,
    "training_guard": """
        from contextlib import suppress
        from dispatch_lint.runtime import guards
        def main():
            with suppress(dispatch.errors.DispatchError), guards.training():
                x = dispatch.placeholder((2,))  # expect: DL001
            y = dispatch.placeholder((2,))
            with guards.training():
                z = y * 2.0  # expect: DL001
    """,
    "import_aliases_and_programs": """
        from contextlib import suppress
        from dispatch_lint.runtime import Capture as C, placeholder as ph, NumPy
        import dispatch_lint.runtime as rt
        def main():
            x = ph((2,), device=C())
            with suppress(rt.errors.DispatchError):
                x.to_device(NumPy())  # expect: DL002
            prog = rt.export(x * 2.0)
            out = rt.Program.from_json(prog.to_json()).run({"x": [1.0, 2.0]})
            out.numpy()
            ad_out = prog.run({"x": [1.0, 2.0]}, device=rt.Autodiff(rt.NumPy()))
            ad_out.sum().backward()
            rt.replay(x, {"x": [1.0, 2.0]}).backward()  # expect: DL006
    """,
    "guard_on_a_field": """
        class Holder:
            def __init__(self, x):
                self.x = x
            def read(self):
                if dispatch.is_capture(self.x):
                    return None
                return self.x.numpy()
        def main():
            Holder(dispatch.placeholder((2,))).read()
    """,
    "device_strings_in_every_quoting": '''
        for name in ("capture", 'capture', """capture""", r"capture", "\\x63apture"):
            dispatch.zeros((2,), device=name).numpy()  # expect: DL003
        dispatch.zeros((2,), device=b"capture").numpy()
        dispatch.zeros((2,), device='capture' if False else "numpy").numpy()
        dispatch.zeros((2,), device=f"capture").numpy()
    ''',
    # A method on the result of an operation between two parameters, one of them made on an
    # object's device: the calls it reaches are looked up through the object (this was an
    # internal error, "'Sym' object has no attribute 'kind'").
    "method_on_an_operation_of_two_parameters": """
        class Real:
            device = "numpy"

        class Export:
            device = "capture"

        def fit(cfg, x):
            w = dispatch.zeros((3,), device=cfg.device)
            return (w - x).sum()

        fit(Real(), dispatch.ones((3,))).item()
        fit(Export(), dispatch.ones((3,)))  # expect: DL008
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_construct(name: str) -> None:
    source = CASES[name]
    result = run(source)
    assert not result.errors
    found = {(d.line, d.rule) for d in result.diagnostics}
    assert found == marks(source)


def test_trace_names_birth_and_sink() -> None:
    result = run(
        """
        x = dispatch.placeholder((3,), name="x")
        y = x * 2.0
        y.backward()
        """
    )
    (diag,) = result.diagnostics
    assert (diag.rule, diag.line) == ("DL001", 5)
    assert diag.message.startswith("Capture tensors do not support autodiff")
    assert "born at line 3" in diag.message
    lines = [step.line for step in diag.trace]
    assert lines[0] == 3 and lines[-1] == 5
    assert any("assigned to `y`" in step.message for step in diag.trace)
    assert diag.trace[-1].message == "`y.backward()` is called"
