"""Trace the classifier head, export it and print an evaluation summary."""
from dispatch_lint import runtime as dispatch
from eval_report_pkg import metrics
from eval_report_pkg.model import traced_head


def main():
    outputs = traced_head()
    program = dispatch.export(*outputs.values())
    print(program)
    for name, row in metrics.summarize(outputs).items():  # expect: DL003
        print(name, row)


if __name__ == "__main__":
    main()
