"""Feature builders that share a device through a closure, switched to capture for export."""
from dispatch_lint import runtime as dispatch


def make_feature_builder(n):
    device = dispatch.NumPy()

    def use_capture():
        nonlocal device
        device = dispatch.Capture()
        return device

    def build(name):
        if device.is_capture:
            return dispatch.placeholder((n,), device=device, name=name)
        return dispatch.rand((n,), seed=len(name), device=device)

    return use_capture, build


def main():
    use_capture, build = make_feature_builder(4)
    bias = dispatch.ones((4,))
    eval_feats = build("age") + bias
    print("eval", eval_feats.tolist())

    use_capture()
    export_feats = build("income")
    shifted = export_feats + bias  # expect: DL008
    return dispatch.export(shifted)


if __name__ == "__main__":
    main()
