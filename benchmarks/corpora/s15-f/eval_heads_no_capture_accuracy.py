"""Export train and validation scoring heads, replay them, and compute accuracy per split."""
import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


@guards.no_capture
def accuracy(scores_by_split, labels):
    return {
        split: float((scores.numpy().argmax(axis=1) == labels).mean())
        for split, scores in scores_by_split.items()
    }


def scoring_head(w, rows):
    cap = dispatch.Capture()
    x = dispatch.placeholder((rows, 3), device=cap, name="x")
    return (x @ w.to_device(cap)).sigmoid()


def main():
    w = dispatch.rand((3, 2), seed=7)
    rng = np.random.default_rng(2)
    train_x = rng.normal(size=(5, 3)).astype(np.float32)
    val_x = rng.normal(size=(5, 3)).astype(np.float32)
    labels = rng.integers(0, 2, size=5)
    train_scores = dispatch.replay(scoring_head(w, 5), {"x": train_x})
    val_scores = scoring_head(w, 5)
    val_program = dispatch.export(val_scores)
    splits = {"train": train_scores, "val": val_scores}
    result = accuracy(splits, labels)  # expect: DL001
    result["val_nodes"] = len(val_program.nodes)
    return result


if __name__ == "__main__":
    main()
