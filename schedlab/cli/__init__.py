"""The console edition of the lecture: ``python -m schedlab`` (argparse, the demos, the tools)."""
