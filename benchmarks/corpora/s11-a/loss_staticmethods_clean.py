"""Loss helpers as staticmethods; the step helper skips traced losses and only updates on real ones."""
from dispatch_lint import runtime as dispatch


class Losses:
    @staticmethod
    def mse(pred, target):
        diff = pred - target
        return (diff * diff).mean()

    @staticmethod
    def step(loss, weights, lr=0.1):
        if dispatch.is_capture(loss):
            return weights
        grads = loss.backward()
        return (weights - lr * weights.grad(grads)).require_grad()


def main():
    ad = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.rand((3, 1), seed=0, device=ad).require_grad()
    x, y = dispatch.rand((6, 3), seed=1), dispatch.rand((6, 1), seed=2)
    w = Losses.step(Losses.mse(x @ w, y), w)

    cap = dispatch.Capture()
    xs = dispatch.placeholder((6, 3), device=cap, name="x")
    ys = dispatch.placeholder((6, 1), device=cap, name="y")
    eval_loss = Losses.mse(xs @ w.inner().to_device(cap), ys)
    w = Losses.step(eval_loss, w)
    program = dispatch.export(eval_loss)
    print(program.run({"x": x, "y": y}).item(), w.shape)


if __name__ == "__main__":
    main()
