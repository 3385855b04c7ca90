"""Trainer whose events dispatch to handlers registered in a dict by decorator."""
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


class Engine:
    def __init__(self, weight):
        self.weight = weight
        self.handlers = {}
        self.state = {"epoch": 0, "losses": []}

    def on(self, event):
        def register(fn):
            self.handlers.setdefault(event, []).append(fn)
            return fn
        return register

    def emit(self, event, value):
        for fn in self.handlers.get(event, []):
            fn(self, value)

    def run(self, x, y, epochs=3, lr=0.2):
        for epoch in range(epochs):
            w = AD.wrap(self.weight).require_grad()
            loss = ((AD.wrap(x) @ w - y) ** 2).mean()
            self.weight = self.weight - lr * w.grad(loss.backward())
            self.state["epoch"] = epoch
            self.emit("step", loss.inner())
        self.emit("completed", self.weight)


def main():
    engine = Engine(dispatch.zeros((2, 1)))
    x, y = dispatch.rand((6, 2), seed=3), dispatch.rand((6, 1), seed=4)

    @engine.on("step")
    def log_loss(eng, loss):
        eng.state["losses"].append(f"{loss:.4f}")

    @engine.on("completed")
    def export_and_check(eng, weight):
        cap = dispatch.Capture()
        feats = dispatch.placeholder((6, 2), device=cap, name="feats")
        program = dispatch.export(feats @ weight.to_device(cap))
        served = program.run({"feats": x})
        eng.state["served_mean"] = float(served.mean())
        eng.state["match"] = bool(np.allclose(served.numpy(), (x @ weight).numpy()))

    engine.run(x, y)
    print(engine.state)
    return engine.state


if __name__ == "__main__":
    main()
