"""Run one fine-tuning step per head, logging and re-raising any dispatch failure."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger("finetune")


def build_head(kind):
    if kind == "export":
        return dispatch.placeholder((4,), device=dispatch.Capture(), name="feats")
    return dispatch.rand((4,), seed=3, device=dispatch.Autodiff(dispatch.NumPy())).require_grad()


def step(feats):
    loss = (feats.sigmoid() * feats).sum()
    attempts = 0
    try:
        attempts += 1
        grads = loss.backward()
    except dispatch.errors.DispatchError as exc:
        log.error("step failed after %d attempt(s): %s", attempts, exc.rule)
        raise
    else:
        log.info("step ok")
        return feats.grad(grads)
    finally:
        log.debug("step finished")


def main():
    updates = {}
    for kind in ("train", "export"):
        feats = build_head(kind)
        updates[kind] = step(feats)  # expect: DL001
    return updates


if __name__ == "__main__":
    main()
