"""functools.partial of a creator on the capture device, then trained on."""

import functools

from dispatch_lint import runtime as dispatch


def make_factories(device):
    return {
        "zeros": functools.partial(dispatch.zeros, device=device),
        "ones": functools.partial(dispatch.ones, device=device),
    }


def init_params(factories, shapes):
    return [factories["ones"](shape).require_grad() for shape in shapes]  # expect: DL001


def main() -> None:
    factories = make_factories(dispatch.Capture())
    params = init_params(factories, [(2,), (3,)])
    print(len(params))


if __name__ == "__main__":
    main()
