"""Selects an optimizer update rule by name from a table and trains a small model with it."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def sgd(w, g, state, lr):
    return AD.wrap(w.inner() - lr * g)


def momentum(w, g, state, lr, beta=0.9):
    state["v"] = beta * state.get("v", 0.0) + g
    return AD.wrap(w.inner() - lr * state["v"])


def sign_sgd(w, g, state, lr):
    step = dispatch.tensor(g.numpy() > 0, dtype="float32") * 2.0 - 1.0
    return w.to_device(dispatch.NumPy()) - lr * step


OPTIMIZERS = {"sgd": sgd, "momentum": momentum, "sign": sign_sgd}


def train(name, steps=3, lr=0.05):
    update = OPTIMIZERS[name]
    w = dispatch.rand((3,), seed=1, device=AD)
    x = dispatch.rand((4, 3), seed=2, device=AD)
    state = {}
    for _ in range(steps):
        w = w.require_grad()
        loss = dispatch.sigmoid(x @ w).sum()
        w = update(w, w.grad(loss.backward()), state, lr)  # expect: DL007
    return loss.item()


def main():
    return {name: train(name) for name in ("sgd", "momentum", "sign")}


if __name__ == "__main__":
    main()
