"""Plain-text rows for the end-of-epoch report."""

from stats_pkg.metrics import RunningMean


def format_row(name: str, metric: RunningMean) -> str:
    return f"{name:<10} n={metric.count:<3} mean={metric.value:.4f}"


def header() -> str:
    return f"{'metric':<10} {'count':<5} value"
