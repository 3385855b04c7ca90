"""Group model parameters with setdefault and copy each group to the Numba backend for serving."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())

LAYERS = [("embed", (6, 4), True), ("proj", (4, 4), False), ("out", (4, 1), True)]


def build_params():
    params = {}
    for i, (name, shape, trainable) in enumerate(LAYERS):
        w = AD.wrap(dispatch.rand(shape, seed=i))
        params[name] = (w.require_grad() if trainable else w.inner(), trainable)
    return params


def main():
    params = build_params()
    groups = {}
    for name, (tensor, trainable) in params.items():
        groups.setdefault("trainable" if trainable else "frozen", []).append((name, tensor))

    x = dispatch.rand((3, 6), seed=9, device=AD)
    embed, proj, out = (params[k][0] for k in ("embed", "proj", "out"))
    loss = ((x @ embed @ proj.to_device(dispatch.NumPy()) @ out) ** 2).mean()
    grads = loss.backward()
    updated = {name: t.inner() - 0.01 * t.grad(grads) for name, t in groups["trainable"]}

    serving = {}
    for members in groups.values():
        serving.update({name: t.to_device(dispatch.Numba()) for name, t in members})  # expect: DL007
    serving.update((name, t.to_device(dispatch.Numba())) for name, t in updated.items())
    print(sorted(serving), loss.inner().item())
    return serving


if __name__ == "__main__":
    main()
