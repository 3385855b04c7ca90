"""A class-based device scope that swaps the module's default device for export and restores it on exit."""
from dispatch_lint import runtime as dispatch

DEFAULT_DEVICE = dispatch.Autodiff(dispatch.NumPy())


class DeviceScope:
    def __init__(self, device):
        self.device = device
        self._saved = None

    def __enter__(self):
        global DEFAULT_DEVICE
        self._saved = DEFAULT_DEVICE
        DEFAULT_DEVICE = self.device
        return self.device

    def __exit__(self, exc_type, exc, tb):
        global DEFAULT_DEVICE
        DEFAULT_DEVICE = self._saved
        return False


def make_input(shape, seed):
    return dispatch.rand(shape, seed=seed, device=DEFAULT_DEVICE)


def main():
    w = dispatch.rand((3, 1), seed=0)
    with DeviceScope(dispatch.Capture()) as cap:
        x = make_input((2, 3), seed=1)
        program = dispatch.export(x @ w.to_device(cap))
    print("exported", len(program.to_json()), "bytes")
    x = make_input((2, 3), seed=1).require_grad()
    loss = (x @ w).sum()
    grads = loss.backward()
    print("grad", x.grad(grads).tolist())


if __name__ == "__main__":
    main()
