"""The session object: eager training first, then an armed capture for export."""

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


class ExportSession:
    def __init__(self, width, rows=4):
        self.device = dispatch.Autodiff(dispatch.NumPy())
        self.batch = dispatch.rand((rows, width), seed=0)
        self.weight = dispatch.rand((width, 2), seed=1, device=self.device).require_grad()
        self.graph = None
        self.programs = {}

    def forward(self):
        return (self.batch @ self.weight).tanh()

    def preview(self, spec=".4f"):
        return f"mean activation {self.forward().mean():{spec}}"

    def fit(self, steps, lr=0.1):
        with guards.training():
            for step in range(steps):
                loss = ((self.forward() - 0.5) ** 2).mean()
                grads = loss.backward()
                self.weight = (self.weight - self.weight.grad(grads) * lr).require_grad()
                if loss.item() < 1e-6:
                    break
        return loss.item()

    def arm(self, name="batch"):
        """From here on the session's fields are capture tensors on a fresh graph."""
        self.graph = dispatch.Capture()
        self.batch = dispatch.placeholder(self.batch.shape, device=self.graph, name=name)
        self.weight = self.weight.inner().to_device(self.graph)
        return self.graph

    def export(self, key="forward"):
        if self.graph is None:
            raise RuntimeError("arm() the session before exporting")
        self.programs[key] = dispatch.export(self.forward())
        return self.programs[key]
