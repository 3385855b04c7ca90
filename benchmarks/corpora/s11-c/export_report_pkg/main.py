"""Trace the ranking model, export it and print a summary of the traced outputs."""
from dispatch_lint import runtime as dispatch

from export_report_pkg import model, report


def main():
    weights = dispatch.tensor([0.2, 0.5, -0.3])
    outputs = model.trace(weights)
    program = dispatch.export(*outputs.values())
    print(repr(program))
    text = report.summarize(outputs, skip=("score", "prob"))  # expect: DL003
    print(text)
    return text


if __name__ == "__main__":
    main()
