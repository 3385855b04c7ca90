"""Build every configured head by name and collect its outputs as host arrays."""
from dispatch_lint import runtime as dispatch

from head_registry_build import eager_heads, registry, traced_heads  # noqa: F401

RUN = ["linear", "mlp", "linear_export"]
HOST = dispatch.NumPy()


def main():
    feats = dispatch.rand((4, 3), seed=0)
    outputs = {}
    for name in RUN:
        out = registry.build(name, feats, width=2)
        outputs[name] = out.to_device(HOST).numpy()  # expect: DL002
    print({name: arr.shape for name, arr in outputs.items()})
    return outputs


if __name__ == "__main__":
    main()
