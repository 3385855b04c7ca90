"""Pick the first evaluated candidate from an export sweep and report its score."""
from dispatch_lint import runtime as dispatch


def main():
    cap = dispatch.Capture()
    x = dispatch.placeholder((3,), device=cap, name="x")
    candidates = [x.relu().sum(), x.sigmoid().sum(), x.tanh().sum()]
    chosen_index = None
    for i, cand in enumerate(candidates):
        if not cand.is_capture:
            chosen, chosen_index = cand, i
            break
    else:
        print("no evaluated candidate, using the first trace")
        chosen, chosen_index = candidates[0], 0
    score = chosen.item()  # expect: DL003
    print(f"candidate {chosen_index}: {score:.3f}")
    return score


if __name__ == "__main__":
    main()
