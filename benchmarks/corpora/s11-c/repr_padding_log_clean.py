"""Write a text manifest of an exported graph's inputs and outputs, padded into columns."""
import io

from dispatch_lint import runtime as dispatch


def main():
    cap = dispatch.Capture()
    inputs = {
        "ids": dispatch.placeholder((2, 4), device=cap, name="ids"),
        "mask": dispatch.placeholder((2, 4), device=cap, name="mask"),
    }
    hidden = (inputs["ids"] * inputs["mask"]).tanh()
    outputs = {"hidden": hidden, "pooled": hidden.mean(axis=1)}
    program = dispatch.export(*outputs.values())

    buf = io.StringIO()
    for section, tensors in (("inputs", inputs), ("outputs", outputs)):
        buf.write(f"[{section}]\n")
        for name, t in tensors.items():
            buf.write(f"  {name:<8}{t!r:>20.20}  shape={t.shape}\n")
            buf.write("  %-8s%s\n" % (name, str(t)[:40]))
    buf.write(f"program: {program}\n")
    text = buf.getvalue()
    print(text)
    return text


if __name__ == "__main__":
    main()
