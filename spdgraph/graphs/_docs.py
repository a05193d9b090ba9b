"""The numpydoc text of the parameters the graph families share, written once.

A family's docstring names a shared parameter by a line holding only
``{backend}`` or ``{seed}``; :func:`family_doc` puts the text below in its place
at import, so ``help()``, the API pages and the doctests read the full text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["family_doc"]

_F = TypeVar("_F", bound=Callable[..., object])

#: Each shared parameter's numpydoc entry, unindented (the placeholder's indent is added).
PARAMETER_DOCS = {
    "backend": (
        "backend\n"
        '    The type returned: a registered graph backend\'s name (``"networkx"``,\n'
        '    ``"scipy"``, ``"igraph"``, ``"networkit"``, ``"rustworkx"``,\n'
        '    ``"numpy"``, ...), built straight from the edges.'
    ),
    "seed": (
        "seed\n"
        "    int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence`\n"
        "    or None: the same seed gives the same graph."
    ),
}


def fill_parameter_docs(doc: str) -> str:
    """``doc`` with each line ``{name}`` of :data:`PARAMETER_DOCS` replaced by its entry.

    Examples
    --------
    >>> print(fill_parameter_docs("Parameters\\n    ----------\\n    {seed}"))
    Parameters
        ----------
        seed
            int, :class:`numpy.random.Generator`, :class:`numpy.random.SeedSequence`
            or None: the same seed gives the same graph.
    """
    lines: list[str] = []
    for line in doc.splitlines():
        name = line.strip()[1:-1] if line.strip().startswith("{") else ""
        if name in PARAMETER_DOCS:
            indent = line[: len(line) - len(line.lstrip())]
            lines.extend(indent + text for text in PARAMETER_DOCS[name].splitlines())
        else:
            lines.append(line)
    return "\n".join(lines)


def family_doc(function: _F) -> _F:
    """Decorate a family builder: its docstring's shared parameters filled in."""
    if function.__doc__:  # None under python -OO
        function.__doc__ = fill_parameter_docs(function.__doc__)
    return function
