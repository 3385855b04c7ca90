"""Route queued work records (train steps, exports, evals) to the right handler by shape."""
from dispatch_lint import runtime as dispatch


def make_queue():
    ad = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.tensor([0.3, -0.7], device=ad).require_grad()
    x = dispatch.tensor([1.0, 2.0], device=ad)
    probe = dispatch.placeholder((2,), name="probe")
    return [
        {"kind": "train", "loss": ((w * x).sum() - 1.0) ** 2, "params": [w]},
        {"kind": "eval", "value": (w * x).sum().inner()},
        {"kind": "train", "loss": (probe * probe).mean(), "params": []},
        {"kind": "export", "outputs": [probe.relu()]},
    ]


def handle(record, log):
    match record:
        case {"kind": "train", "loss": loss, "params": params}:
            grads = loss.backward()
            log.append(("grad", [p.grad(grads).tolist() for p in params]))
        case {"kind": "eval", "value": value}:
            log.append(("eval", value.item()))
        case {"kind": "export", "outputs": [*outs]}:
            log.append(("export", dispatch.export(*outs)))
        case {"kind": other}:
            raise ValueError(f"unknown record kind {other!r}")


def main():
    log = []
    for record in make_queue():
        handle(record, log)  # expect: DL001
    return log


if __name__ == "__main__":
    main()
