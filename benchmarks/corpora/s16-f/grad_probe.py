"""Probe gradient norms on real batches, then trace the same loss for export."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch

STEPS = 3
_LOSS_CALLS = 0


@dataclass
class ProbeSpec:
    rows: int = 4
    cols: int = 3
    name: str = "features"
    seeds: list = field(default_factory=lambda: [0, 1, 2, 3])

    @property
    def shape(self):
        return (self.rows, self.cols)


def iter_batches(spec, device):
    for seed in spec.seeds[:STEPS]:
        yield dispatch.rand(spec.shape, seed=seed, device=device)


def _loss_of(batch, weight):
    global _LOSS_CALLS
    _LOSS_CALLS += 1
    return ((batch @ weight).tanh() ** 2).mean()


def _backprop(loss, weight):
    grads = loss.backward()
    return weight.grad(grads)


def probe_norms(spec):
    device = dispatch.Autodiff(dispatch.NumPy())
    weight = dispatch.ones((spec.cols, 2), device=device).require_grad()
    norms = []
    for batch in iter_batches(spec, device):
        g = _backprop(_loss_of(batch, weight), weight)
        norms.append(float((g * g).sum().sqrt()))
    return norms


def trace_probe(spec):
    x = dispatch.placeholder(spec.shape, name=spec.name)
    weight = dispatch.ones((spec.cols, 2), device=x.device)
    loss = _loss_of(x, weight)
    program = dispatch.export(loss)
    g = _backprop(loss, weight)  # expect: DL001
    return program, g


def main():
    spec = ProbeSpec()
    norms = probe_norms(spec)
    print("grad norms:", [round(n, 4) for n in norms], "after", _LOSS_CALLS, "losses")
    program, _ = trace_probe(spec)
    print(program.run({spec.name: dispatch.rand(spec.shape, seed=9).numpy()}))


if __name__ == "__main__":
    main()
