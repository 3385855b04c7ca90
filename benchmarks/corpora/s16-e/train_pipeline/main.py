"""Entry point: train, then evaluate the frozen weights."""

from train_pipeline.callbacks import LossHistory, PrintProgress
from train_pipeline.config import TrainConfig, make_batches
from train_pipeline.trainer import Trainer


def main() -> None:
    cfg = TrainConfig(epochs=4, lr=0.2)
    batches = make_batches(cfg)
    history = LossHistory()
    trainer = Trainer(cfg, callbacks=[history, PrintProgress(every=2)])
    trainer.fit(batches)
    metrics = trainer.evaluate(batches)
    print(f"final mse {metrics['mse']:.4f} (history {history.losses[:2]})")


if __name__ == "__main__":
    main()
