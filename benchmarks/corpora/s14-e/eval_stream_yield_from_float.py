"""Stream evaluation losses from eager shards and a traced shard into one running average."""
from dispatch_lint import runtime as dispatch


def eager_shard(seeds):
    for seed in seeds:
        pred = dispatch.rand((8,), seed=seed)
        yield ((pred - 0.5) ** 2).mean()


def traced_shard(name):
    cap = dispatch.Capture()
    pred = dispatch.placeholder((8,), device=cap, name=name)
    loss = ((pred - 0.5) ** 2).mean()
    program = dispatch.export(loss)
    yield loss
    return program


def evaluation_stream():
    yield from eager_shard(range(3))
    program = yield from traced_shard("holdout")
    print("exported holdout with", program)
    yield from eager_shard([7])


def main():
    total = 0.0
    count = 0
    for loss in evaluation_stream():
        total += float(loss)  # expect: DL003
        count += 1
    mean = total / count
    print(f"mean loss {mean:.4f} over {count} shards")
    return mean


if __name__ == "__main__":
    main()
