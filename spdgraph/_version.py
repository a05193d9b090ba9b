"""Single source of the spdgraph version."""

__version__ = "0.1.0"
