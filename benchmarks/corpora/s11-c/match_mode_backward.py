"""Run a config-selected step: a gradient step in train mode, a trace in export mode."""
from dispatch_lint import runtime as dispatch

RUNS = [
    {"mode": "train", "lr": 0.05},
    {"mode": "export", "name": "scorer"},
]


def main():
    weights = dispatch.tensor([[0.1], [0.2], [0.3]])
    reports = []
    for cfg in RUNS:
        match cfg:
            case {"mode": "train", "lr": lr}:
                dev = dispatch.Autodiff(dispatch.NumPy())
                x = dispatch.ones((2, 3), device=dev)
            case {"mode": "export", "name": name}:
                dev = dispatch.Capture()
                x = dispatch.placeholder((2, 3), device=dev, name=name)
                lr = 0.0
            case _:
                continue
        w = weights.to_device(dev) if dev.is_capture else dispatch.Autodiff(dispatch.NumPy()).wrap(weights).require_grad()
        loss = (x @ w).mean()
        grads = loss.backward()  # expect: DL001
        reports.append((cfg["mode"], lr, len(grads)))
    return reports


if __name__ == "__main__":
    main()
