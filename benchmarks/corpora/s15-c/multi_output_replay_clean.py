"""Export logits, probabilities and loss together, replay them and unpack the results."""
import numpy as np

from dispatch_lint import runtime as dispatch


def build_graph(cap, weights):
    x = dispatch.placeholder((6, 3), device=cap, name="x")
    y = dispatch.placeholder((6, 1), device=cap, name="y")
    logits = x @ weights.to_device(cap)
    probs = logits.sigmoid()
    loss = ((probs - y) ** 2).mean()
    return {"outputs": [logits, probs, loss], "inputs": {"x": x, "y": y}}


def main():
    cap = dispatch.Capture()
    weights = dispatch.rand((3, 1), seed=8)
    graph = build_graph(cap, weights)
    batch = {"x": np.random.default_rng(0).random((6, 3)), "y": np.ones((6, 1))}

    pending = list(graph["outputs"])
    results = list(dispatch.replay(pending, batch, device="numba"))
    loss_value = results.pop()
    logits, *rest = results
    report = {"loss": loss_value.item(), "heads": {}}
    for name, t in zip(("logits", "probs"), [logits, *rest]):
        report["heads"].setdefault(name, []).extend(t.tolist())

    traced = dict(zip(("logits", "probs", "loss"), pending))
    shapes = {name: f"{t} {t.shape}" for name, t in traced.items()}
    top = max(report["heads"]["probs"], key=lambda row: row[0])
    print(f"loss {report['loss']:.4f}", shapes["loss"], top)
    return report


if __name__ == "__main__":
    main()
