"""Run one step of each configured phase through the step registry."""
from dispatch_lint import runtime as dispatch

from step_registry_pkg import steps  # noqa: F401
from step_registry_pkg.registry import STEPS

PHASES = [("sgd", "autodiff:numpy"), ("export", "capture"), ("sgd", "capture")]


def prepare(target, data):
    init = dispatch.rand((3, 1), seed=1)
    if target == "capture":
        cap = dispatch.device(target)
        x = dispatch.placeholder(data.shape, device=cap, name="x")
        return init.to_device(cap), x
    dev = dispatch.device(target)
    return dispatch.tensor(init.numpy(), device=dev).require_grad(), data


def objective(weights, x):
    return ((x @ weights) ** 2).mean()


def main():
    data = dispatch.rand((5, 3), seed=2)
    results = []
    for step_name, target in PHASES:
        weights, x = prepare(target, data)
        step = STEPS[step_name]
        results.append(step(weights, objective(weights, x), lr=0.1))  # expect: DL001
    print(f"ran {len(results)} phases")
    return results


if __name__ == "__main__":
    main()
