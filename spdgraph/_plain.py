"""Values in messages as a person writes them (``1.5``, not ``np.float64(1.5)``)."""

from __future__ import annotations

import numpy as np

__all__ = ["plain"]


def plain(value: object) -> str:
    """``repr`` of a value as a person writes it: numpy scalars as plain Python numbers.

    Examples
    --------
    >>> import numpy as np
    >>> plain(np.float64(1.5)), plain(np.int64(3)), plain("abc")
    ('1.5', '3', "'abc'")
    """
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)
