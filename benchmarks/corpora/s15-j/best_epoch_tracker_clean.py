"""Track the best validation loss with closures, then export the best weights as a serving head."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def make_tracker():
    best = None
    history = []

    def update(epoch, loss, weights):
        nonlocal best
        history.append((epoch, loss))
        if best is None or loss < best[1]:
            best = (epoch, loss, weights)

    def best_weights():
        return best[2]

    return update, best_weights, history


def main():
    update, best_weights, history = make_tracker()
    x = dispatch.rand((8, 3), seed=1, device=AD)
    y = dispatch.rand((8, 1), seed=2, device=AD)
    w = AD.wrap(dispatch.zeros((3, 1))).require_grad()
    for epoch in range(4):
        loss = ((x @ w - y) ** 2).mean()
        grads = loss.backward()
        update(epoch, loss.item(), w.inner())
        w = AD.wrap(w.inner() - 0.5 * w.grad(grads)).require_grad()
    cap = dispatch.Capture()
    inputs = dispatch.placeholder((2, 3), device=cap, name="x")
    served = inputs @ best_weights().to_device(cap)
    program = dispatch.export(served)
    probe = program.run({"x": [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]})
    first_epoch, _ = min(history, key=lambda entry: entry[1])
    return {
        "best_epoch": first_epoch,
        "probe": f"{probe.sum():.4f}",
        "graph": str(served),
        "weights": best_weights().tolist(),
    }


if __name__ == "__main__":
    main()
