"""Logging and export callbacks for the trainer."""
from dispatch_lint import runtime as dispatch
from train_hooks_pkg_clean.hooks import on


@on("batch_end")
def log_loss(step, loss, log):
    if dispatch.is_capture(loss):
        log.append((step, "traced", str(loss)))
        return
    log.append((step, "loss", loss.item()))


@on("batch_end")
def clip_check(step, loss, log):
    if not loss.is_capture and loss.item() > 1e6:
        raise FloatingPointError(f"loss diverged at step {step}")


@on("fit_end")
def export_model(step, loss, log):
    log.append(("export", len(dispatch.export(loss).to_json())))
