"""Run a curriculum of training stages, the last of which only captures the model for export."""
from dispatch_lint import runtime as dispatch

STAGES = ["easy", "medium", "hard", "export"]


def make_inputs(stage, cap):
    if stage == "export":
        return dispatch.placeholder((4, 3), device=cap, name="batch")
    seed = STAGES.index(stage)
    return dispatch.Autodiff(dispatch.NumPy()).wrap(dispatch.rand((4, 3), seed=seed))


def main():
    weight = dispatch.rand((3, 2), seed=20)
    cap = dispatch.Capture()
    history, program = [], None
    for i, stage in enumerate(STAGES):
        batch = make_inputs(stage, cap)
        last = i == len(STAGES) - 1
        if last:
            program = dispatch.export((batch @ weight.to_device(cap)).tanh())
            break
        w = batch.device.wrap(weight).require_grad()
        loss = (batch @ w).tanh().sum()
        grads = loss.backward()
        weight = weight - 0.05 * w.grad(grads)
        history.append(round(loss.inner().item(), 4))
    print(history, program)
    return program.run({"batch": dispatch.ones((4, 3))}).tolist()


if __name__ == "__main__":
    main()
