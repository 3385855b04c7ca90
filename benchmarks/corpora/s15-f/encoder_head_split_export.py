"""Export an encoder and a classification head as two programs for a staged deployment."""
from dispatch_lint import runtime as dispatch


def encode(cap, w_enc):
    tokens = dispatch.placeholder((2, 6), device=cap, name="tokens")
    hidden = (tokens @ w_enc.to_device(cap)).relu()
    return hidden


def classify(cap, hidden, w_head):
    hidden = hidden.to_device(cap)
    logits = hidden @ w_head.to_device(cap)
    return (logits - logits.max(axis=1).reshape((2, 1))).exp()


def main():
    w_enc = dispatch.rand((6, 4), seed=21)
    w_head = dispatch.rand((4, 3), seed=22)
    enc_cap, head_cap = dispatch.Capture(), dispatch.Capture()
    hidden = encode(enc_cap, w_enc)
    encoder = dispatch.export(hidden)
    scores = classify(head_cap, hidden, w_head)  # expect: DL002
    head = dispatch.export(scores)
    return encoder, head


if __name__ == "__main__":
    main()
