"""Score a small autoencoder in eval mode and compute an input saliency from its loss."""
from dispatch_lint import runtime as dispatch


def model_device(train):
    return dispatch.Autodiff(dispatch.NumPy()) if train else dispatch.NumPy()


class AutoEncoder:
    def __init__(self, device):
        self.device = device
        self.enc = dispatch.rand((6, 2), seed=1, device=device)
        self.dec = dispatch.rand((2, 6), seed=2, device=device)

    def forward(self, x):
        return (x @ self.enc).relu() @ self.dec

    def loss(self, x):
        return ((self.forward(x) - x) ** 2).mean()


def main():
    model = AutoEncoder(model_device(train=False))
    x = dispatch.rand((8, 6), seed=3, device=model.device)
    metrics = {}
    for name in ("recon", "saliency"):
        loss = model.loss(x)
        if name == "recon":
            metrics[name] = loss.item()
            print(f"recon loss {metrics[name]:.4f}")
            continue
        grads = loss.backward()  # expect: DL006
        metrics[name] = x.grad(grads)
    return metrics


if __name__ == "__main__":
    main()
