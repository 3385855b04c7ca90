"""Run the enabled stages of a probe check, each on the device its stage asks for."""
from dispatch_lint import runtime as dispatch

ENABLED = {"warmup": True, "calibrate": False, "trace": True}


def device_for(stage):
    if stage == "trace":
        return dispatch.Capture()
    return dispatch.Autodiff(dispatch.NumPy())


class Probe:
    def __init__(self, device):
        self.device = device
        self.w = dispatch.full((3,), 0.5, device=device)

    def forward(self, x):
        return (x * self.w).sigmoid().sum()


def train_step(probe, x):
    loss = probe.forward(x)
    grads = loss.backward()
    return loss, grads


def main():
    metrics = {}
    for stage in ("warmup", "calibrate", "trace"):
        if not ENABLED.get(stage, False):
            continue
        dev = device_for(stage)
        probe = Probe(dev)
        if stage == "trace":
            x = dispatch.placeholder((3,), device=dev, name="x")
        else:
            x = dispatch.ones((3,), device=dev).require_grad()
        loss, grads = train_step(probe, x)  # expect: DL001
        metrics[stage] = {"loss": f"{loss}", "steps": 1}
        print(f"[{stage}] loss={loss}")
    return metrics


if __name__ == "__main__":
    main()
