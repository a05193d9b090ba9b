"""The exact checks spdgraph applies to matrices, public for the command line and for users.

:func:`find_violation` is the one check of "SPD, exactly symmetric, exactly
this zero pattern" (the core applies it to every generator's output; ``spdgraph
info`` to every matrix of a file); :class:`Violation` is what it finds;
:func:`link_strength` is the paper's R and :func:`nonedge_mask` the non-edges
of a graph. Arrays in, arrays out (a ``(p, p)`` matrix or an ``(n, p, p)``
stack).

Examples
--------
>>> import numpy as np
>>> from spdgraph.checks import find_violation
>>> adjacency = np.array([[False, True], [True, False]])
>>> find_violation(np.array([[1.0, 0.5], [0.5, 1.0]]), adjacency) is None
True
>>> find_violation(np.array([[1.0, 2.0], [2.0, 1.0]]), adjacency).problem
'not_pd'
"""

from spdgraph._kernels.numerics import (
    Violation,
    find_violation,
    link_strength,
    nonedge_mask,
    plain,
)

__all__ = ["Violation", "find_violation", "link_strength", "nonedge_mask", "plain"]
