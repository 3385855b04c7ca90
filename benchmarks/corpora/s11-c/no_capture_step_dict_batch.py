"""Trace an input pipeline for export and then feed the same batch dict to the training step."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AD = dispatch.Autodiff(dispatch.NumPy())


@guards.no_capture
def train_step(batch, w, lr=0.1):
    pred = (batch["x"].to_device(AD) @ w).sum()
    grads = pred.backward()
    return (w.inner() - lr * w.grad(grads)).to_device(dispatch.NumPy())


def main():
    cap = dispatch.Capture()
    batch = {}
    batch["x"] = dispatch.placeholder((2, 3), device=cap, name="x")
    batch.setdefault("y", dispatch.zeros((2, 1)))
    normalized = {k: v * 0.5 for k, v in batch.items() if k == "x"}
    program = dispatch.export(*normalized.values())
    print(program)

    w = AD.wrap(dispatch.ones((3, 1))).require_grad()
    new_w = train_step(batch, w)  # expect: DL001
    return new_w


if __name__ == "__main__":
    main()
