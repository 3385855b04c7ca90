"""Queue step losses behind the traced export loss, export it from the front and log the rest."""
from dispatch_lint import runtime as dispatch


class LossLogger:
    def __init__(self):
        self.pending = []
        self.log = []

    def push(self, loss, front=False):
        if front:
            self.pending.insert(0, loss)
        else:
            self.pending.append(loss)

    def drain(self):
        while self.pending:
            self.log.append(round(self.pending.pop().item(), 5))
        return self.log


def main():
    logger = LossLogger()
    w = dispatch.tensor([0.2, -0.1])
    cap = dispatch.Capture()
    xs = dispatch.placeholder((4, 2), device=cap, name="x")
    logger.push(((xs * w.to_device(cap)).sum(axis=1) ** 2).mean(), front=True)
    for seed in range(3):
        x = dispatch.rand((4, 2), seed=seed)
        logger.push(((x * w).sum(axis=1) ** 2).mean())

    traced = logger.pending.pop(0)
    program = dispatch.export(traced)
    logger.push(program.run({"x": dispatch.rand((4, 2), seed=5)}))
    print(logger.drain())


if __name__ == "__main__":
    main()
