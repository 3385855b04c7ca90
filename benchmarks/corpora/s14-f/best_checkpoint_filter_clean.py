"""Pick the best checkpoint by validation loss, skipping the traced export candidates."""
import functools

from dispatch_lint import runtime as dispatch


def validation_loss(weights, inputs, labels):
    pred = (inputs @ weights).sigmoid()
    return ((pred - labels) ** 2).mean()


def traced_candidate(weights, shape):
    cap = dispatch.Capture()
    x = dispatch.placeholder(shape, device=cap, name="x")
    return validation_loss(weights.to_device(cap), x, dispatch.zeros((shape[0], 1)).to_device(cap))


def is_exported(entry):
    return dispatch.is_capture(entry[1])


def main():
    inputs = dispatch.rand((16, 4), seed=5)
    labels = (dispatch.rand((16, 1), seed=6) > 0.5) * 1.0
    score = functools.partial(validation_loss, inputs=inputs, labels=labels)
    checkpoints = {f"step_{k}": dispatch.rand((4, 1), seed=k) for k in (100, 200, 300)}
    entries = [(name, score(w)) for name, w in checkpoints.items()]
    entries.append(("export", traced_candidate(checkpoints["step_300"], (16, 4))))
    real_entries = filter(lambda e: not is_exported(e), entries)
    ranked = sorted(real_entries, key=lambda e: e[1].item())
    best_name, best_loss = min(ranked, key=lambda e: float(e[1]))
    for name, loss in ranked:
        print(f"{name:>10} {loss.item():.5f}")
    print(f"best: {best_name} ({format(best_loss.item(), '.3e')})")
    return best_name


if __name__ == "__main__":
    main()
