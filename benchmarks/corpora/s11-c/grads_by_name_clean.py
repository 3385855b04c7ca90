"""Take a gradient step over a dict of named parameters and export the updated scorer."""
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def is_traced(t):
    return t.is_capture


def main():
    params = {"w": AD.wrap(dispatch.rand((3, 1), seed=3)).require_grad(),
              "b": AD.wrap(dispatch.zeros((1,))).require_grad()}
    x = dispatch.rand((5, 3), seed=4, device=AD)
    loss = ((x @ params["w"] + params["b"]) ** 2).mean()
    grads = loss.backward()
    new = {name: p.inner() - 0.1 * p.grad(grads) for name, p in params.items()}

    cap = dispatch.Capture()
    feats = dispatch.placeholder((5, 3), device=cap, name="feats")
    named = {"score": feats @ new["w"].to_device(cap) + new["b"].to_device(cap)}
    named.update({f"grad_{k}": p.grad(grads) for k, p in params.items()})
    norms = {k: (v * v).sum().sqrt().item() for k, v in named.items() if not is_traced(v)}
    program = dispatch.export(named["score"])
    out = program.run({"feats": np.ones((5, 3), dtype=np.float32)})
    print({k: f"{v:.3f}" for k, v in norms.items()}, out.shape)
    return norms


if __name__ == "__main__":
    main()
