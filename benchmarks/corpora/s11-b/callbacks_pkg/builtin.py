"""Built-in callbacks: loss logging, step counting, export description."""
from .registry import callback

LOG = []
COUNTS = {"steps": 0}


@callback("step_end")
def log_loss(step, loss, **_):
    LOG.append(f"step {step}: loss={loss:.4f}")


@callback("step_end")
def count_steps(step, **_):
    COUNTS["steps"] = step + 1


@callback("export")
def describe_export(program, output, **_):
    LOG.append(f"exported {len(program.to_json())} bytes for {output}")
