"""Pick the best candidate head by validation loss after replaying the traced candidate."""
from dispatch_lint import runtime as dispatch


def val_loss(w, x, y):
    return ((x @ w - y) ** 2).mean()


def main():
    x = dispatch.rand((32, 4), seed=3)
    y = dispatch.rand((32, 1), seed=4)
    candidates = {f"seed{s}": dispatch.rand((4, 1), seed=s) for s in range(3)}
    losses = {name: val_loss(w, x, y) for name, w in candidates.items()}

    cap = dispatch.Capture()
    x_cap = dispatch.placeholder((32, 4), device=cap, name="x")
    y_cap = dispatch.placeholder((32, 1), device=cap, name="y")
    losses["seed0-export"] = val_loss(candidates["seed0"].to_device(cap), x_cap, y_cap)
    program = dispatch.export(losses["seed0-export"])
    losses["seed0-export"] = program.run({"x": x, "y": y})

    best = min(losses, key=lambda name: losses[name].item())
    ranked = sorted(losses.values(), key=float)
    print("best head", best, [round(float(t), 4) for t in ranked])


if __name__ == "__main__":
    main()
