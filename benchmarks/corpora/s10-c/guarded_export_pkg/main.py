"""Trace a scoring function, log it, replay it and log the final metric."""
import numpy as np

from dispatch_lint import runtime as dispatch
from guarded_export_pkg import reporting


def main():
    x = dispatch.placeholder((3,), name="x")
    score = (x * 2.0).tanh()
    print(reporting.log_line("score (traced)", score))
    replayed = dispatch.replay(score, {"x": np.array([0.1, 0.2, 0.3], dtype=np.float32)})
    print(reporting.log_line("score (replayed)", replayed))
    print("final", reporting.final_metric(replayed))


if __name__ == "__main__":
    main()
