"""Momentum SGD over a list of parameters, with the embedding frozen after warmup."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


class MomentumSGD:
    def __init__(self, params, lr=0.05, momentum=0.9):
        self.params = list(params)
        self.lr = lr
        self.momentum = momentum
        self.velocity = [dispatch.zeros(p.shape) for p in self.params]

    def step(self, grads):
        updated = []
        for i, p in enumerate(self.params):
            g = p.grad(grads)
            if g is None:
                updated.append(p)
                continue
            self.velocity[i] = self.momentum * self.velocity[i] + g
            updated.append(AD.wrap(p.inner() - self.lr * self.velocity[i]).require_grad())
        self.params = updated
        return updated


def forward(x, embed, head):
    return (x @ embed).tanh() @ head


def main():
    embed = AD.wrap(dispatch.rand((5, 3), seed=0)).require_grad()
    head = AD.wrap(dispatch.rand((3, 1), seed=1)).require_grad()
    x, y = dispatch.rand((4, 5), seed=2, device=AD), dispatch.ones((4, 1))
    opt = MomentumSGD([embed, head])
    for _ in range(2):
        loss = ((forward(x, *opt.params) - y) ** 2).mean()
        opt.step(loss.backward())
    embed, head = opt.params
    opt = MomentumSGD([embed.inner(), head], lr=0.01)
    for _ in range(2):
        loss = ((forward(x, *opt.params) - y) ** 2).mean()
        opt.step(loss.backward())  # expect: DL006
    print(loss.inner().item())
    return opt.params


if __name__ == "__main__":
    main()
