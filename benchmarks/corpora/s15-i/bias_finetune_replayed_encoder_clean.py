"""Fine-tune a bias head on top of a frozen exported encoder replayed on an autodiff device."""
from dispatch_lint import runtime as dispatch

AD = dispatch.Autodiff(dispatch.NumPy())


def encoder_program(seed):
    cap = dispatch.Capture()
    tokens = dispatch.placeholder((6, 4), device=cap, name="tokens")
    proj = dispatch.rand((4, 2), seed=seed).to_device(cap)
    return dispatch.export((tokens @ proj).tanh())


class BiasHead:
    def __init__(self):
        self.bias = dispatch.zeros((2,), device=AD).require_grad()

    def __call__(self, feats):
        return feats + self.bias


def main():
    program = encoder_program(seed=2)
    tokens = dispatch.rand((6, 4), seed=9).numpy()
    head = BiasHead()
    target = dispatch.full((6, 2), 0.25, device=AD)
    log = {}
    for step in range(20):
        feats = program.run({"tokens": tokens}, device=AD)
        if feats.is_capture:
            return log
        loss = ((head(feats) - target) ** 2).mean()
        log[step] = loss.item()
        if step and log[step] > log[step - 1]:
            break
        grads = loss.backward()
        head.bias = AD.wrap(head.bias.inner() - 0.3 * head.bias.grad(grads)).require_grad()
    print(f"final loss {log[max(log)]:.4f} over {len(log)} steps")
    return log


if __name__ == "__main__":
    main()
