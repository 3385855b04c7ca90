"""Train two layers with autodiff and write a host checkpoint through one helper."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())
HOST = dispatch.NumPy()


def to_host(params):
    return {name: t.to_device(HOST) for name, t in params.items()}


def checkpoint(params, step):
    host = to_host(params)
    return {"step": step, **{k: v.tolist() for k, v in host.items()}}


class Optimizer:
    def __init__(self, lr):
        self.lr = lr

    def update(self, params, grads):
        return {k: AD.wrap(p.inner() - self.lr * p.grad(grads)) for k, p in params.items()}


def main():
    params = {
        "w1": AD.wrap(dispatch.rand((3, 2), seed=0)).require_grad(),
        "w2": AD.wrap(dispatch.rand((2, 1), seed=1)).require_grad(),
    }
    x = dispatch.ones((4, 3), device=AD)
    loss = ((x @ params["w1"]).relu() @ params["w2"]).mean()
    params = Optimizer(lr=0.05).update(params, loss.backward())
    best = checkpoint({k: p.inner() for k, p in params.items()}, step=1)
    last = checkpoint(params, step=2)  # expect: DL007
    return best, last


if __name__ == "__main__":
    main()
