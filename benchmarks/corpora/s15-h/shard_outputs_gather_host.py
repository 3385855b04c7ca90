"""Run a model head on several shards and gather the outputs on the host for checkpointing."""
from dispatch_lint import runtime as dispatch


def shard_forward(weights, x):
    return (x @ weights).tanh()


def gather_to_host(names, outputs):
    return {name: out.to_device("numpy") for name, out in zip(names, outputs)}


def main():
    weights = dispatch.rand((3, 2), seed=5)
    shard_inputs = [dispatch.rand((4, 3), seed=s) for s in (11, 12)]
    devices = ["numba", "numpy"]
    outputs = [
        shard_forward(weights.to_device(dev), x.to_device(dev))
        for dev, x in zip(devices, shard_inputs)
    ]
    export_cap = dispatch.Capture()
    serving_x = dispatch.placeholder((4, 3), device=export_cap, name="serving_x")
    outputs.append(shard_forward(weights.to_device(export_cap), serving_x))
    names = [f"shard_{i}" for i, _ in enumerate(outputs)]
    host = gather_to_host(names, outputs)  # expect: DL002
    summary = {name: round(t.sum().item(), 3) for name, t in host.items()}
    print(summary)
    return summary


if __name__ == "__main__":
    main()
