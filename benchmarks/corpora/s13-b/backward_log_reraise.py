"""Run an optimisation step per loss, logging failed steps before re-raising them."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import errors

AD = dispatch.Autodiff(dispatch.NumPy())


def fit_step(loss, log):
    try:
        grads = loss.backward()
    except errors.DispatchError as exc:
        log.append(f"step failed: {exc.rule}")
        raise
    finally:
        log.append("step finished")
    return grads


def losses_to_fit():
    w = dispatch.rand((3,), seed=5, device=AD).require_grad()
    train = ((w - 0.5) ** 2).sum()
    x = dispatch.placeholder((3,), name="x")
    traced = (x * 2.0).sum()
    return [("train", train, w), ("traced", traced, x)]


def main():
    log = []
    grads_by_name = {}
    for name, loss, param in losses_to_fit():
        grads = fit_step(loss, log)  # expect: DL001
        grads_by_name[name] = param.grad(grads)
    print("\n".join(log))
    return grads_by_name


if __name__ == "__main__":
    main()
