"""Export a scoring head, then stage its outputs on the serving backend with logged retries."""

import logging

import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import errors

log = logging.getLogger("serve.export")

SERVING = {"backend": "numba", "attempts": 3, "batch": 4}


def scoring_head(features, weight, bias):
    hidden = (features @ weight + bias).relu()
    return hidden.mean(axis=1)


def export_head(width):
    graph = dispatch.Capture()
    features = dispatch.placeholder((SERVING["batch"], width), device=graph, name="features")
    weight = dispatch.rand((width, 6), seed=7).to_device(graph)
    bias = dispatch.full((6,), 0.1).to_device(graph)
    scores = scoring_head(features, weight, bias)
    return dispatch.export(scores), scores


def stage_outputs(width):
    program, scores = export_head(width)
    target = dispatch.device(SERVING["backend"])
    sample = np.ones((SERVING["batch"], width), dtype=np.float32)
    smoke = program.run({"features": sample}, device=target)
    log.info("smoke run on %s: %s", target, smoke.tolist())
    staged = None
    for attempt in range(1, SERVING["attempts"] + 1):
        try:
            # Warm the serving cache with the head's outputs before the first request.
            staged = scores.to_device(target)  # expect: DL002
            break
        except errors.DeviceMismatchError:
            log.warning("attempt %d: outputs on mixed devices, retrying", attempt)
            continue
        except errors.DispatchError as exc:
            log.error("staging failed on %s (%s): %s", target, exc.rule, exc)
            raise
    else:
        raise RuntimeError(f"could not stage outputs after {SERVING['attempts']} attempts")
    return program, staged


def main():
    logging.basicConfig(level=logging.WARNING)
    program, staged = stage_outputs(width=3)
    print(program, staged)


if __name__ == "__main__":
    main()
