"""Back-propagate each task loss after a helper has validated the task losses."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def validated(losses):
    guards.ensure_not_capture(losses[0], what="primary loss")
    return losses


def train_tasks(losses):
    losses = validated(losses)
    report = []
    for i, loss in enumerate(losses):
        grads = loss.backward()
        report.append((i, len(grads)))
    return report


def main():
    dev = dispatch.Autodiff(dispatch.NumPy())
    w = dispatch.tensor([0.2, 0.4], device=dev).require_grad()
    primary = (w * w).sum()
    cap = dispatch.Capture()
    aux_in = dispatch.placeholder((2,), device=cap, name="aux")
    aux = (aux_in * 0.5).sum()
    print(train_tasks([primary, aux]))  # expect: DL001


if __name__ == "__main__":
    main()
