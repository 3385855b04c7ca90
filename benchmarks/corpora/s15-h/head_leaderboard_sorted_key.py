"""Rank candidate heads by validation loss and print a leaderboard."""
from dispatch_lint import runtime as dispatch


def head_loss(weights, x, y):
    return ((x @ weights - y) ** 2).mean()


def by_loss(entry):
    name, loss = entry
    return float(loss)


def main():
    x = dispatch.rand((6, 4), seed=1)
    y = dispatch.rand((6,), seed=2)
    candidates = {f"head_{i}": dispatch.rand((4,), seed=10 + i) for i in range(3)}
    scored = {name: head_loss(w, x, y) for name, w in candidates.items()}
    export_dev = dispatch.Capture()
    traced_x = dispatch.placeholder((6, 4), device=export_dev, name="x")
    best_w = candidates["head_0"].to_device(export_dev)
    scored["head_0_export"] = head_loss(best_w, traced_x, y.to_device(export_dev))
    ranking = sorted(scored.items(), key=by_loss)  # expect: DL003
    width = max(len(name) for name in scored)
    for rank, (name, loss) in enumerate(ranking, start=1):
        print(f"{rank:>2}. {name:<{width}} {loss.item():.5f}")
    return [name for name, _ in ranking]


if __name__ == "__main__":
    main()
