"""Repository-wide pytest configuration."""

# ``python -m spdgraph`` (and ``python -m spdgraph.cli``) run the CLI on import: never
# import them for doctests.
collect_ignore = ["spdgraph/__main__.py", "spdgraph/cli/__main__.py"]
