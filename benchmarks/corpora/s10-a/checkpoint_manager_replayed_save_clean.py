"""Save replayed outputs of an exported model through a dataclass checkpoint manager."""
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class CheckpointManager:
    device: str = "numpy"
    keep: int = 2
    slots: list = field(default_factory=list)

    def save(self, step, tensors):
        snapshot = {name: t.to_device(self.device).numpy() for name, t in tensors.items()}
        self.slots.append((step, snapshot))
        while len(self.slots) > self.keep:
            self.slots.pop(0)

    @property
    def latest(self):
        return self.slots[-1] if self.slots else None


def build_program():
    cap = dispatch.Capture()
    x = dispatch.placeholder((2, 3), device=cap, name="x")
    w = dispatch.tensor([[1.0], [0.5], [-1.0]]).to_device(cap)
    hidden = (x @ w).relu()
    return dispatch.export(hidden, hidden.sum()), hidden


def main():
    program, traced_hidden = build_program()
    manager = CheckpointManager(keep=2)
    for step in range(3):
        batch = dispatch.rand((2, 3), seed=step).numpy()
        hidden, total = program.run({"x": batch})
        outputs = {"hidden": hidden, "total": total}
        if step == 99:
            outputs["traced"] = traced_hidden
        manager.save(step, outputs)
    step, arrays = manager.latest
    print(step, sorted(arrays), len(manager.slots))


if __name__ == "__main__":
    main()
