"""Keeps EMA copies of the weights through partials of an update helper, one per decay rate."""
import functools

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def ema_update(shadow, key, value, decay):
    value = value.inner() if value.is_autodiff else value
    if key in shadow:
        shadow[key] = decay * shadow[key] + (1.0 - decay) * value
    else:
        shadow[key] = value
    return shadow[key]


def main():
    shadow = {}
    updaters = [functools.partial(ema_update, shadow, f"ema{d}", decay=d) for d in (0.9, 0.99)]
    w = dispatch.rand((3,), seed=0, device=AD)
    x = dispatch.rand((5, 3), seed=1, device=AD)
    for _ in range(3):
        w = w.require_grad()
        loss = dispatch.relu(x @ w).mean()
        w = AD.wrap(w.inner() - 0.1 * w.grad(loss.backward()))
        for update in updaters:
            update(w)
    cap = dispatch.Capture()
    xp = dispatch.placeholder((5, 3), device=cap, name="x")
    program = dispatch.export(xp @ shadow["ema0.9"].to_device(cap))
    return {k: v.tolist() for k, v in shadow.items()}, program


if __name__ == "__main__":
    main()
