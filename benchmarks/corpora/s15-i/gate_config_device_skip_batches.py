"""Build the training device from a run config and fit a small gate, skipping empty batches."""
from dispatch_lint import runtime as dispatch

CONFIG = {"backend": "autodiff:numpy", "lr": 0.2, "epochs": 4}


def training_device(config):
    base = dispatch.device(config["backend"])
    return dispatch.Autodiff(base)


class Gate:
    def __init__(self, device):
        self.device = device
        self.w = dispatch.full((3,), 0.1, device=device).require_grad()

    def __call__(self, x):
        return (x * self.w).sum(axis=1).sigmoid()


def main():
    device = training_device(CONFIG)  # expect: DL005
    gate = Gate(device)
    batches = [dispatch.rand((4, 3), seed=s, device=device) for s in range(3)]
    batches.insert(1, dispatch.zeros((0, 3), device=device))
    metrics = {"steps": 0, "last_loss": None}
    for epoch in range(CONFIG["epochs"]):
        for batch in batches:
            if batch.shape[0] == 0:
                continue
            loss = ((gate(batch) - 1.0) ** 2).mean()
            grads = loss.backward()
            gate.w = device.wrap(gate.w.inner() - CONFIG["lr"] * gate.w.grad(grads)).require_grad()
            metrics["steps"] += 1
            metrics["last_loss"] = loss.item()
        print(f"epoch {epoch}: loss {metrics['last_loss']:.4f}")
    return metrics


if __name__ == "__main__":
    main()
