"""Evaluate a small MLP over batches streamed from the fast Numba loader."""

from functools import partial

from dispatch_lint import runtime as dispatch

BATCH_DEVICE = dispatch.Numba()
SIZES = [(4, 8), (8, 2)]
CREATORS = {
    "weight": lambda shape, seed: dispatch.rand(shape, seed=seed),
    "bias": lambda shape, seed: dispatch.zeros((shape[1],)),
}


def init_params(sizes):
    weights, biases = [], []
    for seed, shape in enumerate(sizes):
        weights.append(CREATORS["weight"](shape, seed))
        biases.append(CREATORS["bias"](shape, seed))
    return weights, biases


def batches(count, features, device):
    make = partial(dispatch.rand, device=device)
    for i in range(count):
        yield make((3, features), seed=100 + i)


def forward(weights, biases, x):
    for w, b in zip(weights, biases):
        x = (x @ w + b).relu()
    return x


def evaluate(count):
    weights, biases = init_params(SIZES)
    totals = []
    for i, x in enumerate(batches(count, SIZES[0][0], BATCH_DEVICE)):
        out = forward(weights, biases, x)  # expect: DL008
        totals.append((i, out.sum().item()))
    return totals


def main():
    for i, total in evaluate(3):
        print(f"batch {i}: {total:.4f}")


if __name__ == "__main__":
    main()
