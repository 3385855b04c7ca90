"""Convert trained weights for each serving target through a table of exporter callables."""

from dispatch_lint import runtime as dispatch


def to_host(t):
    return t.inner() if t.is_autodiff else t


def to_numba(t):
    return t.to_device(dispatch.Numba())


EXPORTERS = {"numpy": to_host, "numba": to_numba}


def train(steps=3, lr=0.05):
    ad = dispatch.Autodiff(dispatch.NumPy())
    x = dispatch.rand((8, 3), seed=1, device=ad)
    y = dispatch.rand((8, 2), seed=2, device=ad)
    params = {"w": dispatch.rand((3, 2), seed=3, device=ad), "b": dispatch.zeros((2,), device=ad)}
    for _ in range(steps):
        params = {k: v.require_grad() for k, v in params.items()}
        loss = ((x @ params["w"] + params["b"] - y) ** 2).mean()
        grads = loss.backward()
        params.update({k: v - v.grad(grads) * lr for k, v in params.items()})
    return params, loss.item()


def export_for(target, params):
    convert = EXPORTERS.get(target, to_host)
    return {name: convert(value) for name, value in params.items()}


def main():
    params, final_loss = train()
    targets = ["numpy", "numba"]
    served = {}
    for index, target in enumerate(targets):
        served[target] = export_for(target, params)  # expect: DL007
        print(index, target, sorted(served[target]))
    for target, weights in served.items():
        probe = dispatch.ones((1, 3), device=weights["w"].device)
        print(target, (probe @ weights["w"] + weights["b"]).numpy(), final_loss)
