"""Track the mean loss with sibling closures that count traced losses instead of averaging them."""
from dispatch_lint import runtime as dispatch


def make_meter():
    total = 0.0
    count = 0
    skipped = 0

    def update(loss):
        nonlocal total, count, skipped
        if dispatch.is_capture(loss):
            skipped += 1
            return
        total = total + loss
        count += 1

    def summary():
        return {"mean": float(total) / max(count, 1), "skipped": skipped}

    return update, summary


def main():
    ad = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.rand((3, 1), seed=0, device=ad).require_grad()
    update, summary = make_meter()
    cap = dispatch.Capture()
    x_cap = dispatch.placeholder((8, 3), device=cap, name="x")
    for seed in range(4):
        x = dispatch.rand((8, 3), seed=seed)
        y = x.sum(axis=1, keepdims=True) * 0.5
        loss = ((x @ w - y) ** 2).mean()
        w = (w - 0.1 * w.grad(loss.backward())).require_grad()
        update(loss.inner())
        traced = ((x_cap @ w.inner().to_device(cap)) ** 2).mean()
        update(traced)
    print(summary())


if __name__ == "__main__":
    main()
