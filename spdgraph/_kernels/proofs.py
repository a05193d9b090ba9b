"""The dense certificates by code, and their names.

A ``proven`` array of a stack of ``n`` matrices is ``(2, n)`` float64: row 0 each
matrix's proven lower bound of its smallest eigenvalue, row 1 the code of the proof
that gave it. :func:`~spdgraph._kernels.certify.certifies` and
:func:`~spdgraph._kernels.numerics.find_violation` fill it; a sampled matrix's
``attrs["certificate"]`` names the proofs (:data:`PROOF_NAMES`). No Numba here: the
sampling room reads the names at import.
"""

from __future__ import annotations

__all__ = ["PROOF_CHOLESKY", "PROOF_CONSTRUCTION", "PROOF_DOMINANCE", "PROOF_NAMES"]

#: Weighted diagonal dominance (:mod:`~spdgraph._kernels.dominance`).
PROOF_DOMINANCE = 1.0
#: A Cholesky factorization with its rounding bounded, from the completed factor or by
#: the shifted one (:func:`~spdgraph._kernels.cholesky_proof.dense_lower_bound`).
PROOF_CHOLESKY = 2.0
#: The generator's proven scaled condition bound (``GeneratorSpec.proves_pd``).
PROOF_CONSTRUCTION = 3.0

PROOF_NAMES = {
    PROOF_DOMINANCE: "diagonal dominance (weighted Gershgorin)",
    PROOF_CHOLESKY: "Cholesky factorization with its rounding bounded",
    PROOF_CONSTRUCTION: "the generator's proven condition bound",
}
