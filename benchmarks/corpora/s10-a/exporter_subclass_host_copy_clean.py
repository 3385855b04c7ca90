"""Collect host copies of model outputs with an exporter subclass that skips traced outputs."""
from dispatch_lint import runtime as dispatch


class OutputCollector:
    def __init__(self):
        self.arrays = {}
        self.skipped = []

    @staticmethod
    def to_host(t):
        return t.to_device("numpy").numpy()

    def collect(self, outputs):
        for name, t in outputs.items():
            self.arrays[name] = self.to_host(t)
        return self


class ExportAwareCollector(OutputCollector):
    def collect(self, outputs):
        real = {}
        for name, t in outputs.items():
            if dispatch.is_capture(t):
                self.skipped.append(name)
                continue
            real[name] = t
        return super().collect(real)


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    outputs = {
        "logits": dispatch.rand((2, 3), seed=0, device="numba"),
        "probs": dispatch.rand((2, 3), seed=1).sigmoid(),
        "traced_logits": (x * 2.0).relu(),
    }
    collector = ExportAwareCollector().collect(outputs)
    print(sorted(collector.arrays), collector.skipped)


if __name__ == "__main__":
    main()
