"""A generator of batches on the training device: real tensors, trained on."""

from dispatch_lint import runtime as dispatch


def batches(device, count):
    for index in range(count):
        yield dispatch.full((2,), float(index + 1), device=device)


def train(device):
    weights = dispatch.ones((2,), device=device).require_grad()
    total = 0.0
    for batch in batches(device, 3):
        loss = (weights * batch).sum()
        grads = loss.backward()
        total += float(weights.grad(grads).sum().item())
    return total


def main() -> None:
    print(train(dispatch.Autodiff(dispatch.NumPy())))


if __name__ == "__main__":
    main()
