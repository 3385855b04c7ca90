"""Train with partial-bound optimizers and on_step hooks, then export and replay the loss graph."""
import functools

from dispatch_lint import runtime as dispatch

from steps_pkg import loop, optim


def main():
    seen = []
    w = dispatch.rand((3, 1), seed=0, device="autodiff:numpy").require_grad()
    hooks = [lambda step, loss: seen.append(loss.item())]
    w = loop.fit(w, functools.partial(optim.sgd, lr=0.1), loop.batches(3), hooks)
    state = {}
    update = functools.partial(optim.momentum, lr=0.05, beta=0.9, state=state)
    w = loop.fit(w, update, loop.batches(3, seed=10), hooks)

    traced = loop.trace_loss(w, batch=8)
    x = dispatch.rand((8, 3), seed=42)
    traced = dispatch.replay(traced, {"x": x, "y": x.sum(axis=1, keepdims=True) * 0.5})
    print(f"train {seen[-1]:.4f} export {traced.item():.4f}")


if __name__ == "__main__":
    main()
