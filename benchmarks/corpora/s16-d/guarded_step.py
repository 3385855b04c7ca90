"""Fine-tune a bias vector from a work queue, skipping malformed batches, behind @no_capture."""

import logging

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

log = logging.getLogger("finetune")

AD = dispatch.Autodiff(dispatch.NumPy())


@guards.no_capture
def train_step(bias, batch, lr=0.05):
    if batch["x"].shape[-1] != bias.shape[0]:
        raise ValueError(f"batch width {batch['x'].shape[-1]} != {bias.shape[0]}")
    pred = batch["x"] + bias
    loss = ((pred - batch["y"]) ** 2).mean()
    grads = loss.backward()
    return (bias - bias.grad(grads) * lr).require_grad(), loss.item()


def batch_factory(width):
    def make(seed, kind="train"):
        if kind == "export":
            graph = dispatch.Capture()
            return {"x": dispatch.placeholder((2, width), device=graph, name="x"),
                    "y": dispatch.zeros((2, width)).to_device(graph)}
        return {"x": dispatch.rand((2, width), seed=seed), "y": dispatch.ones((2, width))}
    return make


def build_queue(width):
    make = batch_factory(width)
    queue = [make(seed) for seed in range(3)]
    queue.append({"x": dispatch.rand((2, width + 1), seed=9), "y": dispatch.ones((2, 1))})
    queue.append({"y": dispatch.ones((2, width))})
    queue.append(make(0, kind="export"))
    return queue


def main():
    width = 4
    bias = dispatch.zeros((width,), device=AD).require_grad()
    history = []
    for batch in build_queue(width):
        try:
            bias, loss = train_step(bias, batch)  # expect: DL001
        except (ValueError, KeyError) as exc:
            log.warning("skipping batch: %s", exc)
            continue
        history.append(loss)
    print(history, bias)


if __name__ == "__main__":
    main()
