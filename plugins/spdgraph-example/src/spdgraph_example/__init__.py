"""EXAMPLE spdgraph plugin: a toy generator and a toy graph type (not for real studies)."""

from spdgraph_example.plugin import EdgeList

__all__ = ["EdgeList"]
