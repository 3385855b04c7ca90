"""Export an encoder and a decoder as two programs, handing the encoder output to the decoder."""
import functools
from dataclasses import dataclass, field

from dispatch_lint import runtime as dispatch


@dataclass
class StageConfig:
    name: str
    in_shape: tuple
    device: dispatch.Device = field(default_factory=dispatch.Capture)
    seed: int = 0

    def input_factory(self):
        return functools.partial(dispatch.placeholder, self.in_shape, device=self.device)


def run_stage(cfg, body, inputs=None):
    if inputs is None:
        inputs = cfg.input_factory()(name=f"{cfg.name}_in")
    else:
        inputs = inputs.to_device(cfg.device)
    weight = dispatch.rand((cfg.in_shape[-1], 4), seed=cfg.seed).to_device(cfg.device)
    return body(inputs, weight)


def main():
    encoder_cfg = StageConfig("encoder", (2, 6), seed=1)
    decoder_cfg = StageConfig("decoder", (2, 4), seed=2)
    stages = [encoder_cfg, decoder_cfg]
    widths = sorted(stages, key=lambda c: c.in_shape[-1])
    print("narrowest stage:", widths[0].name)
    encoded = run_stage(encoder_cfg, lambda x, w: (x @ w).relu())
    enc_program = dispatch.export(encoded)
    sample = enc_program.run({"encoder_in": dispatch.rand((2, 6), seed=3).numpy()})
    print("encoder sample:", sample.shape)
    decoded = run_stage(decoder_cfg, lambda h, w: (h @ w).tanh(), inputs=encoded)  # expect: DL002
    return dispatch.export(decoded)


if __name__ == "__main__":
    main()
