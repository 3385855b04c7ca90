"""Train on the session's eager batch, then trace the model once the session switches."""

from tracing_state import model, state


def train(params, steps):
    for _ in range(steps):
        loss = model.loss_of(model.forward(state.SAMPLE, params))
        params = model.sgd(params, loss.backward())
    return params, loss


def main():
    params = model.init_params(state.ACTIVE_DEVICE)
    print(f"input checksum {state.SAMPLE.sum():.3f}")
    params, loss = train(params, steps=5)
    print(f"final loss {loss.item():.5f}")
    device = state.begin_trace((4, 3))
    traced = model.forward(state.SAMPLE, model.for_export(params, device))
    # One more gradient check "on the exported graph" before shipping it.
    check = model.loss_of(traced).backward()  # expect: DL001
    print(check)


if __name__ == "__main__":
    main()
