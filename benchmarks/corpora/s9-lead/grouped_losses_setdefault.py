"""Losses grouped by stage with setdefault; the export stage's losses reach backward()."""

from dispatch_lint import runtime as dispatch


def collect(stages):
    groups = {}
    for stage, device in stages:
        x = dispatch.placeholder((2,), device=device, name=stage) if stage == "export" \
            else dispatch.ones((2,), device=device).require_grad()
        groups.setdefault(stage, []).append((x * 2.0).sum())
    return groups


def main() -> None:
    groups = collect([("train", dispatch.Autodiff(dispatch.NumPy())),
                      ("export", dispatch.Capture())])
    for stage in ("train", "export"):
        for loss in groups[stage]:
            loss.backward()  # expect: DL001


if __name__ == "__main__":
    main()
