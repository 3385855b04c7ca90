"""Look up the device for a job in a registry filled by a decorator, then set up weights."""
from dispatch_lint import runtime as dispatch

DEVICE_FACTORIES = {}


def register(job):
    def decorator(factory):
        DEVICE_FACTORIES[job] = factory
        return factory
    return decorator


@register("train")
def train_device():
    return dispatch.Autodiff(dispatch.NumPy())


@register("export")
def export_device():
    return dispatch.Capture()


@register("bench")
def bench_device():
    return dispatch.Numba()


def init_params(job, shapes):
    dev = DEVICE_FACTORIES[job]()
    return {name: dispatch.zeros(shape, device=dev) for name, shape in shapes.items()}


def main():
    shapes = {"w": (3, 2), "b": (2,)}
    params = init_params("train", shapes)
    trainable = {k: v.require_grad() for k, v in params.items()}
    frozen = init_params("export", shapes)
    frozen["w"].require_grad()  # expect: DL001
    return trainable, frozen


if __name__ == "__main__":
    main()
