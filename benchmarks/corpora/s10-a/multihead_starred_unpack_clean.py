"""Train every head of a multi-head model and keep the traced serving output for export."""
from dispatch_lint import runtime as dispatch


class MultiHead:
    def __init__(self, n_heads, device):
        self.capture = dispatch.Capture()
        self.heads = [dispatch.rand((3,), seed=i, device=device).require_grad() for i in range(n_heads)]

    def outputs(self, x, traced_x):
        exported = (traced_x * self.heads[0].inner().to_device(self.capture)).sum()
        return [(x * h).sum() for h in self.heads] + [exported]


def main():
    model = MultiHead(3, dispatch.Autodiff(dispatch.NumPy()))
    x = dispatch.rand((3,), seed=4)
    traced_x = dispatch.placeholder((3,), device=model.capture, name="x")
    *train_losses, exported = model.outputs(x, traced_x)
    total = train_losses[0]
    for loss in train_losses[1:]:
        total = total + loss
    grads = (total ** 2).backward()
    updated = [h.grad(grads) for h in model.heads]
    program = dispatch.export(exported)
    print([g.shape for g in updated], program.run({"x": x.numpy()}).item())


if __name__ == "__main__":
    main()
