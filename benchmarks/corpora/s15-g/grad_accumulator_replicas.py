"""Accumulate gradients from two model replicas, one per backend, before a single update."""
from dispatch_lint import runtime as dispatch


class GradAccumulator:
    def __init__(self):
        self.buffers = {}
        self.steps = 0

    def add(self, named_grads):
        for name, g in named_grads.items():
            self.buffers[name] = self.buffers.get(name, 0.0) + g
        self.steps += 1

    def average(self):
        return {name: g / self.steps for name, g in self.buffers.items()}


def replica_grads(device, params, x, y):
    local = {k: device.wrap(v.to_device(device.inner)).require_grad() for k, v in params.items()}
    pred = (device.wrap(x.to_device(device.inner)) @ local["w"] + local["b"]).tanh()
    grads = ((pred - y.to_device(device.inner)) ** 2).mean().backward()
    return {k: p.grad(grads) for k, p in local.items()}


def main():
    params = {"w": dispatch.rand((4, 2), seed=3), "b": dispatch.zeros((2,))}
    x, y = dispatch.rand((10, 4), seed=4), dispatch.rand((10, 2), seed=5)
    replicas = [dispatch.Autodiff(dispatch.NumPy()), dispatch.Autodiff(dispatch.Numba())]
    acc = GradAccumulator()
    for device, (lo, hi) in zip(replicas, [(0, 5), (5, 10)]):
        xs = dispatch.from_numpy(x.numpy()[lo:hi])
        ys = dispatch.from_numpy(y.numpy()[lo:hi])
        acc.add(replica_grads(device, params, xs, ys))  # expect: DL008
    avg = acc.average()
    params = {k: params[k] - 0.1 * avg[k] for k in params}
    print({k: v.shape for k, v in params.items()})
    return params


if __name__ == "__main__":
    main()
