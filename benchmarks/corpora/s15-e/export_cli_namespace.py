"""Export a scoring head for serving, with the target device taken from argparse options."""
import argparse

from dispatch_lint import runtime as dispatch


def parse_options(argv):
    parser = argparse.ArgumentParser(prog="export-head")
    parser.add_argument("--device", default="capture")
    parser.add_argument("--features", type=int, default=6)
    parser.add_argument("--out", default="head.json")
    return parser.parse_args(argv)


def load_weights(n_features):
    w = dispatch.rand((n_features, 2), seed=7)
    b = dispatch.tensor([0.1, -0.1])
    return w, b


def main():
    opts = parse_options(["--features", "4"])
    w, b = load_weights(opts.features)
    x = dispatch.placeholder((1, opts.features), device=opts.device, name="features")
    w_c = w.to_device(opts.device)
    b_c = b.to_device(x.device)
    logits = x @ w_c + b_c  # expect: DL008
    program = dispatch.export(logits.sigmoid())
    return {opts.out: program.to_json()}


if __name__ == "__main__":
    main()
