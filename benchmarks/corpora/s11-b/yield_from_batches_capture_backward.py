"""Train over epochs of generated shards chained with yield from, then a trace pass."""
from dispatch_lint import runtime as dispatch


def shard(seed, n, device):
    for i in range(n):
        x = dispatch.rand((8, 3), seed=seed + i, device=device)
        yield x, x.sum(axis=1, keepdims=True) * 0.5


def epoch(seeds, device, per_shard=2):
    for seed in seeds:
        yield from shard(seed, per_shard, device)


def main():
    w = dispatch.rand((3, 1), seed=0, device="autodiff:numpy").require_grad()
    passes = [("train", "numpy", [0, 10]), ("trace", "capture", [100])]
    for stage, data_device, seeds in passes:
        for x, y in epoch(seeds, data_device):
            w_in = w if stage == "train" else w.inner().to_device(x.device)
            loss = ((x @ w_in - y) ** 2).mean()
            grads = loss.backward()  # expect: DL001
            w = (w - 0.1 * w.grad(grads)).require_grad()
        print(stage, "done", repr(loss))


if __name__ == "__main__":
    main()
