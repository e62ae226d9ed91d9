"""``python -m lint.cli``: the console script, ``egress-lint``."""

from lint.cli import entry

if __name__ == "__main__":  # pragma: no cover
    entry()
