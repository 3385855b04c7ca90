"""Report validation metrics, skipping the numbers for outputs that are still being captured."""
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger(__name__)


def report(name, value):
    if dispatch.is_capture(value):
        log.info("%s is symbolic: %s", name, value)
        return None
    score = value.mean().item()
    log.info("%s = %.4f", name, score)
    return score


def head(features, weight):
    return (features @ weight).sigmoid()


def main():
    weight = dispatch.rand((4, 2), seed=3)
    batch = dispatch.rand((6, 4), seed=4)
    scores = {"val": report("val", head(batch, weight))}

    cap = dispatch.Capture()
    feats = dispatch.placeholder((6, 4), device=cap, name="features")
    traced = head(feats, weight.to_device(cap))
    scores["export"] = report("export", traced)

    program = dispatch.export(traced)
    scores["replayed"] = report("replayed", program.run({"features": batch.numpy()}))
    return scores


if __name__ == "__main__":
    main()
