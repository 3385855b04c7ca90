"""Drain a queue of pending step losses into a log, with the traced export loss queued first."""
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


def drain(logger):
    while logger.pending:
        loss = logger.pending.pop()
        logger.log.append(round(loss.item(), 5))
    return logger.log


def main():
    logger = LossLogger()
    w = dispatch.tensor([0.2, -0.1])
    for seed in range(3):
        x = dispatch.rand((4, 2), seed=seed)
        logger.push(((x * w).sum(axis=1) ** 2).mean())

    cap = dispatch.Capture()
    xs = dispatch.placeholder((4, 2), device=cap, name="x")
    traced = ((xs * w.to_device(cap)).sum(axis=1) ** 2).mean()
    logger.push(traced, front=True)
    program = dispatch.export(traced)
    print(drain(logger), program)  # expect: DL003


if __name__ == "__main__":
    main()
