"""Pick the activation with the largest total response among eval and traced candidates."""
from dispatch_lint import runtime as dispatch

ACTIVATIONS = {"relu": dispatch.relu, "tanh": dispatch.tanh, "sigmoid": dispatch.sigmoid}


def responses(x):
    return {name: fn(x) for name, fn in ACTIVATIONS.items()}


def main():
    x = dispatch.rand((4, 3), seed=9) - 0.5
    evals = responses(x)
    best_eval = max(evals, key=lambda name: evals[name].sum().item())
    print("eval pick", best_eval)

    cap = dispatch.Capture()
    px = dispatch.placeholder((4, 3), device=cap, name="x")
    pool = [*evals.values(), *responses(px).values()]
    best = max(pool, key=lambda t: t.sum().item())  # expect: DL003
    return dispatch.export(best)


if __name__ == "__main__":
    main()
