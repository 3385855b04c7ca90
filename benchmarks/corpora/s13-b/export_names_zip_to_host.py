"""Export several heads of a tiny model and copy each head's output to the host for a summary."""
import numpy as np

from dispatch_lint import runtime as dispatch


def heads(x, weights):
    return [(x @ w).tanh() for w in weights]


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    weights = [dispatch.rand((3, 2), seed=s).to_device(cap) for s in range(3)]
    names = ["intent", "slot", "domain"]
    outputs = heads(x, weights)

    program = dispatch.export(*outputs)
    ran = program.run({"x": np.ones((2, 3), dtype=np.float32)})

    summary = {}
    for i, (name, out) in enumerate(zip(names, ran)):
        summary[name] = (i, out.sum().item())
    host = dispatch.NumPy()
    copies = {}
    for idx, (name, out) in enumerate(zip(names, outputs)):
        copies[name] = out.to_device(host)  # expect: DL002
        print(idx, name, copies[name].shape)
    return summary, copies


if __name__ == "__main__":
    main()
