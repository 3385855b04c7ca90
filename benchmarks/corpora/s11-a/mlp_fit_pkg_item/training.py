"""One gradient step over an MLP."""


def fit_step(model, x, y, lr=0.1):
    loss = ((model(x) - y) ** 2).mean()
    grads = loss.backward()
    model.weights = [(w - lr * w.grad(grads)).require_grad() for w in model.weights]
    return loss
