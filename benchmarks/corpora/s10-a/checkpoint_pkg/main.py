"""Train a regressor one step and checkpoint both its weights and its traced export weights."""
from dispatch_lint import runtime as dispatch

from checkpoint_pkg.manager import CheckpointManager
from checkpoint_pkg.model import Regressor


def main():
    device = dispatch.Autodiff(dispatch.NumPy())
    model = Regressor(device)
    x = dispatch.rand((4, 3), seed=1)
    grads = ((x @ model.w + model.b) ** 2).mean().backward()
    updates = {name: p.grad(grads) for name, p in model.parameters().items()}
    export_params = model.traced(dispatch.Capture())
    with CheckpointManager("run1") as ckpt:
        ckpt.save_all(updates)
        for name, t in export_params.items():
            ckpt.save(f"export/{name}", t)  # expect: DL003
    print(ckpt.written)


if __name__ == "__main__":
    main()
