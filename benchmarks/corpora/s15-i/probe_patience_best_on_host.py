"""Train a logistic probe with patience-based early stopping, keeping the best weights on host."""
from dispatch_lint import runtime as dispatch


def host_device():
    return dispatch.device("numpy")


def train_device():
    return dispatch.device("autodiff:numpy")


def main():
    dev = train_device()
    x = dispatch.rand((12, 3), seed=5, device=dev)
    y = dispatch.full((12, 1), 1.0, device=dev)
    w = dispatch.zeros((3, 1), device=dev).require_grad()
    best = {"loss": float("inf"), "epoch": -1, "w": None}
    patience, bad = 3, 0
    for epoch in range(30):
        loss = (((x @ w).sigmoid() - y) ** 2).mean()
        value = loss.item()
        if value < best["loss"] - 1e-4:
            best.update(loss=value, epoch=epoch, w=w.to_device(host_device()))  # expect: DL007
            bad = 0
        else:
            bad += 1
            if bad >= patience:
                print(f"stopping at epoch {epoch}, best {best['loss']:.4f}")
                break
        grads = loss.backward()
        w = dev.wrap(w.inner() - 0.5 * w.grad(grads)).require_grad()
    return best


if __name__ == "__main__":
    main()
