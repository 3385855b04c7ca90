"""``python -m dispatch_lint``: the same as the ``dispatch-lint`` command."""

from dispatch_lint.analyzer.cli import main

raise SystemExit(main())
