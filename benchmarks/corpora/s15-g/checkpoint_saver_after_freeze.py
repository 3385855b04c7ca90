"""Epoch-end checkpoint saver attached to a trainer that is frozen for export at the end."""
from dispatch_lint import runtime as dispatch

HOST = dispatch.NumPy()


class CheckpointSaver:
    def __init__(self, every=1):
        self.every = every
        self.saved = {}

    def on_epoch_end(self, trainer):
        if trainer.epoch % self.every == 0:
            self.saved[trainer.epoch] = {
                name: p.to_device(HOST).numpy() for name, p in trainer.state.items()
            }


class Trainer:
    def __init__(self, state, callbacks):
        self.state = state
        self.callbacks = callbacks
        self.epoch = 0
        self.ad = dispatch.Autodiff(HOST)

    def train_epoch(self, x, y, lr=0.1):
        w = self.ad.wrap(self.state["w"]).require_grad()
        loss = ((self.ad.wrap(x) @ w + self.state["b"] - y) ** 2).mean()
        self.state["w"] = self.state["w"] - lr * w.grad(loss.backward())

    def end_epoch(self):
        self.epoch += 1
        for cb in self.callbacks:
            cb.on_epoch_end(self)

    def freeze(self, cap):
        self.state = {name: p.to_device(cap) for name, p in self.state.items()}


def main():
    saver = CheckpointSaver()
    trainer = Trainer({"w": dispatch.zeros((3, 1)), "b": dispatch.full((1,), 0.1)}, [saver])
    x, y = dispatch.rand((6, 3), seed=5), dispatch.rand((6, 1), seed=6)
    for _ in range(4):
        trainer.train_epoch(x, y)
        trainer.end_epoch()
    cap = dispatch.Capture()
    trainer.freeze(cap)
    feats = dispatch.placeholder((6, 3), device=cap, name="feats")
    program = dispatch.export(feats @ trainer.state["w"] + trainer.state["b"])
    trainer.end_epoch()  # expect: DL002
    print(sorted(saver.saved), program.run({"feats": x}).shape)
    return saver.saved


if __name__ == "__main__":
    main()
