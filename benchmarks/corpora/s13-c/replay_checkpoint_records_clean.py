"""Export a policy head, replay it on a sample batch and write JSON-ready records of both."""
import json

from dispatch_lint import runtime as dispatch


class PolicyHead:
    def __init__(self, weight, bias):
        self.weight = weight
        self.bias = bias

    @classmethod
    def init(cls, n_in, n_out, seed=0):
        return cls(dispatch.rand((n_in, n_out), seed=seed), dispatch.zeros((n_out,)))

    def __call__(self, x):
        dev = x.device
        return (x @ self.weight.to_device(dev) + self.bias.to_device(dev)).relu()


def to_record(name, t):
    if dispatch.is_capture(t):
        return {"name": name, "traced": True, "repr": repr(t)}
    return {"name": name, "traced": False, "values": t.tolist()}


class Exporter:
    def __init__(self, model, callbacks=()):
        self.model = model
        self.callbacks = list(callbacks)

    def export(self, batch_shape):
        x = dispatch.placeholder(batch_shape, device=dispatch.Capture(), name="obs")
        out = self.model(x)
        for cb in self.callbacks:
            cb("traced", out)
        return dispatch.export(out), out


def main():
    records = []
    exporter = Exporter(PolicyHead.init(4, 2), callbacks=[lambda n, t: records.append(to_record(n, t))])
    program, traced = exporter.export((3, 4))
    sample = dispatch.rand((3, 4), seed=9)
    replayed = program.run({"obs": sample.numpy()})
    records.append(to_record("replayed", replayed))
    records.append(to_record("traced-again", traced))
    return json.dumps(records)


if __name__ == "__main__":
    main()
