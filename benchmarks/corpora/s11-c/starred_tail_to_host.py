"""Split a model's outputs into metrics and a trailing logits tensor and copy the logits to the host."""
from dispatch_lint import runtime as dispatch


def main():
    host = dispatch.NumPy()
    cap = dispatch.Capture()
    tokens = dispatch.placeholder((2, 5), device=cap, name="tokens")
    outputs = [dispatch.tensor(0.91), dispatch.tensor(0.12)]
    outputs += [(tokens * 0.1).sigmoid()]
    *metrics, logits = outputs
    summary = {f"m{i}": m.item() for i, m in enumerate(metrics)}
    summary["logits"] = logits.to_device(host)  # expect: DL002
    return summary


if __name__ == "__main__":
    main()
