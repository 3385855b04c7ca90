"""Dispatch trainer events with structural pattern matching and log their payloads."""
from dataclasses import dataclass

from dispatch_lint import runtime as dispatch


@dataclass
class TrainStep:
    step: int
    loss: object


@dataclass
class ExportDone:
    name: str
    output: object


@dataclass
class Checkpoint:
    path: str


def handle(event, history):
    match event:
        case TrainStep(step=step, loss=loss) if step % 2 == 0:
            history.append((step, loss.item()))
        case TrainStep(step=step):
            history.append((step, None))
        case ExportDone(name=name, output=out):
            history.append((name, out.sum().item()))
        case Checkpoint(path=path):
            history.append(("ckpt", path))


def main():
    dev = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.tensor([0.5, -0.5], device=dev).require_grad()
    history = []
    handle(TrainStep(0, (w * w).sum()), history)
    handle(Checkpoint("/tmp/ckpt-0"), history)
    probe = dispatch.placeholder((2,), name="probe")
    handle(ExportDone("head", probe * 2.0), history)  # expect: DL003
    print(history)


if __name__ == "__main__":
    main()
