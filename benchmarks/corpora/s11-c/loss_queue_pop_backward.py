"""Drain a queue of auxiliary losses, applying a gradient step for each one."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def apply_step(loss, params, lr=0.01):
    grads = loss.backward()
    updated = {}
    for name, p in params.items():
        g = p.grad(grads)
        updated[name] = p if g is None else AD.wrap(p.inner() - lr * g).require_grad()
    return updated


def main():
    params = {"w": AD.wrap(dispatch.rand((3,), seed=0)).require_grad()}
    x = dispatch.tensor([1.0, 2.0, 3.0], device=AD)
    queue = [(params["w"] * x).sum(), (params["w"] ** 2).mean()]

    # a traced regularizer is queued for the export graph at the front
    cap = dispatch.Capture()
    traced = dispatch.placeholder((3,), device=cap, name="w").abs().sum()
    queue.insert(0, traced)
    queue.extend([])
    steps = 0
    while queue:
        loss = queue.pop(0)
        params = apply_step(loss, params)  # expect: DL001
        steps += 1
    return steps


if __name__ == "__main__":
    main()
