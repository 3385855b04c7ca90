"""Serve an exported program: every result it returns is a real tensor."""

from dispatch_lint import runtime as dispatch
from serving_clean.config import ServingConfig


class Ranker:
    def __init__(self, weight: dispatch.Tensor) -> None:
        self.weight = weight

    def __call__(self, items: dispatch.Tensor) -> dispatch.Tensor:
        return (items @ self.weight).sigmoid()


class Server:
    def __init__(self, program: dispatch.Program, config: ServingConfig) -> None:
        self.program, self.config = program, config

    @classmethod
    def from_json(cls, text: str, config: ServingConfig) -> "Server":
        return cls(dispatch.Program.from_json(text), config)

    @staticmethod
    def keep(scores: dispatch.Tensor, threshold: float) -> list[int]:
        return [i for i, s in enumerate(scores.tolist()) if s[0] > threshold]

    def __call__(self, items) -> list[int]:
        scores = self.program.run({self.config.input_name: items}, device=self.config.run_device)
        return self.keep(scores, self.config.thresholds["keep"])
