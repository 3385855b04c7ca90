"""Collect activation statistics from a mixed stream of eager and traced forward passes."""
from dispatch_lint import runtime as dispatch


def forward_passes(w, cap):
    for seed in range(3):
        x = dispatch.rand((5, 2), seed=seed)
        yield "eager", (x @ w).tanh()
    x = dispatch.placeholder((5, 2), device=cap, name="x")
    yield "traced", (x @ w.to_device(cap)).tanh()


def concrete(stream):
    for tag, act in stream:
        if dispatch.is_capture(act):
            continue
        yield tag, act


def stats(stream):
    for tag, act in stream:
        yield tag, act.mean().item(), act.max().item()


def main():
    cap = dispatch.Capture()
    w = dispatch.rand((2, 4), seed=21)
    rows = list(stats(concrete(forward_passes(w, cap))))
    for tag, mean, peak in rows:
        print(f"{tag:>6} mean={mean:.3f} max={peak:.3f}")
    return rows


if __name__ == "__main__":
    main()
