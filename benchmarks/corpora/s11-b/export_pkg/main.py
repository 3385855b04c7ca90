"""Export every registered head and check each program on sample data, fused and unfused."""
from dispatch_lint import runtime as dispatch

from export_pkg.checks import output_range
from export_pkg.registry import EXPORTERS


def main():
    weights = {"classifier": dispatch.rand((3, 2), seed=0), "regressor": dispatch.rand((3, 5), seed=1)}
    report = {}
    for name, make in sorted(EXPORTERS.items()):
        program = make(weights[name])
        batch = make.keywords["batch"]
        hi, neg_lo = output_range(program, batch, 3)
        fused_hi, _ = output_range(program, batch, 3, device="numba")
        report[name] = (round(-neg_lo, 4), round(hi, 4), abs(hi - fused_hi) < 1e-5)
    print(report)


if __name__ == "__main__":
    main()
