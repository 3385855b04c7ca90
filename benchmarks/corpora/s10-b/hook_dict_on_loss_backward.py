"""Runs a tiny regression loop whose per-event hooks are looked up in a dict, with an export pass."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def on_loss(loss, state):
    grads = loss.backward()
    state["grads"] = grads


def on_step_end(loss, state):
    state.setdefault("history", []).append(str(loss))


HOOKS = {"loss": on_loss, "step_end": on_step_end}


def fire(event, *args):
    hook = HOOKS.get(event)
    if hook is not None:
        hook(*args)


def forward(w, x, y):
    return ((x * w - y) ** 2.0).mean()


def main():
    w = dispatch.tensor([0.5, -0.25, 1.0], device=AD).require_grad()
    x = dispatch.rand((3,), seed=0, device=AD)
    y = dispatch.ones((3,), device=AD)
    state = {}
    for step in range(3):
        loss = forward(w, x, y)
        fire("loss", loss, state)
        fire("step_end", loss, state)
    # trace the same forward for export and run the hooks on it as well
    xp = dispatch.placeholder((3,), name="x")
    yp = dispatch.placeholder((3,), device=xp.device, name="y")
    traced = forward(w.inner().to_device(xp.device), xp, yp)
    for event in ("step_end", "loss"):
        fire(event, traced, state)  # expect: DL001
    return dispatch.export(traced)


if __name__ == "__main__":
    main()
