"""Build one tensor per stage and move every one of them to the Numba serving device."""

from dispatch_lint import runtime as dispatch

from router_pkg import makers, moves

SERVE_DEVICE = dispatch.Numba()
STAGES = ("eval", "bench", "warmup", "trace")


def collect(shape):
    stages = {}
    for kind in STAGES:
        key = kind if kind in makers.MAKERS else "eval"
        stages.setdefault(key, []).append(makers.make(kind, shape))
    return stages


def main():
    served = []
    for kind, tensors in collect((2, 3)).items():
        for i, t in enumerate(tensors):
            moved = moves.to_serving(t, SERVE_DEVICE)  # expect: DL002
            served.append((kind, i, moved))
    for kind, i, t in served:
        print(kind, i, moves.describe(t))


if __name__ == "__main__":
    main()
