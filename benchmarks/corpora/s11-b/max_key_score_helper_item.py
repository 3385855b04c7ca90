"""Choose the checkpoint with the best validation score using max(key=...) over a helper."""
from dispatch_lint import runtime as dispatch


def validation_loss(w, x, y):
    return ((x @ w - y) ** 2).mean()


def score(entry):
    return -entry["val_loss"].item()


def main():
    x = dispatch.rand((16, 3), seed=7)
    y = dispatch.rand((16, 1), seed=8)
    checkpoints = []
    for step in (100, 200, 300):
        w = dispatch.rand((3, 1), seed=step)
        checkpoints.append({"step": step, "w": w, "val_loss": validation_loss(w, x, y)})

    cap = dispatch.Capture()
    x_cap = dispatch.placeholder((16, 3), device=cap, name="x")
    y_cap = dispatch.placeholder((16, 1), device=cap, name="y")
    last = checkpoints[-1]["w"]
    traced = validation_loss(last.to_device(cap), x_cap, y_cap)
    checkpoints.append({"step": "export", "w": last, "val_loss": traced})

    best = max(checkpoints, key=score)  # expect: DL003
    print("best step", best["step"])


if __name__ == "__main__":
    main()
