"""``python -m schedlab`` and the ``schedlab`` script: the console edition (:mod:`schedlab.cli.main`)."""

import sys


def run() -> int:
    """Import the console edition and run it; a Ctrl-C during the imports (they take a moment) ends as one
    during the command does: one line, status 130."""
    try:
        from schedlab.cli.main import main
    except KeyboardInterrupt:
        print("\nschedlab: 已中断 / interrupted", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(run())
