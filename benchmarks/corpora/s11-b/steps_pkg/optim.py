"""Optimizer updates, written to be bound with functools.partial."""
from dispatch_lint.runtime import guards


@guards.no_capture
def sgd(w, grads, lr):
    return (w - lr * w.grad(grads)).require_grad()


def momentum(w, grads, lr, beta, state):
    g = w.grad(grads)
    state["v"] = g if "v" not in state else state["v"] * beta + g
    return (w - lr * state["v"]).require_grad()
