"""``python -m schedlab``: the console edition (:mod:`schedlab.cli.main`)."""

import sys

try:  # the imports take a moment: a Ctrl-C during them ends as one during the command does
    from schedlab.cli.main import main
except KeyboardInterrupt:
    print("\nschedlab: 已中断 / interrupted", file=sys.stderr)
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(main())
