"""Train a small regressor on sharded batches, summing shard losses with functools.reduce."""

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
    train_shards, val_shards = make_shards(3, 10), make_shards(2, 30)
    history = {}
    for step in range(3):
        eval_params = {name: p.inner() for name, p in params.items()}
        train_loss = functools.partial(shard_loss, params)
        eval_loss = functools.partial(shard_loss, eval_params)
        val = functools.reduce(operator.add, map(eval_loss, val_shards))
        train = functools.reduce(operator.add, map(eval_loss, train_shards))
        grads = train.backward()  # expect: DL006
        params = {name: (p - p.grad(grads) * 0.1).require_grad() for name, p in params.items()}
        history.setdefault("val", []).append(val.item())
        history.setdefault("train", []).append(train.item())
    for name, values in history.items():
        print(name, [round(v, 4) for v in values])
