"""A server that loads an exported program and scores batches on Numba."""

import numpy as np

from dispatch_lint import runtime as dispatch


class Server:
    def __init__(self, program_json: str, input_name: str = "features") -> None:
        self.program = dispatch.Program.from_json(program_json)
        self.input_name = input_name
        self.device = dispatch.Numba()
        self.offset = dispatch.full((1,), -0.05)
        self.served = 0

    def predict(self, batch: np.ndarray) -> dispatch.Tensor:
        scores = self.program.run({self.input_name: batch}, device=self.device)
        self.served += len(batch)
        return (scores + self.offset).sigmoid()  # expect: DL008
