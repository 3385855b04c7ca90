"""Export a normalizer and copy its output to the device the serving config asks for."""
from dataclasses import dataclass, field

import numpy as np

from dispatch_lint import runtime as dispatch


@dataclass
class ServeConfig:
    devices: dict = field(default_factory=lambda: {"serve": "numba", "trace": "capture"})


def device_for(cfg, role):
    return dispatch.device(cfg.devices[role])


def to_serving(t, cfg):
    return t.to_device(device_for(cfg, "serve"))


def main():
    cfg = ServeConfig()
    trace = device_for(cfg, "trace")
    x = dispatch.placeholder((5,), device=trace, name="x")
    mean = dispatch.tensor(np.full(5, 0.5, dtype=np.float32)).to_device(trace)
    normalized = (x - mean) / 2.0
    served = to_serving(normalized, cfg)  # expect: DL002
    print(dispatch.export(served))


if __name__ == "__main__":
    main()
