"""Queue checkpoint savers during training and run them all when the epoch ends."""
import numpy as np

from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())
HOST = dispatch.NumPy()


def make_saver(store, name, param):
    def save():
        store[name] = param.to_device(HOST).numpy()
    return save


def epoch(params, x, lr=0.05):
    loss = (x @ params["w"] + params["b"]).relu().sum()
    grads = loss.backward()
    return {k: AD.wrap(p.inner() - lr * p.grad(grads)).require_grad() for k, p in params.items()}


def main():
    params = {"w": AD.wrap(dispatch.rand((4, 2), seed=5)).require_grad(),
              "b": AD.wrap(dispatch.zeros((2,))).require_grad()}
    x = dispatch.rand((6, 4), seed=6, device=AD)
    store, pending = {}, []
    for _ in range(2):
        params = epoch(params, x)
    pending.append(make_saver(store, "b", params["b"].inner()))
    pending.append(make_saver(store, "w", params["w"]))
    for save in pending:
        save()  # expect: DL007
    sizes = {k: int(np.prod(v.shape)) for k, v in store.items()}
    print(sizes)
    return store


if __name__ == "__main__":
    main()
