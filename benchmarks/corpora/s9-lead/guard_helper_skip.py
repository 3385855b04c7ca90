"""A helper that says whether a tensor is a capture tensor guards the read at the caller."""

from dispatch_lint import runtime as dispatch


def is_recorded(t):
    return dispatch.is_capture(t)


def summarize(values):
    out = []
    for name, value in values.items():
        if is_recorded(value):
            out.append(f"{name}: <recorded>")
        else:
            out.append(f"{name}: {value.sum().item():.3f}")
    return out


def main() -> None:
    cap = dispatch.Capture()
    values = {
        "graph": dispatch.placeholder((2,), device=cap, name="g"),
        "eager": dispatch.ones((2,)),
    }
    print("\n".join(summarize(values)))


if __name__ == "__main__":
    main()
