"""Build token embeddings through factory constructors and add a learned position bias."""
from dispatch_lint import runtime as dispatch


class Embedding:
    def __init__(self, table, name="embed"):
        self.table = table
        self.name = name

    @classmethod
    def random(cls, vocab, dim, device=None):
        return cls(dispatch.rand((vocab, dim), seed=11, device=device))

    @classmethod
    def for_export(cls, vocab, dim):
        table = dispatch.placeholder((vocab, dim), device=dispatch.Capture(), name="table")
        return cls(table, name="embed_export")

    @property
    def device(self):
        return self.table.device

    @property
    def dim(self):
        return self.table.shape[1]

    def lookup(self, one_hot):
        return one_hot @ self.table


def position_bias(dim, device):
    return dispatch.arange(dim, device=device, dtype="float32") * 0.01


def main():
    train_emb = Embedding.random(8, 4)
    tokens = dispatch.ones((3, 8))
    hidden = train_emb.lookup(tokens) + position_bias(train_emb.dim, train_emb.device)
    print("train hidden", hidden.shape, train_emb.device)

    export_emb = Embedding.for_export(8, 4)
    bias = position_bias(export_emb.dim, export_emb.device)
    traced = export_emb.lookup(tokens.to_device(export_emb.device)) + bias
    return dispatch.export(traced)


if __name__ == "__main__":
    main()
