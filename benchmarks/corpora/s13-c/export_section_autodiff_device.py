"""Build train and export devices from a config dict and trace one forward pass on each."""
from dispatch_lint import runtime as dispatch

CONFIG = {
    "train": {"device": "numpy", "grad": True},
    "eval": {"device": "numba", "grad": False},
    "export": {"device": "capture", "grad": True},
}


def make_device(section):
    base = dispatch.device(section["device"])
    if section.get("grad", False):
        return dispatch.Autodiff(base)
    return base


class Stage:
    def __init__(self, name, device):
        self.name = name
        self.device = device

    @classmethod
    def from_config(cls, name, cfg=CONFIG):
        return cls(name, make_device(cfg[name]))

    def forward(self, w):
        if self.device.is_capture:
            x = dispatch.placeholder((2, 3), device=self.device, name="x")
        else:
            x = dispatch.ones((2, 3), device=self.device)
        return repr((x @ w.to_device(self.device)).sum())


def main():
    w = dispatch.tensor([[1.0], [0.5], [-0.5]])
    stages = [Stage.from_config("eval"), Stage("export", dispatch.Capture())]
    results = {s.name: s.forward(w) for s in stages}
    export_grad = Stage("export-ft", make_device(CONFIG["export"]))  # expect: DL004
    results[export_grad.name] = export_grad.device
    return results


if __name__ == "__main__":
    main()
