"""Calibrate a temperature on real batches, stopping early once the loss stops improving."""
from dispatch_lint import runtime as dispatch


def batches(device):
    yield dispatch.placeholder((4,), device=dispatch.Capture(), name="probe")
    for seed in range(5):
        yield dispatch.rand((4,), seed=seed, device=device)


def main():
    ad = dispatch.Autodiff(dispatch.NumPy())
    temp = dispatch.tensor(1.5, device=ad).require_grad()
    best = None
    losses = []
    for batch in batches(ad):
        if batch.is_capture:
            continue
        loss = ((batch / temp).sigmoid() - 0.5).abs().mean()
        value = loss.item()
        if best is not None and value > best - 1e-4:
            break
        best = value
        losses.append(value)
        grads = loss.backward()
        temp = ad.from_inner(temp.inner() - 0.1 * temp.grad(grads)).require_grad()
    else:
        print("ran every batch")
    print(f"temperature {temp.item():.3f} after {len(losses)} steps")
    return temp


if __name__ == "__main__":
    main()
