"""Clip gradients parameter by parameter and report norms, skipping traced probes."""
from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards

AD = dispatch.Autodiff(dispatch.NumPy())


def grad_norm(g):
    return (g * g).sum().sqrt()


def main():
    names = ["embed", "proj", "bias"]
    shapes = [(5, 3), (3, 2), (2,)]
    params = [AD.wrap(dispatch.rand(s, seed=i)).require_grad() for i, s in enumerate(shapes)]
    x = dispatch.rand((4, 5), seed=11, device=AD)
    loss = ((x @ params[0] @ params[1] + params[2]) ** 2).mean()
    grads = loss.backward()

    gs = [p.grad(grads) for p in params]
    cap = dispatch.Capture()
    probe = dispatch.placeholder((2,), device=cap, name="probe")
    names.append("probe")
    gs.append(probe * 2.0)

    clipped, norms = [], {}
    for i, (name, g) in enumerate(zip(names, gs)):
        if guards.is_capture(g):
            continue
        norm = grad_norm(g).item()
        norms[name] = norm
        scale = min(1.0, 0.5 / (norm + 1e-6))
        clipped.append((i, name, g * scale))
    updated = [params[i].inner() - 0.1 * g for i, _, g in clipped]
    return norms, [u.shape for u in updated]


if __name__ == "__main__":
    main()
