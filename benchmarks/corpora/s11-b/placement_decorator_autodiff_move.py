"""Place step inputs on the stage's device with a decorator factory that forwards *args/**kwargs."""
import functools

from dispatch_lint import runtime as dispatch


def on_device(spec):
    target = dispatch.device(spec)

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            moved = [a.to_device(target) if isinstance(a, dispatch.Tensor) else a for a in args]
            return fn(*moved, **kwargs)

        return wrapper

    return decorator


@on_device("numpy")
def evaluate(w, x, y):
    return ((x @ w - y) ** 2).mean()


@on_device("autodiff:numpy")
def train_step(w, x, y, lr=0.1):
    loss = ((x @ w - y) ** 2).mean()
    return (w - lr * w.grad(loss.backward())).require_grad()


def main():
    w = dispatch.rand((3, 1), seed=0, device="autodiff:numpy").require_grad()
    x = dispatch.rand((8, 3), seed=1)
    y = dispatch.rand((8, 1), seed=2)
    print("before", evaluate(w.inner(), x, y).item())
    w = train_step(w, x, y, lr=0.05)  # expect: DL007
    print("after", evaluate(w.inner(), x, y).item())


if __name__ == "__main__":
    main()
