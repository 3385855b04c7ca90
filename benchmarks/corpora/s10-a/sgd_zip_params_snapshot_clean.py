"""Train a two-layer net with zipped parameter/gradient lists and snapshot weights into an export graph."""
from dispatch_lint import runtime as dispatch


def forward(params, x):
    w1, b1, w2 = params
    return ((x @ w1 + b1).relu() @ w2).sum(axis=1)


def main():
    device = dispatch.Autodiff(dispatch.NumPy())
    shapes = [(3, 4), (4,), (4, 1)]
    params = [dispatch.rand(s, seed=i, device=device).require_grad() for i, s in enumerate(shapes)]
    x = dispatch.rand((5, 3), seed=9)
    for step in range(3):
        grads = (forward(params, x) ** 2).mean().backward()
        for i, (p, g) in enumerate(zip(params, [p.grad(grads) for p in params])):
            params[i] = (p - 0.01 * g).require_grad()

    cap = dispatch.Capture()
    frozen = [p.inner().to_device(cap) for p in params]
    xs = dispatch.placeholder((5, 3), device=cap, name="x")
    program = dispatch.export(forward(frozen, xs))
    print(program.run({"x": x}).tolist())


if __name__ == "__main__":
    main()
