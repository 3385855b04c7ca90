"""Drain a queue of losses, refitting each; an urgent export probe jumps the queue."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def make_losses(n):
    losses = []
    for i in range(n):
        w = dispatch.full((2,), float(i + 1), device=AD).require_grad()
        losses.append(((w * w).sum(), w))
    return losses


def probe():
    x = dispatch.placeholder((2,), name="x")
    return (x * x).sum(), x


def main():
    queue = []
    queue.extend(make_losses(3))
    queue.insert(0, probe())
    norms = []
    while queue:
        loss, param = queue.pop(0)
        grads = loss.backward()  # expect: DL001
        norms.append(param.grad(grads).sum().item())
    print("grad sums:", norms)
    return norms


if __name__ == "__main__":
    main()
