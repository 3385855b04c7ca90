"""Stream training and calibration losses from one schedule and step on each of them."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def training_losses(w, n):
    for i in range(n):
        x = dispatch.rand((4, 3), seed=100 + i, device=AD)
        yield ((x @ w) ** 2).mean()


def calibration_losses(w, cap, n):
    frozen = w.inner().to_device(cap)
    for i in range(n):
        x = dispatch.placeholder((4, 3), device=cap, name=f"probe{i}")
        yield ((x @ frozen) ** 2).mean()


def schedule(w, n_train, n_probe, cap=None):
    yield from training_losses(w, n_train)
    if cap is not None:
        yield from calibration_losses(w, cap, n_probe)


def main():
    w = AD.wrap(dispatch.rand((3, 1), seed=9)).require_grad()
    norms = []
    for loss in schedule(w, 3, 1, cap=dispatch.Capture()):
        grads = loss.backward()  # expect: DL001
        g = w.grad(grads)
        norms.append((g * g).sum().sqrt().item())
    return norms


if __name__ == "__main__":
    main()
