"""Make the tests' shared helpers (``ppl_helpers``) importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest


@pytest.fixture(autouse=True, scope="session")
def _one_blas_thread():
    """Small-matrix samplers: one BLAS thread. With several processes on few cores,
    OpenBLAS's threads make PyMC's NUTS (NumPy-based BLAS) 50-200x slower."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
