"""Save a layer's parameters as NumPy arrays."""


def save(layer, store, prefix):
    store[f"{prefix}.w"] = layer.w.numpy()
    store[f"{prefix}.b"] = layer.b.numpy()
    return store
