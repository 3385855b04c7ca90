"""Pick a reference loss from saved candidates, preferring real values, and report the baseline."""
from dispatch_lint import runtime as dispatch


def pick_reference(candidates):
    for name, t in candidates:
        if dispatch.is_capture(t):
            continue
        ref = t
        break
    else:
        name, ref = candidates[-1]
    return name, ref


def traced_candidates(n):
    cap = dispatch.Capture()
    x = dispatch.placeholder((5,), device=cap, name="x")
    found = []
    for k in range(1, n + 1):
        found.append((f"order{k}", (x ** k).mean()))
    return found


def main():
    candidates = traced_candidates(3)
    name, ref = pick_reference(candidates)
    baseline = ref.item()  # expect: DL003
    print(f"reference {name}: {baseline:.4f}")
    return name, baseline


if __name__ == "__main__":
    main()
