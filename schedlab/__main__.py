"""``python -m schedlab``: the console edition (:mod:`schedlab.cli.main`)."""

import sys

from schedlab.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
