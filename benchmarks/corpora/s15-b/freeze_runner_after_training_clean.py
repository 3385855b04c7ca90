"""Fine-tune a scorer through a stateful runner, then freeze it and trace the serving graph."""
from dispatch_lint import runtime as dispatch


def make_runner(weights):
    dev = dispatch.Autodiff(dispatch.NumPy())
    w = dev.wrap(weights).require_grad()

    def step(batch, lr=0.1):
        nonlocal w
        x = dispatch.tensor(batch, device=dev)
        loss = (x @ w).tanh().mean()
        grads = loss.backward()
        w = dev.wrap(w.inner() - lr * w.grad(grads)).require_grad()
        return loss.inner().item()

    def freeze():
        nonlocal dev, w
        dev = dispatch.Capture()
        w = w.inner().to_device(dev)

    def serve(name="x"):
        x = dispatch.placeholder((1, 3), device=dev, name=name)
        return (x @ w).sigmoid()

    return step, freeze, serve


def main():
    step, freeze, serve = make_runner(dispatch.rand((3, 1), seed=7))
    batches = [[[0.1, 0.2, 0.3]], [[0.5, -0.1, 0.0]], [[1.0, 1.0, -1.0]]]
    history = [step(b) for b in batches]
    freeze()
    score = serve()
    program = dispatch.export(score)
    out = program.run({"x": [[0.2, 0.2, 0.2]]})
    print([round(h, 4) for h in history], out.tolist())
    return out


if __name__ == "__main__":
    main()
