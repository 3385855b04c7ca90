"""Report the total of the loss terms summed with functools.reduce, an exported penalty among them."""
import functools
import operator

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def mse(w, x, y):
    return ((x @ w - y) ** 2).mean()


def l2(w, scale):
    return (w * w).sum() * scale


def main():
    x = dispatch.rand((16, 3), seed=1)
    y = dispatch.rand((16, 1), seed=2)
    w = dispatch.rand((3, 1), seed=0, device=AD).require_grad()

    cap = dispatch.Capture()
    w_traced = w.inner().to_device(cap)
    penalties = {"l2": l2(w_traced, 1e-3)}
    program = dispatch.export(penalties["l2"])

    terms = [mse(w, x, y), l2(w, 1e-3)]
    terms.extend(penalties.values())
    total = functools.reduce(operator.add, terms)  # expect: DL008
    print(f"{len(terms)} terms, total {total}", len(program.to_json()))


if __name__ == "__main__":
    main()
