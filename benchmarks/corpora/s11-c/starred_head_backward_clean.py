"""Differentiate the main loss of a multi-output step and keep the traced probes for the export log."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def forward(w, x, cap):
    probe_in = dispatch.placeholder((2,), device=cap, name="probe")
    main_loss = ((w * x).sum() - 1.0) ** 2
    return [main_loss, probe_in.exp(), probe_in.log()]


def main():
    w = AD.wrap(dispatch.tensor([0.3, 0.7])).require_grad()
    x = dispatch.tensor([2.0, 1.0], device=AD)
    head, *probes = forward(w, x, dispatch.Capture())
    grads = head.backward()
    step = w.inner() - 0.1 * w.grad(grads)
    for idx, probe in enumerate(probes, start=1):
        print(f"probe {idx}: {probe}")
    print(f"loss {head.item():.4f} -> w {step.tolist()}")
    return step


if __name__ == "__main__":
    main()
