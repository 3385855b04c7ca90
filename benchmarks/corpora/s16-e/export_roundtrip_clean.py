"""Export a scorer, round-trip it through JSON, serve it on Numba and check it against eager."""

import argparse

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--capture-device", default="capture")
    parser.add_argument("--serve-device", default="numba")
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--tolerance", type=float, default=1e-5)
    return parser.parse_args(["--batch", "6"])


def scorer(params: dict, x: dispatch.Tensor) -> tuple:
    logits = x @ params["w"] + params["b"]
    return logits.sigmoid(), logits.max(axis=1)


def export_scorer(params: dict, args: argparse.Namespace) -> str:
    cap = dispatch.device(args.capture_device)
    x = dispatch.placeholder((args.batch, 4), device=cap, name="x")
    probs, top = scorer({k: p.to_device(cap) for k, p in params.items()}, x)
    print("exporting", probs)
    return dispatch.export(probs, top).to_json()


def checked(t: dispatch.Tensor) -> dispatch.Tensor:
    return guards.ensure_not_capture(t, what="a served output")


def main() -> None:
    args = parse_args()
    params = {"w": dispatch.rand((4, 3), seed=0) - 0.5, "b": dispatch.tensor([0.1, 0.0, -0.1])}
    program = dispatch.Program.from_json(export_scorer(params, args))
    worst = 0.0
    for seed in range(3):
        x = dispatch.rand((args.batch, 4), seed=seed)
        probs, top = program.run({"x": x.numpy()}, device=args.serve_device)
        eager_probs, _ = scorer(params, x)
        diff = (checked(probs).to_device("numpy") - eager_probs).abs().max()
        worst = max(worst, float(diff))
    metrics = {"max_abs_diff": worst, "top_mean": checked(top).mean().item()}
    assert metrics["max_abs_diff"] < args.tolerance, metrics
    print(", ".join(f"{k}={v:.2e}" for k, v in metrics.items()))


if __name__ == "__main__":
    main()
