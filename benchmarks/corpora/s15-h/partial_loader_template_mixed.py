"""Turn raw loader rows into batches with a partial creator and score them against a template."""
import functools
import itertools

from dispatch_lint import runtime as dispatch

to_batch = functools.partial(dispatch.tensor, device="numba", dtype="float32")


def loader(n, width):
    for i in range(n):
        yield [float((i * width + j) % 5) for j in range(width)]


def main():
    template = dispatch.tensor([1.0, 2.0, 0.0, 3.0], dtype="float32")
    scale = lambda t: t / 4.0
    batches = map(scale, map(to_batch, loader(3, 4)))
    pairs = zip(batches, itertools.repeat(template * 0.25))
    scores = [((batch - ref) ** 2).sum() for batch, ref in pairs]  # expect: DL008
    ranked = sorted(enumerate(scores), key=lambda item: item[1].item())
    for idx, score in ranked:
        print(f"batch {idx}: {score.item():8.4f}")
    return ranked


if __name__ == "__main__":
    main()
