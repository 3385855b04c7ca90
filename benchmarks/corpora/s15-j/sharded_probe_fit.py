"""Stream length-sorted batches from data shards and fit a linear probe with gradient steps."""
import functools

from dispatch_lint import runtime as dispatch

CREATORS = {
    "train": functools.partial(dispatch.tensor, device="autodiff:numpy"),
    "eval": functools.partial(dispatch.tensor, device="numpy"),
}
SHARDS = [
    [([1.0, 0.0], 1.0), ([0.0, 1.0], 0.0), ([1.0, 1.0], 1.0)],
    [([0.5, 0.5], 0.5), ([2.0, 0.0], 2.0)],
]


def shard_batches(shard, size=2):
    for start in range(0, len(shard), size):
        yield shard[start:start + size]


def all_batches(shards):
    for shard in sorted(shards, key=len):
        yield from shard_batches(shard)


def fit(batches, make, lr=0.1):
    w = make([[0.0], [0.0]]).require_grad()
    losses = []
    for batch in batches:
        x = make([features for features, _ in batch])
        y = make([[target] for _, target in batch])
        loss = ((x @ w - y) ** 2).mean()
        grads = loss.backward()
        losses.append(loss.item())
        w = w.device.wrap(w.inner() - lr * w.grad(grads)).require_grad()
    return w.inner(), losses


def main():
    make = CREATORS.get("finetune", CREATORS["eval"])
    weights, losses = fit(all_batches(SHARDS), make)  # expect: DL006
    return weights.tolist(), losses


if __name__ == "__main__":
    main()
