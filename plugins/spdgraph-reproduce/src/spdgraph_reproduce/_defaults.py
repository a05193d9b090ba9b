"""Defaults shared by the command line and the studies (no heavy import here)."""

#: Where ``spdgraph reproduce`` writes when no ``--out`` is given.
DEFAULT_OUT = "spdgraph-results"
