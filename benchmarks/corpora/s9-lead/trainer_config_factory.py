"""A trainer whose device comes from a dataclass field with a default factory."""

from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class TrainerConfig:
    steps: int = 3
    device: object = field(default_factory=dispatch.Capture)


class Trainer:
    def __init__(self, config):
        self.config = config
        self.weights = dispatch.ones((4,), device=config.device)

    def step(self, batch):
        prediction = self.weights * batch
        loss = (prediction ** 2).sum()
        loss.backward()
        return loss


def main() -> None:
    trainer = Trainer(TrainerConfig())
    for _ in range(trainer.config.steps):
        trainer.step(dispatch.ones((4,), device=trainer.config.device))  # expect: DL001


if __name__ == "__main__":
    main()
