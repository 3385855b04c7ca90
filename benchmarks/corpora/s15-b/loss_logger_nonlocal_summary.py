"""Train a linear probe, then smoke-test the export, logging the last loss of each phase."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def make_logger():
    last = None
    seen = 0

    def record(value):
        nonlocal last, seen
        last = value
        seen += 1

    def summary():
        return f"{seen} steps, last loss {last:.4f}"

    return record, summary


def train(record, steps=3):
    w = AD.wrap(dispatch.rand((4, 1), seed=1)).require_grad()
    x = dispatch.rand((8, 4), seed=2, device=AD)
    for _ in range(steps):
        loss = ((x @ w) ** 2).mean()
        grads = loss.backward()
        w = AD.wrap(w.inner() - 0.05 * w.grad(grads)).require_grad()
        record(loss.inner())
    return w.inner()


def main():
    record, summary = make_logger()
    weights = train(record)
    print(summary())
    cap = dispatch.Capture()
    feats = dispatch.placeholder((2, 4), device=cap, name="feats")
    probe = ((feats @ weights.to_device(cap)) ** 2).mean()
    record(probe)
    program = dispatch.export(probe)
    print(program.run({"feats": [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]}))
    print(summary())  # expect: DL003
    return weights


if __name__ == "__main__":
    main()
