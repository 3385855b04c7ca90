"""Train a linear probe with a guarded step while a preview of the step is exported alongside."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AD = dispatch.Autodiff(dispatch.NumPy())


@guards.no_capture
def train_step(weight, inputs, targets, lr=0.05):
    weight = AD.wrap(weight).require_grad()
    pred = AD.wrap(inputs) @ weight
    loss = ((pred - AD.wrap(targets)) ** 2).mean()
    grads = loss.backward()
    return weight.inner() - lr * weight.grad(grads), loss.inner().item()


def preview(weight):
    cap = dispatch.Capture()
    inputs = dispatch.placeholder((8, 3), device=cap, name="inputs")
    return dispatch.export(inputs @ weight.to_device(cap))


def main():
    weight = dispatch.zeros((3, 1))
    inputs = dispatch.rand((8, 3), seed=1)
    targets = inputs.sum(axis=1).reshape((8, 1))
    program = preview(weight)
    losses = []
    for _ in range(5):
        batch = guards.ensure_not_capture(inputs, what="training batch")
        weight, loss = train_step(weight, batch, targets)
        losses.append(loss)
    served = program.run({"inputs": inputs})
    print(f"probe loss {losses[-1]:.4f} served {served.shape}", program)
    return losses


if __name__ == "__main__":
    main()
