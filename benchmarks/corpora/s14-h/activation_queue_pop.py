"""Queue layer activations for a histogram dump, including the exported graph's input."""
import numpy as np

from dispatch_lint import runtime as dispatch


def forward(x, layers):
    acts = []
    for w in layers:
        x = (x @ w).tanh()
        acts.append(x)
    return acts


def main():
    layers = [dispatch.rand((4, 4), seed=s) for s in range(3)]
    x = dispatch.rand((2, 4), seed=10)
    queue = []
    queue.extend(forward(x, layers))

    cap = dispatch.Capture()
    xs = dispatch.placeholder((2, 4), device=cap, name="x")
    traced = forward(xs, [w.to_device(cap) for w in layers])
    program = dispatch.export(traced[-1])
    queue.insert(0, xs)
    queue.append(program.run({"x": np.zeros((2, 4), dtype=np.float32)}))

    histograms = {}
    while queue:
        act = queue.pop()
        counts, _ = np.histogram(act.numpy(), bins=4, range=(-1.0, 1.0))  # expect: DL003
        histograms[len(histograms)] = counts.tolist()
    return histograms


if __name__ == "__main__":
    main()
