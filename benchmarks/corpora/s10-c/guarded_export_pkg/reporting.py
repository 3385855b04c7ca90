"""Log lines for tensors that may or may not be symbolic."""
from guarded_export_pkg.checks import concrete, is_symbolic


def log_line(name, t):
    if is_symbolic(t):
        return f"{name}: {t}"
    return f"{name}: {t.mean().item():.3f}"


def final_metric(t):
    return concrete(t, what="final metric").sum().item()
