"""Build training devices for every configured backend and run one smoke step on each."""
import itertools

from dispatch_lint import runtime as dispatch

DEFAULT_BACKENDS = ("numpy", "numba")
USER_CONFIG = {"extra_backends": ["capture", "autodiff:numba"]}


def smoke_step(dev):
    w = dispatch.tensor([0.5, -0.5], device=dev).require_grad()
    grads = ((w * w).sum()).backward()
    return w.grad(grads)


def main():
    specs = itertools.chain(DEFAULT_BACKENDS, USER_CONFIG.get("extra_backends", []))
    devices = [dispatch.device(spec) for spec in specs]
    usable = [dev for dev in devices if not dev.is_capture]
    trainers = {repr(dev): dispatch.Autodiff(dev) for dev in usable}  # expect: DL005
    report = {}
    for name, dev in sorted(trainers.items()):
        grad = smoke_step(dev)
        report[name] = grad.tolist()
    for name, values in report.items():
        print(f"{name:<28} grad={values}")
    return report


if __name__ == "__main__":
    main()
