"""Write epoch metrics to a TSV line, only for tensors that carry data."""
import io

from dispatch_lint import runtime as dispatch


def has_data(t):
    return not t.is_capture


def write_row(stream, epoch, metrics):
    cells = [str(epoch)]
    for key in sorted(metrics):
        value = metrics[key]
        if has_data(value):
            cells.append(f"{key}={value.item():.4f}")
        else:
            cells.append(f"{key}=<symbolic>")
    stream.write("\t".join(cells) + "\n")


def main():
    cap = dispatch.Capture()
    logits = dispatch.placeholder((4,), device=cap, name="logits")
    metrics = {
        "loss": dispatch.tensor([0.9, 0.7, 0.4]).mean(),
        "export_logit_mean": logits.mean(),
        "lr": dispatch.tensor(3e-4),
    }
    out = io.StringIO()
    write_row(out, 3, metrics)
    print(out.getvalue(), end="")


if __name__ == "__main__":
    main()
