"""Resolve every configured deployment target and run a forward pass on each."""
from dispatch_lint import runtime as dispatch

from deploy_config_pkg import runner, targets

DEPLOYMENTS = [
    {"name": "eval", "target": "cpu"},
    {"name": "export", "target": "export"},
    {"name": "finetune", "target": "cpu", "grad": True},
    {"name": "export-ft", "target": "export", "grad": True},
]


def main():
    weights = dispatch.tensor([[0.5], [0.25], [-1.0]])
    results = {}
    for spec in DEPLOYMENTS:
        name, *_ = spec.values()
        dev = targets.resolve(spec)
        results[name] = runner.run(dev, weights)
    return results


if __name__ == "__main__":
    main()
