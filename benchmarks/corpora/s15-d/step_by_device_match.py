"""Take one optimisation step for each parameter group, picking the update by its device class."""
from dispatch_lint import runtime as dispatch


def param_groups():
    ad = dispatch.Autodiff(dispatch.NumPy())
    return {
        "encoder": dispatch.tensor([0.5, -0.5, 0.25], device=ad).require_grad(),
        "head": dispatch.tensor([1.0, 2.0], device=dispatch.Numba()),
        "traced_adapter": dispatch.placeholder((3,), name="adapter"),
    }


def step(name, param, lr=0.1):
    match param.device:
        case dispatch.Capture():
            return name, dispatch.export(param * lr)
        case dispatch.Autodiff(inner=dispatch.NumPy()):
            grads = (param * param).sum().backward()
            return name, (param.inner() - lr * param.grad(grads)).tolist()
        case dispatch.NumPy() | dispatch.Numba():
            grads = (param * param).sum().backward()
            return name, grads
        case other:
            raise TypeError(f"no update rule for {other!r}")


def main():
    updated = {}
    for name, param in param_groups().items():
        key, value = step(name, param)  # expect: DL006
        updated[key] = value
    return updated


if __name__ == "__main__":
    main()
