"""Fine-tune a linear probe with settings layered from defaults, a profile and CLI overrides."""
from dispatch_lint import runtime as dispatch

DEFAULTS = {"device": "autodiff:numpy", "lr": 0.1, "steps": 3, "seed": 0}
PROFILES = {
    "full": {"steps": 5},
    "frozen": {"device": "numpy", "steps": 1},
}


def build_settings(profile, **overrides):
    settings = {**DEFAULTS, **PROFILES.get(profile, {})}
    settings.update({k: v for k, v in overrides.items() if v is not None})
    return settings


def train(settings):
    dev = dispatch.device(settings["device"])
    w = dispatch.rand((4, 1), seed=settings["seed"], device=dev)
    x = dispatch.ones((8, 4), device=dev)
    history = []
    for _ in range(settings["steps"]):
        w = w.require_grad()
        loss = ((x @ w) ** 2).mean()
        grads = loss.backward()
        w = dispatch.Autodiff(dispatch.NumPy()).wrap(w.inner() - settings["lr"] * w.grad(grads))
        history.append(loss.item())
    return history


def main():
    runs = {}
    for profile, lr in (("full", None), ("frozen", 0.05)):
        settings = build_settings(profile, lr=lr)
        runs[profile] = train(settings)  # expect: DL006
    return runs


if __name__ == "__main__":
    main()
