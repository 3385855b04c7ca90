"""A metrics monitor that logs only while its reference sample is real and skips once an export sample is attached."""
from dispatch_lint import runtime as dispatch


class Monitor:
    def __init__(self, dim):
        self.sample = dispatch.zeros((1, dim))
        self.history = []

    def attach(self, sample):
        self.sample = sample
        return self

    def log_stats(self, weights):
        if dispatch.is_capture(self.sample):
            return None
        score = (self.sample @ weights).mean()
        self.history.append(float(score))
        return self.history[-1]


def main():
    weights = dispatch.rand((5, 2), seed=0)
    monitor = Monitor(5)
    print("before attach", monitor.log_stats(weights))
    cap = dispatch.Capture()
    sample = dispatch.placeholder((1, 5), device=cap, name="sample")
    monitor.attach(sample)
    program = dispatch.export(sample @ weights.to_device(cap))
    print("after attach", monitor.log_stats(weights.to_device(cap)))
    monitor.attach(program.run({"sample": dispatch.ones((1, 5))}))
    print("after replay", monitor.log_stats(dispatch.ones((2, 1))))


if __name__ == "__main__":
    main()
