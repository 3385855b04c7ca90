"""Logs scalar metrics of a mixed batch of outputs, skipping the traced ones with filter()."""
from dispatch_lint import runtime as dispatch


def is_real(t):
    return not dispatch.is_capture(t)


def build_outputs():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3,), device=cap, name="x")
    real = dispatch.tensor([0.2, 0.4, 0.9])
    return {
        "train_loss": (real ** 2.0).mean(),
        "export_loss": (x ** 2.0).mean(),
        "train_acc": (real > 0.3).sum() / 3.0,
        "export_acc": (x > 0.3).sum() / 3.0,
    }


def main():
    outputs = build_outputs()
    names = sorted(outputs, key=len)
    real_names = filter(lambda n: is_real(outputs[n]), names)
    logged = {n: round(outputs[n].item(), 4) for n in real_names}
    traced = [outputs[n] for n in names if n not in logged]
    program = dispatch.export(*traced)
    print(logged, len(program.to_json()))
    return logged


if __name__ == "__main__":
    main()
