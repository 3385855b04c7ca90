"""Create layers on registry devices, checkpoint them, and build an export layer."""
from dispatch_lint import runtime as dispatch

from device_registry_pkg_item import Dense, registry
from device_registry_pkg_item.checkpoint import save


def main():
    store = {}
    with registry.using("numba"):
        fast = Dense.create(3, 2)
    save(fast, store, "fast")
    default = Dense.create(3, 2, seed=1)
    save(default, store, "default")
    cap = registry.activate("capture")
    export_layer = Dense.create(3, 2, seed=2)
    x = dispatch.placeholder((1, 3), device=cap, name="x")
    program = dispatch.export(export_layer(x))
    print(sorted(store), program.to_json()[:20])
    save(export_layer, store, "export")  # expect: DL003


if __name__ == "__main__":
    main()
