"""Trace a gating block for export with a debug dump that is only enabled for eager runs."""
from dispatch_lint import runtime as dispatch

SETTINGS = {"debug": False, "scale": 0.5}


def gate(x, scale, debug=False):
    g = (x * scale).sigmoid()
    if debug:
        print(f"gate mean {g.mean():.4f}, max {g.max().item():.4f}")
    return x * g


def stack(x, depth):
    for layer in range(depth):
        x = gate(x, SETTINGS["scale"] + 0.1 * layer, debug=SETTINGS["debug"])
    return x


def main():
    eager = stack(dispatch.rand((2, 4), seed=9), depth=3)
    print(f"eager {eager.sum().item():.3f}")

    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 4), device=cap, name="x")
    traced = stack(x, depth=3)
    if SETTINGS["debug"] and not dispatch.is_capture(traced):
        print(f"{traced.sum():.3f}")
    print("traced", repr(traced))
    return dispatch.export(traced)


if __name__ == "__main__":
    main()
