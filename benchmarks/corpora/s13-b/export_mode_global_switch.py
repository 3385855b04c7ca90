"""Warm up on the host device, then switch the module to export mode and trace a batch."""
from dispatch_lint import runtime as dispatch

ACTIVE = dispatch.NumPy()
SCALE = 0.5


def enter_export():
    global ACTIVE
    ACTIVE = dispatch.Capture()


def make_batch(n=4):
    return dispatch.arange(n, device=ACTIVE) * SCALE


def main():
    warm = make_batch().mean()
    if warm > 0:
        print("warm-up mean", float(warm))
    enter_export()
    probe = make_batch().sum()
    status = "positive" if probe > 0 else "empty"  # expect: DL003
    program = dispatch.export(probe)
    print(status, program)
    return program


if __name__ == "__main__":
    main()
