"""Export a feature normalizer once and run it over every loader batch on the fused backend."""
import itertools

from dispatch_lint import runtime as dispatch


def loader(rows, size):
    it = iter(rows)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def build_normalizer(width):
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, width), device=cap, name="x")
    centered = x - x.mean(axis=0)
    std = (centered ** 2).mean(axis=0).sqrt() + 1e-6
    return centered / std, x


def main():
    rows = [[float((i * 7 + j * 3) % 5) - j for j in range(3)] for i in range(6)]
    normalized, traced_input = build_normalizer(3)
    print(f"traced: {traced_input}")
    program = dispatch.export(normalized)
    results = []
    for index, batch in enumerate(loader(rows, 2)):
        out = program.run({"x": batch}, device="numba")
        results.append((index, out.abs().max(), out.mean()))
    for index, peak, mean in sorted(results, key=lambda r: r[1].item(), reverse=True):
        print(f"batch {index}: peak={peak.item():.3f} mean={mean.item():+.2e}")
    print(f"last graph output: {normalized}")
    return results


if __name__ == "__main__":
    main()
