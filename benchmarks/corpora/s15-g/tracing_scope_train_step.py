"""Trainer with a tracing scope that swaps its parameters onto a capture device for export."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


class TracingScope:
    def __init__(self, trainer):
        self.trainer = trainer
        self.saved = None

    def __enter__(self):
        self.saved = self.trainer.params
        cap = dispatch.Capture()
        self.trainer.params = {k: p.inner().to_device(cap) for k, p in self.saved.items()}
        return cap

    def __exit__(self, *exc):
        self.trainer.params = self.saved


class Trainer:
    def __init__(self, params, lr=0.1):
        self.params = {k: AD.wrap(v).require_grad() for k, v in params.items()}
        self.lr = lr
        self.on_step = []

    def tracing(self):
        return TracingScope(self)

    def forward(self, x):
        return (x @ self.params["w1"]).relu() @ self.params["w2"]

    def train_step(self, x, y):
        loss = ((self.forward(x) - y) ** 2).mean()
        grads = loss.backward()
        self.params = {k: AD.wrap(p.inner() - self.lr * p.grad(grads)).require_grad()
                       for k, p in self.params.items()}
        for fn in self.on_step:
            fn(loss.inner())
        return loss


def main():
    trainer = Trainer({"w1": dispatch.rand((4, 8), seed=1), "w2": dispatch.rand((8, 1), seed=2)})
    trainer.on_step.append(lambda loss: print(f"loss {loss.item():.4f}"))
    x, y = dispatch.rand((16, 4), seed=3), dispatch.rand((16, 1), seed=4)
    for _ in range(3):
        trainer.train_step(x, y)
    with trainer.tracing() as cap:
        feats = dispatch.placeholder((16, 4), device=cap, name="feats")
        target = dispatch.placeholder((16, 1), device=cap, name="target")
        loss = trainer.train_step(feats, target)  # expect: DL001
    program = dispatch.export(loss)
    print(program.run({"feats": x, "target": y}).item())
    return program


if __name__ == "__main__":
    main()
