"""Route each tensor to a decorator-registered handler by whether it is a capture placeholder."""
from dispatch_lint import runtime as dispatch

HANDLERS = {}


def handles(kind):
    def decorator(fn):
        HANDLERS[kind] = fn
        return fn

    return decorator


@handles("train")
def train_handler(w, x, y):
    loss = ((x @ w - y) ** 2).mean()
    return (w - 0.1 * w.grad(loss.backward())).require_grad()


@handles("export")
def export_handler(w, x, y):
    cap = x.device
    out = ((x @ w.inner().to_device(cap) - y) ** 2).mean()
    print("exported", len(dispatch.export(out).to_json()), "bytes")
    return w


def route(w, x, y):
    kind = "export" if dispatch.is_capture(x) else "train"
    return HANDLERS[kind](w, x, y)


def main():
    w = dispatch.rand((3, 1), seed=0, device="autodiff:numpy").require_grad()
    cap = dispatch.Capture()
    batches = [
        (dispatch.rand((8, 3), seed=1), dispatch.rand((8, 1), seed=2)),
        (dispatch.placeholder((8, 3), device=cap, name="x"),
         dispatch.placeholder((8, 1), device=cap, name="y")),
        (dispatch.rand((8, 3), seed=3), dispatch.rand((8, 1), seed=4)),
    ]
    for x, y in batches:
        w = route(w, x, y)
    print(w.inner().tolist())


if __name__ == "__main__":
    main()
