"""Weight the per-split losses with zip/enumerate and collect each split's gradient norm."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def split_loss(params, batch):
    x, y = batch
    return ((x @ params - y) ** 2).mean()


def make_batches():
    return {
        "train": (dispatch.rand((12, 4), seed=0, device=AD),
                  dispatch.rand((12, 1), seed=1, device=AD)),
        "holdout": (dispatch.rand((6, 4), seed=2), dispatch.rand((6, 1), seed=3)),
    }


def main():
    w = AD.wrap(dispatch.rand((4, 1), seed=4)).require_grad()
    batches = make_batches()
    views = {"train": w, "holdout": w.inner()}
    losses = [split_loss(views[name], batch) for name, batch in batches.items()]
    scales = [1.0, 0.5]
    history = []
    for step, (name, loss, scale) in enumerate(zip(batches, losses, scales)):
        grads = (loss * scale).backward()  # expect: DL006
        g = w.grad(grads)
        history.append((step, name, (g * g).sum().sqrt().item()))
    print(history)
    return history


if __name__ == "__main__":
    main()
