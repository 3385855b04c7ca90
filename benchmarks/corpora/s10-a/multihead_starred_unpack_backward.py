"""Train the primary head of a multi-head model while its auxiliary heads are prepared for export."""
from dispatch_lint import runtime as dispatch


class MultiHead:
    def __init__(self, n_heads, device):
        self.device = device
        self.capture = dispatch.Capture()
        self.heads = [dispatch.rand((3,), seed=i, device=device).require_grad() for i in range(n_heads)]

    def outputs(self, x, traced_x):
        # The serving graph only needs the first head; it is traced ahead of the others.
        exported = (traced_x * self.heads[0].inner().to_device(self.capture)).sum()
        return [exported] + [(x * h).sum() for h in self.heads]


def main():
    model = MultiHead(3, dispatch.Autodiff(dispatch.NumPy()))
    x = dispatch.rand((3,), seed=4)
    traced_x = dispatch.placeholder((3,), device=model.capture, name="x")
    primary, *aux = model.outputs(x, traced_x)
    aux_total = dispatch.zeros(())
    for head_loss in aux:
        aux_total = aux_total + head_loss
    grads = (primary ** 2).backward()  # expect: DL001
    print(len(aux), grads)


if __name__ == "__main__":
    main()
