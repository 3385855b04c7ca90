"""Entry point: export the scorer, serve a few batches, report the mean score."""

from dispatch_lint import runtime as dispatch

from export_serve.exporter import ExportSpec, export_model
from export_serve.model import init_params
from export_serve.serving import Server


def main() -> None:
    params = init_params(seed=7)
    spec = ExportSpec()
    server = Server(export_model(params, spec), input_name=spec.input_name)
    batches = [dispatch.rand((spec.batch, spec.features), seed=s).numpy() for s in range(3)]
    scores = [server.predict(batch) for batch in batches]
    mean = sum(float(s.mean()) for s in scores) / len(scores)
    print(f"served {server.served} rows, mean score {mean:.3f}")


if __name__ == "__main__":
    main()
