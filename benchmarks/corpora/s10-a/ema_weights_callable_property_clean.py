"""Keep an exponential moving average of trained weights with a callable EMA and export the averaged model."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


class EMA:
    def __init__(self, params, decay=0.9):
        self.decay = decay
        self._shadow = {name: p.inner() for name, p in params.items()}
        self.updates = 0

    @staticmethod
    def warmup_decay(decay, updates):
        return min(decay, (1 + updates) / (10 + updates))

    @property
    def shadow(self):
        return dict(self._shadow)

    def __call__(self, params):
        d = self.warmup_decay(self.decay, self.updates)
        for name, p in params.items():
            self._shadow[name] = d * self._shadow[name] + (1 - d) * p.inner()
        self.updates += 1


def main():
    device = dispatch.Autodiff(dispatch.NumPy())
    params = {"w": dispatch.rand((2, 2), seed=0, device=device).require_grad()}
    ema = EMA(params)
    x = dispatch.rand((3, 2), seed=1)
    with guards.training():
        for _ in range(3):
            grads = ((x @ params["w"]) ** 2).mean().backward()
            params = {k: (p - 0.1 * p.grad(grads)).require_grad() for k, p in params.items()}
            ema(params)

    cap = dispatch.Capture()
    xs = dispatch.placeholder((3, 2), device=cap, name="x")
    averaged = {k: v.to_device(cap) for k, v in ema.shadow.items()}
    out = xs @ averaged["w"]
    out = dispatch.replay(out, {"x": x})
    print(ema.updates, float(out.sum()))


if __name__ == "__main__":
    main()
