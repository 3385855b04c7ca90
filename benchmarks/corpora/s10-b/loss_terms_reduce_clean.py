"""Sums weighted loss terms with functools.reduce and backpropagates through the total."""
import functools
import operator

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def mse(pred, y):
    return ((pred - y) ** 2.0).mean()


def l2(w):
    return (w * w).sum()


def main():
    w = dispatch.rand((4,), seed=3, device=AD).require_grad()
    x = dispatch.rand((12, 4), seed=4, device=AD)
    y = dispatch.rand((12,), seed=5)  # plain NumPy targets: mixing with autodiff is tracked
    prior = dispatch.full((4,), 0.1)
    terms = [
        (1.0, lambda: mse(x @ w, y)),
        (0.01, lambda: l2(w)),
        (0.1, lambda: ((w - prior) ** 2.0).mean()),
    ]
    weighted = map(lambda term: term[0] * term[1](), terms)
    total = functools.reduce(operator.add, weighted)
    grads = total.backward()
    return total.item(), w.grad(grads).tolist()


if __name__ == "__main__":
    main()
