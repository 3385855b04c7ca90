"""Export a small classifier and dump its logits for a golden file, logging any failure."""
import json
import logging

from dispatch_lint import runtime as dispatch

log = logging.getLogger("golden")


def build_classifier(cap):
    pixels = dispatch.placeholder((2, 3), device=cap, name="pixels")
    weight = dispatch.tensor([[0.2, -0.1], [0.4, 0.3], [-0.5, 0.1]]).to_device(cap)
    logits = (pixels @ weight).tanh()
    return pixels, logits


def main():
    cap = dispatch.Capture()
    pixels, logits = build_classifier(cap)
    program = dispatch.export(logits)
    golden = {"inputs": [[1.0, 0.0, 2.0], [0.5, 0.5, 0.5]]}
    try:
        reference = program.run({"pixels": golden["inputs"]})
        golden["reference"] = reference.tolist()
        golden["logits"] = logits.tolist()  # expect: DL003
    except dispatch.errors.DispatchError as exc:
        log.error("golden dump failed (%s): %s", exc.rule, exc)
        raise
    finally:
        log.info("golden keys: %s", sorted(golden))
    text = json.dumps(golden)
    return program, text


if __name__ == "__main__":
    main()
