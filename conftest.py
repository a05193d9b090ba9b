"""Repository-wide pytest configuration."""

# ``python -m spdgraph`` runs the CLI on import; never import it for doctests.
collect_ignore = ["spdgraph/__main__.py"]
