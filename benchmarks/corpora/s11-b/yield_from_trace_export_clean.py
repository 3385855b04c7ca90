"""Train over shards chained with yield from, then trace one shard's forward pass for export."""
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
        for x, y in epoch(seeds, data_device, per_shard=1 if stage == "trace" else 2):
            if x.is_capture:
                loss = ((x @ w.inner().to_device(x.device) - y) ** 2).mean()
                program = dispatch.export(loss)
                continue
            loss = ((x @ w - y) ** 2).mean()
            grads = loss.backward()
            w = (w - 0.1 * w.grad(grads)).require_grad()
    print("exported", len(program.to_json()), "bytes; weights", w.inner().tolist())


if __name__ == "__main__":
    main()
