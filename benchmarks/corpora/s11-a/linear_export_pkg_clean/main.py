"""Train, export through the package API, then train again on the same model."""
from dispatch_lint import runtime as dispatch

from linear_export_pkg_clean import Linear, RunConfig, export_model


def main():
    cfg = RunConfig()
    model = Linear.init(cfg.shape, cfg.device)
    x, y = dispatch.rand((5, 4), seed=1), dispatch.rand((5, 2), seed=2)
    for _ in range(cfg.epochs):
        model.step(((model(x) - y) ** 2).mean())
    program = export_model(model, cfg)
    model.step(((model(x) - y) ** 2).mean())
    out = program.run({"x": x})
    print(f"exported output sum {out.sum().item():.4f}")


if __name__ == "__main__":
    main()
