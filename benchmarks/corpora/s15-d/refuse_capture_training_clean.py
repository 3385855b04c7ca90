"""Run one fine-tuning step per configured backend, refusing backends that cannot train."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger("finetune")


class UnsupportedBackend(ValueError):
    pass


def refuse(kind, reason):
    raise UnsupportedBackend(f"{kind}: {reason}")


def finetune_step(kind):
    dev = dispatch.device(kind)
    weights = dispatch.tensor([0.5, -0.25, 1.0], device=dev)
    if weights.is_capture:
        refuse(kind, "a traced program has no gradients")
    if not weights.is_autodiff:
        refuse(kind, "wrap the backend with Autodiff to train")
    weights = weights.require_grad()
    loss = (weights * weights).sum()
    grads = loss.backward()
    return weights.grad(grads).tolist()


def main():
    results = {}
    for kind in ("capture", "numpy", "autodiff:numpy", "autodiff:numba"):
        try:
            results[kind] = finetune_step(kind)
        except UnsupportedBackend as exc:
            log.warning("skipping %s", exc)
            continue
    print(results)
    return results


if __name__ == "__main__":
    main()
