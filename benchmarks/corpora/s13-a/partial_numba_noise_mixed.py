"""Add noise made by a partial of the random creator to a batch before scoring it."""
import functools

from dispatch_lint import runtime as dispatch


def jitter(batch, make_noise, scale=0.01):
    return batch + make_noise(batch.shape) * scale


def augment_all(batches, make_noise):
    return [jitter(b, make_noise) for b in batches]


def main():
    numpy_noise = functools.partial(dispatch.rand, seed=11)
    fast_noise = functools.partial(dispatch.rand, seed=11, device=dispatch.Numba())
    batch = dispatch.ones((3, 4))
    clean = jitter(batch, numpy_noise)
    print("clean", clean.mean().item())
    extra = augment_all([dispatch.zeros((3, 4)), batch * 2.0], numpy_noise)
    print("extra", [round(e.sum().item(), 3) for e in extra])
    noisy = jitter(batch, fast_noise)  # expect: DL008
    return noisy.sum().item()


if __name__ == "__main__":
    main()
