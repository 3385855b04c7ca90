"""Summarize a mix of traced and evaluated tensors, matching on what each one is."""
from dispatch_lint import runtime as dispatch


def describe(name, t):
    match t:
        case dispatch.Tensor(is_capture=True):
            return f"{name}: traced {t!r}"
        case dispatch.Tensor(shape=()):
            return f"{name}: {t:.4f}"
        case dispatch.Tensor():
            return f"{name}: mean {t.mean().item():.4f} over {t.shape}"
        case float() | int():
            return f"{name}: {t:.4f}"
        case _:
            return f"{name}: {t}"


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3,), device=cap, name="x")
    entries = {
        "traced_logits": (x * 2.0).tanh(),
        "eval_loss": dispatch.tensor(0.3125),
        "eval_scores": dispatch.tensor([0.2, 0.4, 0.9]),
        "epoch": 3,
        "tag": "nightly",
    }
    lines = [describe(k, v) for k, v in entries.items()]
    for line in lines:
        print(line)
    return lines


if __name__ == "__main__":
    main()
