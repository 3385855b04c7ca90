"""Export a multi-head scorer and pull the auxiliary heads back to the host for logging."""
import numpy as np

from dispatch_lint import runtime as dispatch


def heads(features, weights):
    trunk = (features @ weights["trunk"]).relu()
    return [trunk @ weights[name] for name in ("main", "aux_a", "aux_b")]


def main():
    weights = {name: dispatch.rand(shape, seed=i)
               for i, (name, shape) in enumerate([("trunk", (4, 6)), ("main", (6, 1)),
                                                  ("aux_a", (6, 2)), ("aux_b", (6, 3))])}
    cap = dispatch.Capture()
    feats = dispatch.placeholder((2, 4), device=cap, name="feats")
    on_cap = {k: v.to_device(cap) for k, v in weights.items()}
    main_head, *aux = heads(feats, on_cap)
    program = dispatch.export(main_head, *aux)
    sample = np.ones((2, 4), dtype=np.float32)
    score, *aux_out = program.run({"feats": sample})

    report = {"main": score.numpy().ravel().tolist()}
    host = dispatch.NumPy()
    for name, head in zip(("aux_a", "aux_b"), aux):
        report[name] = head.to_device(host).shape  # expect: DL002
    report.update({f"{n}_ran": t.shape for n, t in zip(("aux_a", "aux_b"), aux_out)})
    return report


if __name__ == "__main__":
    main()
