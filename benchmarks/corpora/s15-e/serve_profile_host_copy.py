"""Run a forward pass per serving profile and copy each output back to the host device."""
from dispatch_lint import runtime as dispatch

BASE = {"device": "numpy", "host": "numpy", "batch": 2}
PROFILES = {
    "cpu": {},
    "fused": {"device": "numba", "host": "numba"},
    "export": {"device": "capture"},
}


def settings_for(name):
    cfg = dict(BASE)
    cfg.update(PROFILES[name])
    cfg.setdefault("name", name)
    return cfg


def forward(cfg, w):
    dev = dispatch.device(cfg["device"])
    if dev.is_capture:
        x = dispatch.placeholder((cfg["batch"], 3), device=dev, name="x")
    else:
        x = dispatch.ones((cfg["batch"], 3), device=dev)
    return (x @ w.to_device(dev)).sigmoid()


def to_host(out, cfg):
    return out.to_device(cfg["host"])


def main():
    w = dispatch.tensor([[0.2], [0.4], [-0.3]])
    served = {}
    for name in ("cpu", "export"):
        cfg = settings_for(name)
        out = forward(cfg, w)
        served[name] = to_host(out, cfg)  # expect: DL002
    return served


if __name__ == "__main__":
    main()
