"""Trace the preprocessing and the head as decorated stages, then stitch them for export."""
import functools

from dispatch_lint import runtime as dispatch


def traced(target="capture", **defaults):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            dev = dispatch.device(target)
            moved = [a.to_device(dev) if isinstance(a, dispatch.Tensor) else a for a in args]
            return fn(dev, *moved, **{**defaults, **kwargs})
        return wrapper
    return decorate


@traced(eps=1e-5)
def normalize(dev, stats, *, eps):
    x = dispatch.placeholder((4, 3), device=dev, name="raw")
    return (x - stats) / (stats * stats + eps).sqrt()


@traced()
def head(dev, w, scale=1.0):
    h = dispatch.placeholder((4, 3), device=dev, name="feats")
    return (h @ w) * scale


def main():
    stats = dispatch.full((3,), 0.5)
    w = dispatch.rand((3, 2), seed=4)
    normed = normalize(stats)
    logits = head(w, scale=2.0)
    print(f"stages: {normalize.__name__}, {head.__name__}")
    combined = normed.sum() + logits.sum()  # expect: DL008
    return dispatch.export(combined)


if __name__ == "__main__":
    main()
