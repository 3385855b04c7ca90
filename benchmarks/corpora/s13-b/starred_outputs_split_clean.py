"""Score the eval loss on the host and export the remaining traced heads as one program."""
import numpy as np

from dispatch_lint import runtime as dispatch


def forward(w):
    cap = dispatch.Capture()
    x = dispatch.placeholder((4, 3), device=cap, name="x")
    hidden = (x @ w.to_device(cap)).relu()
    eval_x = dispatch.from_numpy(np.full((4, 3), 0.5, dtype=np.float32))
    eval_loss = ((eval_x @ w) ** 2).mean()
    return eval_loss, hidden.sum(axis=1), hidden.mean()


def main():
    w = dispatch.rand((3, 2), seed=11)
    eval_loss, *traced = forward(w)
    score = eval_loss.item()
    program = dispatch.export(*traced)
    row_sums, overall = program.run({"x": np.ones((4, 3), dtype=np.float32)})
    first, *_, last = [score, *row_sums.tolist(), overall.item()]
    print(f"eval {score:.4f}  first {first:.4f}  last {last:.4f}")
    return score, program


if __name__ == "__main__":
    main()
