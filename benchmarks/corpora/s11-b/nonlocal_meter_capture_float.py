"""Track the running mean loss with sibling closures sharing nonlocal accumulators."""
from dispatch_lint import runtime as dispatch


def make_meter():
    total = 0.0
    count = 0

    def update(loss):
        nonlocal total, count
        total = total + loss
        count += 1

    def mean():
        return float(total) / max(count, 1)

    def reset():
        nonlocal total, count
        total, count = 0.0, 0

    return update, mean, reset


def main():
    ad = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.rand((3, 1), seed=0, device=ad).require_grad()
    update, mean, reset = make_meter()
    for seed in range(4):
        x = dispatch.rand((8, 3), seed=seed)
        y = x.sum(axis=1, keepdims=True) * 0.5
        loss = ((x @ w - y) ** 2).mean()
        w = (w - 0.1 * w.grad(loss.backward())).require_grad()
        update(loss.inner())
    print("train loss", mean())
    reset()

    cap = dispatch.Capture()
    x_cap = dispatch.placeholder((8, 3), device=cap, name="x")
    y_cap = x_cap.sum(axis=1, keepdims=True) * 0.5
    val = ((x_cap @ w.inner().to_device(cap) - y_cap) ** 2).mean()
    update(val)
    print("val loss", mean())  # expect: DL003


if __name__ == "__main__":
    main()
