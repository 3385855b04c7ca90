"""Build an exporter from a deployment spec and collect the traced logits on the host."""
from dispatch_lint import runtime as dispatch

SPECS = {
    "mobile": {"width": 4, "precision": "float32"},
    "server": {"width": 4, "device": "numpy", "precision": "float32"},
}


class Exporter:
    def __init__(self, device, width):
        self.device = device
        self.width = width

    @classmethod
    def from_spec(cls, spec):
        dev = dispatch.device(spec.get("device", "capture"))
        return cls(dev, spec.get("width", 8))

    def trace(self, weight):
        if self.device.is_capture:
            x = dispatch.placeholder((2, self.width), device=self.device, name="x")
        else:
            x = dispatch.ones((2, self.width), device=self.device)
        return (x @ weight.to_device(self.device)).relu()


def main():
    weight = dispatch.rand((4, 3), seed=11)
    collected = {}
    for target in ("server", "mobile"):
        exporter = Exporter.from_spec(SPECS[target])
        logits = exporter.trace(weight)
        collected[target] = logits.to_device(dispatch.NumPy())  # expect: DL002
    return {name: t.numpy() for name, t in collected.items()}


if __name__ == "__main__":
    main()
