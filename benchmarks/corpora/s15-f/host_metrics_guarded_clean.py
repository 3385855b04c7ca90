"""Log metrics from traced and replayed outputs alike, skipping values that hold no data."""
import numpy as np

from dispatch_lint import runtime as dispatch
from dispatch_lint.runtime import guards


def host_value(t):
    if guards.is_capture(t):
        return None
    return round(t.item(), 5)


def checked(t, what):
    return guards.ensure_not_capture(t, what=what)


def summarize(outputs):
    return {name: host_value(t) for name, t in outputs.items()}


def main():
    cap = dispatch.Capture()
    signal = dispatch.placeholder((16,), device=cap, name="signal")
    scale = dispatch.full((16,), 0.5).to_device(cap)
    energy = (signal * scale).exp().mean()
    peak = (signal * scale).max()
    traced = {"energy": energy, "peak": peak}
    before = summarize(traced)
    data = np.linspace(-1.0, 1.0, 16).astype(np.float32)
    energy_r, peak_r = dispatch.replay([energy, peak], {"signal": data}, device="numba")
    after = summarize({"energy": energy_r, "peak": peak_r})
    peak_host = checked(peak_r, "replayed peak").numpy()
    if not np.isclose(peak_host, 0.5, atol=1e-6):
        raise AssertionError(f"unexpected peak {peak_r}")
    print(f"traced: {energy}, {before}; replayed: {after}")
    return after


if __name__ == "__main__":
    main()
