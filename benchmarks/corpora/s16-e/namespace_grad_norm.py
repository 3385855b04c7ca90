"""Train on Numba from a Namespace config and track gradient norms, also on validation."""

import argparse

from dispatch_lint import runtime as dispatch


def build_args() -> argparse.Namespace:
    return argparse.Namespace(device="numba", lr=0.05, epochs=3, n_batches=3, seed=4)


def make_batches(device: dispatch.Device, n: int, seed: int) -> list:
    target = dispatch.tensor([[0.5], [1.0], [-1.0]], device=device)
    xs = [dispatch.rand((8, 3), seed=seed + i, device=device) for i in range(n)]
    return [(x, x @ target) for x in xs]


def mse(params: dict, batch) -> dispatch.Tensor:
    x, y = batch
    return ((x @ params["w"] - y) ** 2).mean()


def gradients(loss: dispatch.Tensor, params: dict) -> tuple:
    grads = loss.backward()
    per_param = {k: p.grad(grads) for k, p in params.items()}
    norm = sum((g * g).sum().item() for g in per_param.values() if g is not None)
    return per_param, norm ** 0.5


def train_step(params: dict, batch, lr: float) -> tuple:
    per_param, norm = gradients(mse(params, batch), params)
    updated = {k: (p - lr * per_param[k]).require_grad() for k, p in params.items()}
    return updated, norm


def validate(params: dict, batches: list) -> dict:
    frozen = {k: p.inner() for k, p in params.items()}
    val_loss = sum((mse(frozen, b) for b in batches[1:]), mse(frozen, batches[0]))
    return {"val_loss": val_loss.item(), "val_grad_norm": gradients(val_loss, frozen)[1]}  # expect: DL006


def main() -> None:
    args = build_args()
    device = dispatch.device(args.device)
    train_device = dispatch.Autodiff(device)
    params = {"w": train_device.wrap(dispatch.zeros((3, 1), device=device)).require_grad()}
    batches = make_batches(device, args.n_batches, args.seed)
    for epoch in range(args.epochs):
        norms = []
        for batch in batches:
            params, norm = train_step(params, batch, args.lr)
            norms.append(norm)
        print(f"epoch {epoch}: grad norm {max(norms):.4f}", validate(params, batches))


if __name__ == "__main__":
    main()
