"""Evaluate an exported classifier head on two splits and collect a metrics dict for logging."""
from dispatch_lint import runtime as dispatch


def pick_eval_device(prefer_numba):
    return dispatch.Numba() if prefer_numba else dispatch.NumPy()


def build_head(cap):
    feats = dispatch.placeholder((8, 4), device=cap, name="feats")
    w = dispatch.rand((4, 2), seed=7).to_device(cap)
    probs = (feats @ w).sigmoid()
    return probs, probs.mean()


def evaluate(program, split, device):
    probs, mean_prob = program.run({"feats": split}, device=device)
    if dispatch.is_capture(mean_prob):
        return {}
    return {"mean_prob": mean_prob, "max_prob": probs.max()}


def main():
    cap = dispatch.Capture()
    probs, mean_prob = build_head(cap)
    program = dispatch.export(probs, mean_prob)
    splits = {
        "val": dispatch.rand((8, 4), seed=1).numpy(),
        "test": dispatch.rand((8, 4), seed=2).numpy(),
    }
    device = pick_eval_device(prefer_numba=False)
    metrics = {}
    for name, split in splits.items():
        scores = evaluate(program, split, device)
        if not scores:
            continue
        metrics.update({f"{name}/{k}": float(v) for k, v in scores.items()})
    print(f"traced head output: {mean_prob}")
    for key, value in sorted(metrics.items()):
        print(f"{key:<14} {value:.4f}")
    return metrics


if __name__ == "__main__":
    main()
