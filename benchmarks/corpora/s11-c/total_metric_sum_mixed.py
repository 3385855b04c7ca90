"""Sum the weighted loss terms of an evaluation step into one total."""
from dispatch_lint import runtime as dispatch

WEIGHTS = {"recon": 1.0, "kl": 0.1, "aux": 0.5}


def main():
    recon = ((dispatch.rand((4,), seed=0) - 0.5) ** 2).mean()
    kl = dispatch.tensor(0.2)
    cap = dispatch.Capture()
    aux = dispatch.placeholder((4,), device=cap, name="aux").mean()
    terms = dict(recon=recon, kl=kl)
    terms.update(aux=aux)
    weighted = [WEIGHTS[name] * t for name, t in terms.items()]
    total = sum(weighted)  # expect: DL008
    return total


if __name__ == "__main__":
    main()
