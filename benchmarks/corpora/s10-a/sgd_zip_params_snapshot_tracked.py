"""Train a two-layer net and snapshot its tracked weights into an export graph."""
from dispatch_lint import runtime as dispatch


def forward(params, x):
    w1, b1, w2 = params
    return ((x @ w1 + b1).relu() @ w2).sum(axis=1)


def main():
    device = dispatch.Autodiff(dispatch.NumPy())
    names = ["w1", "b1", "w2"]
    shapes = [(3, 4), (4,), (4, 1)]
    params = [dispatch.rand(s, seed=i, device=device).require_grad() for i, s in enumerate(shapes)]
    x = dispatch.rand((5, 3), seed=9)
    for step in range(2):
        grads = (forward(params, x) ** 2).mean().backward()
        params = [(p - 0.01 * p.grad(grads)).require_grad() for p in params]

    cap = dispatch.Capture()
    frozen = {name: p.to_device(cap) for name, p in zip(names, params)}  # expect: DL007
    xs = dispatch.placeholder((5, 3), device=cap, name="x")
    program = dispatch.export(forward(list(frozen.values()), xs))
    print(program.run({"x": x}).tolist())


if __name__ == "__main__":
    main()
