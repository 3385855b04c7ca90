"""Preview and train eagerly, arm the session, then export and replay the forward pass."""

import numpy as np

from dispatch_lint.runtime import guards

from export_session_clean.session import ExportSession


@guards.no_capture
def summarize(result, label):
    return f"{label}: {result.mean():.4f} over {result.shape}"


def main():
    session = ExportSession(width=3)
    print(session.preview())
    final = session.fit(steps=5)
    print(f"final loss {final:.5f}")
    session.arm()
    program = session.export()
    print("armed forward:", session.forward())
    result = program.run({"batch": np.ones((4, 3), dtype=np.float32)})
    print(summarize(result, "replay"))
    print(program.to_json()[:60])


if __name__ == "__main__":
    main()
