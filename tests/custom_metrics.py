"""Study metrics as a user writes them (``"custom_metrics:jaccard"``; tests/ is on the path)."""

from __future__ import annotations

import numpy as np


def _pairs(adjacency: np.ndarray) -> np.ndarray:
    return adjacency[np.triu_indices(adjacency.shape[0], 1)]


def jaccard(truth: np.ndarray, selected: np.ndarray) -> float:
    """Shared edges over edges in either graph (1 when both are empty)."""
    t, s = _pairs(truth), _pairs(selected)
    union = int(np.sum(t | s))
    return 1.0 if union == 0 else int(np.sum(t & s)) / union


def missed_edges(truth: np.ndarray, selected: np.ndarray) -> float:
    """True edges the learner did not select (fewer is better)."""
    return float(np.sum(_pairs(truth) & ~_pairs(selected)))


missed_edges.higher_is_better = False  # type: ignore[attr-defined]


def not_a_number(truth: np.ndarray, selected: np.ndarray) -> str:
    return "high"


def f1(truth: np.ndarray, selected: np.ndarray) -> float:  # named like a built-in
    return 0.0
