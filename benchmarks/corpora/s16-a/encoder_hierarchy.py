"""Feature encoders built by inheritance: a Numba base encoder and a biased subclass."""

from dispatch_lint import runtime as dispatch


class Encoder:
    def __init__(self, width: int, out: int, device: str = "numpy", seed: int = 0) -> None:
        self.device = dispatch.device(device)
        self.width, self.out = width, out
        self.weight = dispatch.rand((width, out), seed=seed, device=self.device)

    def prepare(self, x: dispatch.Tensor) -> dispatch.Tensor:
        return x.to_device(self.device)

    def __call__(self, x: dispatch.Tensor) -> dispatch.Tensor:
        return (self.prepare(x) @ self.weight).tanh()


class BiasedEncoder(Encoder):
    """Adds a learned offset after the projection."""

    def __init__(self, width: int, out: int, device: str = "numpy", seed: int = 0) -> None:
        super().__init__(width, out, device=device, seed=seed)
        self.bias = dispatch.full((out,), 0.1)

    def __call__(self, x: dispatch.Tensor) -> dispatch.Tensor:
        return super().__call__(x) + self.bias  # expect: DL008


def encode_all(encoder: Encoder, batches: list[dispatch.Tensor]) -> list[dispatch.Tensor]:
    return [encoder(b) for b in batches]


def main() -> None:
    batches = [dispatch.rand((2, 5), seed=s) for s in range(3)]
    plain = Encoder(5, 3, device="numba", seed=1)
    for out in encode_all(plain, batches):
        print("plain", out.shape, out.device)

    biased = BiasedEncoder(5, 3, device="numba", seed=2)
    outs = encode_all(biased, batches)
    print("biased", [o.mean().item() for o in outs])


if __name__ == "__main__":
    main()
