"""The console script, ``egress-lint``.

It lives outside ``lint.cli`` so that ``egress-lint --version`` can answer
before click and the rest of the tool are imported: importing ``lint.cli``
costs more than a bare interpreter start, and a version probe (a hook
manager, a CI step) should not pay for it. Everything else goes to
``lint.cli.entry``.
"""

from __future__ import annotations

import gc
import sys
from typing import NoReturn

from lint import __version__

VERSION_LINE = f"egress-lint, version {__version__}"
"""What ``--version`` prints: the same line click's version option prints."""


def entry() -> NoReturn:
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(VERSION_LINE + "\n")
        sys.stdout.flush()
        raise SystemExit(0)
    # The collector stays off for the whole run (``leave_after``): off from
    # here, it does not rescan the thousands of functions and classes the
    # tool's modules make as they are imported.
    gc.disable()
    from lint.cli import entry as cli_entry  # noqa: PLC0415 - after the fast path

    cli_entry()


if __name__ == "__main__":  # pragma: no cover
    entry()
