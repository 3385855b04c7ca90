"""Loss helpers grouped as staticmethods, used for a traced evaluation and a gradient step."""
from dispatch_lint import runtime as dispatch


class Losses:
    @staticmethod
    def mse(pred, target):
        diff = pred - target
        return (diff * diff).mean()

    @staticmethod
    def l2(weights, scale=1e-3):
        return (weights * weights).sum() * scale

    @staticmethod
    def step(loss, weights, lr=0.1):
        grads = loss.backward()
        return (weights - lr * weights.grad(grads)).require_grad()


def main():
    ad = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.rand((3, 1), seed=0, device=ad).require_grad()
    x, y = dispatch.rand((6, 3), seed=1), dispatch.rand((6, 1), seed=2)
    w = Losses.step(Losses.mse(x @ w, y) + Losses.l2(w), w)

    cap = dispatch.Capture()
    xs = dispatch.placeholder((6, 3), device=cap, name="x")
    ys = dispatch.placeholder((6, 1), device=cap, name="y")
    eval_loss = Losses.mse(xs @ w.inner().to_device(cap), ys)
    w = Losses.step(eval_loss, w)  # expect: DL001
    print(w)


if __name__ == "__main__":
    main()
