"""Log exported graph outputs and evaluated metrics together, choosing the format spec per value."""
from dispatch_lint import runtime as dispatch


def spec_for(t):
    return "" if t.is_capture else ".3f"


def main():
    cap = dispatch.Capture()
    tokens = dispatch.placeholder((16,), device=cap, name="tokens")
    values = [
        ("traced_mean", tokens.mean()),
        ("eval_loss", dispatch.tensor(1.25)),
        ("traced_norm", (tokens * tokens).sum().sqrt()),
        ("eval_ppl", dispatch.tensor(1.25).exp()),
    ]
    lines = []
    for name, t in values:
        lines.append(f"{name:<12} " + format(t, spec_for(t)))
    print("\n".join(lines))
    return lines


if __name__ == "__main__":
    main()
