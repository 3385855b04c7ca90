"""A small regression model whose parameters can be traced for export."""
from dispatch_lint import runtime as dispatch


class Regressor:
    def __init__(self, device):
        self.w = dispatch.rand((3, 1), seed=0, device=device).require_grad()
        self.b = dispatch.zeros((1,), device=device).require_grad()

    def parameters(self):
        return {"w": self.w, "b": self.b}

    def traced(self, cap):
        return {name: p.inner().to_device(cap) for name, p in self.parameters().items()}
