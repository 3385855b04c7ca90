"""Train with registered callbacks, export the loss graph and log the final loss."""
from dispatch_lint import runtime as dispatch

from callbacks_pkg import builtin, trainer
from callbacks_pkg.registry import fire


def main():
    w = dispatch.rand((3, 1), seed=0, device="autodiff:numpy").require_grad()
    x = dispatch.rand((8, 3), seed=1)
    y = dispatch.rand((8, 1), seed=2)
    w = trainer.fit(w, x, y)

    final = trainer.trace_loss(w, batch=8)
    fire("export", program=dispatch.export(final), output=final)
    fire("step_end", step=builtin.COUNTS["steps"], loss=final)  # expect: DL003
    print("\n".join(builtin.LOG))


if __name__ == "__main__":
    main()
