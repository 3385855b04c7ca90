"""Average per-task evaluation losses, skipping tasks whose outputs are still symbolic."""
import numpy as np

from dispatch_lint import runtime as dispatch


def task_outputs():
    rng = np.random.default_rng(1)
    cap = dispatch.Capture()
    yield "cls", dispatch.tensor(rng.normal(size=(4,)))
    yield "export-probe", dispatch.placeholder((4,), device=cap, name="probe")
    yield "reg", dispatch.tensor(rng.normal(size=(4,)))


def summarize(outputs, limit=10):
    total, count = 0.0, 0
    for name, out in outputs:
        if count >= limit:
            break
        if out.is_capture:
            print(f"skipping {name}: {out}")
            continue
        total += (out ** 2).mean().item()
        count += 1
    else:
        print("all tasks visited")
    return total / max(count, 1)


def main():
    print(f"mean loss {summarize(task_outputs()):.4f}")


if __name__ == "__main__":
    main()
