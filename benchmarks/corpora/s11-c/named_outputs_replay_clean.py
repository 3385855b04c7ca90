"""Export a two-head model, replay it and log each named output with three decimals."""
import numpy as np

from dispatch_lint import runtime as dispatch


def build_heads(cap, w_cls, w_reg):
    x = dispatch.placeholder((2, 4), device=cap, name="features")
    return {
        "cls": (x @ w_cls.to_device(cap)).sigmoid().mean(),
        "reg": (x @ w_reg.to_device(cap)).sum(),
    }


def main():
    cap = dispatch.Capture()
    heads = build_heads(cap, dispatch.rand((4, 1), seed=0), dispatch.rand((4, 1), seed=1))
    names = list(heads)
    program = dispatch.export(*heads.values())
    inputs = {"features": np.ones((2, 4), dtype=np.float32)}
    results = program.run(inputs)

    # the dict now holds the replayed values under the same names
    heads.update(zip(names, results))
    lines = []
    for i, (name, value) in enumerate(heads.items()):
        lines.append(f"[{i}] {name:>4}: {value:.3f}")
    print("\n".join(lines))
    return {name: float(value) for name, value in heads.items()}


if __name__ == "__main__":
    main()
