"""Export a regression head and hand its output back to the host, logging failures before re-raising."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger("export")


def to_host(t, target):
    try:
        return t.to_device(target)
    except dispatch.errors.DispatchError as exc:
        log.error("could not move %s to %r: %s", t, target, exc.rule)
        raise
    finally:
        log.debug("to_host done")


def main():
    cap = dispatch.Capture()
    feats = dispatch.placeholder((4, 2), device=cap, name="feats")
    bias = dispatch.tensor([0.1, -0.1]).to_device(cap)
    head = {"pred": (feats + bias).relu().sum(axis=1)}
    program = dispatch.export(head["pred"])
    outputs = []
    for name, value in head.items():
        outputs.append((name, to_host(value, dispatch.NumPy())))  # expect: DL002
    return program, outputs


if __name__ == "__main__":
    main()
