"""Build per-stage tensors from a nested pipeline config and add the stage biases together."""
from dispatch_lint import runtime as dispatch

PIPELINE = {
    "encoder": {"device": "numpy", "widths": [4, 4]},
    "decoder": {"device": "capture", "widths": [4]},
}


def stage_tensors(config):
    built = {}
    for stage, spec in config.items():
        dev = dispatch.device(spec["device"])
        built[stage] = [dispatch.ones((w,), device=dev) for w in spec["widths"]]
    return built


def main():
    built = stage_tensors(PIPELINE)
    flat = [t for tensors in built.values() for t in tensors]
    total = flat[0]
    for bias in flat[1:]:
        total = total + bias  # expect: DL008
    print("total bias:", total)
    return total


if __name__ == "__main__":
    main()
