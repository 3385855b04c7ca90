"""Train a linear probe and a distilled student that reuses the probe's training loop."""
from dispatch_lint import runtime as dispatch


class LinearProbe:
    def __init__(self, features, seed=0):
        self.device = self.pick_device()
        self.w = dispatch.rand((features, 1), seed=seed, device=self.device)
        self.history = []

    def pick_device(self):
        return dispatch.Autodiff(dispatch.NumPy())

    def forward(self, x):
        return (x @ self.w).sigmoid()

    def train_step(self, x, target, lr=0.1):
        w = self.w.require_grad()
        self.w = w
        loss = ((self.forward(x) - target) ** 2).mean()
        grads = loss.backward()
        self.w = self.device.wrap(w.inner() - lr * w.grad(grads))
        self.history.append(loss.inner().item())
        return self.history[-1]


class DistilledStudent(LinearProbe):
    def __init__(self, features, temperature=2.0):
        super().__init__(features, seed=5)
        self.temperature = temperature

    def pick_device(self):
        return dispatch.NumPy()

    def forward(self, x):
        return (x @ self.w / self.temperature).sigmoid()


def main():
    x = dispatch.rand((6, 3), seed=1)
    target = dispatch.ones((6, 1))
    probe = LinearProbe(3)
    for _ in range(2):
        probe.train_step(x, target)
    student = DistilledStudent(3)
    soft = probe.forward(x).inner()
    student.train_step(x, soft)  # expect: DL006
    return probe.history


if __name__ == "__main__":
    main()
