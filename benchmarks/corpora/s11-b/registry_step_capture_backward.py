"""Look up the optimizer step by name in a decorator-filled registry, then trace it for export."""
from dispatch_lint import runtime as dispatch

STEPS = {}


def register(name):
    def decorator(fn):
        STEPS[name] = fn
        return fn

    return decorator


@register("sgd")
def sgd_step(w, x, y, lr=0.1):
    loss = ((x @ w - y) ** 2).mean()
    grads = loss.backward()
    return (w - lr * w.grad(grads)).require_grad(), loss


@register("clipped")
def clipped_step(w, x, y, lr=0.1, clip=1.0):
    loss = ((x @ w - y) ** 2).mean()
    g = w.grad(loss.backward())
    scale = min(1.0, clip / (float((g * g).sum()) ** 0.5 + 1e-12))
    return (w - lr * scale * g).require_grad(), loss


def main():
    config = {"optimizer": "sgd", "steps": 3}
    w = dispatch.rand((3, 1), seed=0, device="autodiff:numpy").require_grad()
    x = dispatch.rand((8, 3), seed=1)
    y = dispatch.rand((8, 1), seed=2)
    step = STEPS[config["optimizer"]]
    for _ in range(config["steps"]):
        w, loss = step(w, x, y)
    print("trained", loss.item())

    cap = dispatch.Capture()
    x_cap = dispatch.placeholder((8, 3), device=cap, name="x")
    y_cap = dispatch.placeholder((8, 1), device=cap, name="y")
    w_cap = w.inner().to_device(cap)
    _, traced_loss = step(w_cap, x_cap, y_cap)  # expect: DL001
    print(dispatch.export(traced_loss).inputs)


if __name__ == "__main__":
    main()
