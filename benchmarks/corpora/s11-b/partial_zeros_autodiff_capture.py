"""Build parameter initialisers with functools.partial from a per-stage device table."""
import functools

from dispatch_lint import runtime as dispatch

STAGE_DEVICES = {"train": "autodiff:numpy", "export": "autodiff:capture", "eval": "numpy"}


def initialisers(stage):
    dev = STAGE_DEVICES[stage]
    return {
        "zeros": functools.partial(dispatch.zeros, device=dev),
        "rand": functools.partial(dispatch.rand, device=dev),
    }


def main():
    init = initialisers("train")
    w = init["rand"]((3, 1), seed=0).require_grad()
    b = init["zeros"]((1,)).require_grad()
    x = dispatch.rand((8, 3), seed=1)
    y = dispatch.rand((8, 1), seed=2)
    for _ in range(3):
        loss = ((x @ w + b - y) ** 2).mean()
        grads = loss.backward()
        w = (w - 0.1 * w.grad(grads)).require_grad()
        b = (b - 0.1 * b.grad(grads)).require_grad()

    export_init = initialisers("export")
    w_slot = export_init["zeros"]((3, 1))  # expect: DL004
    print(loss.item(), w_slot.shape)


if __name__ == "__main__":
    main()
