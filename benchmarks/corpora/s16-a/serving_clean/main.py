"""Record a ranker in an export session, ship it as JSON, and serve two requests."""

import numpy as np

from dispatch_lint import runtime as dispatch
from serving_clean.config import ServingConfig
from serving_clean.server import Ranker, Server
from serving_clean.session import ExportSession


def main() -> None:
    config = ServingConfig()
    ranker = Ranker(dispatch.rand((config.features, 1), seed=4))
    with ExportSession(config) as session:
        traced = Ranker(session.lift(ranker.weight))
        session.output(traced(session.input()))
    server = Server.from_json(session.program.to_json(), config)
    rng = np.random.default_rng(0)
    for _ in range(2):
        request = rng.random((config.batch, config.features)).astype(np.float32)
        eager = ranker(dispatch.from_numpy(request))
        print("kept", server(request), "eager", Server.keep(eager, 0.5))


if __name__ == "__main__":
    main()
