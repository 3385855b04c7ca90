"""Run an exported program on sample data and report the output range."""
from dispatch_lint import runtime as dispatch


def output_range(program, batch, features, device="numpy"):
    sample = dispatch.rand((batch, features), seed=11)
    out = program.run({"x": sample}, device=device)
    return out.max().item(), (-out).max().item()
