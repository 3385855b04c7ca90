"""Accumulate gradient norms over a list of batches, where the final entry is an export probe."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AD = dispatch.Autodiff(dispatch.NumPy())


@guards.no_capture
def grad_norm(weight, batch):
    w = AD.wrap(weight).require_grad()
    loss = (AD.wrap(batch) @ w).relu().sum()
    g = w.grad(loss.backward())
    return (g * g).sum().sqrt().item()


def batches(cap):
    out = [dispatch.rand((5, 4), seed=s) for s in range(3)]
    out.append(dispatch.placeholder((5, 4), device=cap, name="probe"))
    return out


def main():
    weight = dispatch.rand((4, 2), seed=30)
    cap = dispatch.Capture()
    norms = []
    for batch in batches(cap):
        if guards.is_capture(weight):
            continue
        norms.append(grad_norm(weight, batch))  # expect: DL001
    print(f"mean grad norm {sum(norms) / len(norms):.4f}")
    return norms


if __name__ == "__main__":
    main()
