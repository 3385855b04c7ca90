"""Train a small regressor on sharded batches and keep per-split loss curves in a history."""

import functools
import operator

from dispatch_lint import runtime as dispatch


def shard_loss(params, batch):
    x, y = batch
    pred = x @ params["w"] + params["b"]
    return ((pred - y) ** 2).mean()


def make_shards(count, offset):
    return [
        (dispatch.rand((4, 3), seed=offset + i), dispatch.rand((4, 1), seed=offset + 50 + i))
        for i in range(count)
    ]


def main():
    ad = dispatch.Autodiff(dispatch.NumPy())
    make = functools.partial(dispatch.rand, seed=0, device=ad)
    params = {"w": make((3, 1)).require_grad(), "b": make((1,)).require_grad()}
    splits = dict(zip(("train", "val"), (make_shards(3, 10), make_shards(2, 30))))
    history = {}
    for step in range(3):
        eval_params = {name: p.inner() for name, p in params.items()}
        losses = {
            "train": functools.reduce(operator.add, map(functools.partial(shard_loss, params), splits["train"])),
            "val": functools.reduce(operator.add, map(functools.partial(shard_loss, eval_params), splits["val"])),
        }
        grads = losses["train"].backward()
        params = {name: (p - p.grad(grads) * 0.1).require_grad() for name, p in params.items()}
        for split, loss in losses.items():
            history.setdefault(split, []).append((step, loss.item()))
    best_step, best_val = min(history["val"], key=operator.itemgetter(1))
    first, *_, last = history["train"]
    print(best_step, round(best_val, 4), first, last)
