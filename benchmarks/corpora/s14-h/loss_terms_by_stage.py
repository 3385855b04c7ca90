"""Group weighted loss terms by stage and backpropagate each stage's total."""
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def add_term(registry, stage, name, value, weight=1.0):
    registry.setdefault(stage, []).append((name, value, weight))


def stage_total(terms):
    return sum(weight * value for _, value, weight in terms)


def main():
    w = AD.wrap(dispatch.rand((4, 2), seed=7)).require_grad()
    x = dispatch.rand((6, 4), seed=8, device=AD)
    target = dispatch.rand((6, 2), seed=9, device=AD)
    terms = {}
    pred = x @ w
    add_term(terms, "fit", "mse", ((pred - target) ** 2).mean())
    add_term(terms, "fit", "l2", (w * w).sum(), weight=0.01)

    cap = dispatch.Capture()
    probe_x = dispatch.placeholder((6, 4), device=cap, name="x")
    add_term(terms, "export", "probe", (probe_x @ w.inner().to_device(cap)).mean())

    norms = {}
    for stage, stage_terms in sorted(terms.items()):
        grads = stage_total(stage_terms).backward()  # expect: DL001
        g = w.grad(grads)
        norms[stage] = float(np.sqrt((g.numpy() ** 2).sum()))
    return norms


if __name__ == "__main__":
    main()
