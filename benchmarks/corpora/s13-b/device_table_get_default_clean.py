"""Pick a device per job from a table with a NumPy fallback and fine-tune the training jobs."""
from dispatch_lint import runtime as dispatch

FALLBACK = dispatch.NumPy()


def build_table():
    table = {"export": dispatch.Capture()}
    table["train"] = dispatch.Autodiff(dispatch.NumPy())
    table["eval"] = dispatch.Numba()
    return table


def main():
    table = build_table()
    jobs = {"train": 0.1, "eval": 0.0, "calibrate": 0.05}
    results = {}
    for job, lr in jobs.items():
        dev = table.get(job, FALLBACK)
        w = dispatch.ones((3,), device=dev)
        if lr > 0 and dev.is_autodiff:
            w = w.require_grad()
            loss = (w * w).sum()
            grads = loss.backward()
            w = (w - w.grad(grads) * lr).inner()
        results[job] = w.sum().item()

    export_dev = table.get("export")
    sketch = dispatch.placeholder((3,), device=export_dev, name="w") * 2.0
    program = dispatch.export(sketch)
    results["export"] = program.run({"w": [1.0, 2.0, 3.0]}).sum().item()
    for job, value in results.items():
        print(f"{job:>10}: {value:.3f}")
    return results


if __name__ == "__main__":
    main()
