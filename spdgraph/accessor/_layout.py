"""Layout helpers of the ``da.spd`` accessor: reading an spdgraph DataArray safely.

:class:`SpdArrayView` knows the layout :func:`spdgraph.sample` produces (dims,
labels, the ``adjacency`` coordinate, the ``kind`` and provenance attrs) and
raises :class:`~spdgraph.errors.MatrixError` naming what is wrong with an array
that does not have it. :class:`spdgraph.accessor.SpdAccessor` builds on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from spdgraph._kernels.numerics import (
    MATRIX_KIND_ALIASES,
    canonical_kind,
    cholesky_inverse,
    find_violation,
    plain,
)
from spdgraph.errors import MatrixError
from spdgraph.layout import dense_values

__all__ = ["MATRIX_DIMS", "STACK_DIMS", "SpdArrayView"]

#: Largest residual ``max |M X v - v|`` of an inverse the accessor returns without a warning.
INVERSE_RESIDUAL = 1e-6
#: Probe vectors (entries at most 1 in absolute value) of the inverse's residual check.
PROBES = 3
PROBE_SEED = 0x1A7E

MATRIX_DIMS = ("node", "node_2")
STACK_DIMS = ("sample", "node", "node_2")


class SpdArrayView:
    """Read access to an spdgraph matrix or stack, checked (base of ``da.spd``)."""

    def __init__(self, da: xr.DataArray) -> None:
        self._da = da

    # ------------------------------------------------------------------ layout helpers

    def _stacked(self) -> bool:
        da = self._da
        if da.dims == MATRIX_DIMS:
            stacked = False
        elif da.dims == STACK_DIMS:
            stacked = True
        elif "group" in da.dims:
            raise MatrixError(
                "this array has a 'group' dim (one matrix or stack per related graph); select "
                "one group first, e.g. da.isel(group=0).spd... (draw works on all groups)."
            )
        else:
            raise MatrixError(
                f"expected a matrix with dims {MATRIX_DIMS} or a stack with dims {STACK_DIMS} "
                f"(as spdgraph.sample returns), got dims {da.dims}."
            )
        if da.sizes["node"] != da.sizes["node_2"]:
            raise MatrixError(
                f"the matrix is not square: {da.sizes['node']} x {da.sizes['node_2']}."
            )
        if ("node" in da.coords) != ("node_2" in da.coords) or (
            "node" in da.coords and not np.array_equal(da["node"].values, da["node_2"].values)
        ):
            raise MatrixError(
                "the 'node' and 'node_2' coordinates differ; both dims must list the same "
                "node labels in the same order."
            )
        return stacked

    def _kind(self) -> str:
        raw = self._da.attrs.get("kind", self._da.name)
        kind = canonical_kind(raw, MATRIX_KIND_ALIASES)
        if kind is None:
            raise MatrixError(
                f"cannot tell what this matrix is (attrs['kind'] / name = {raw!r}); set "
                "attrs['kind'] to 'covariance', 'precision', 'correlation' or "
                "'partial_correlation'."
            )
        return kind

    def _stack(self, what: str = "this method") -> np.ndarray:
        """Values as an (n, p, p) float64 array (a copy-free view when possible).

        Complex, object, string and date values are refused (MatrixError): a
        cast to float64 would drop an imaginary part or fail half-way. A sparse
        result is densified for ``what`` only when it fits
        (:func:`spdgraph.layout.dense_values`, else a TooLargeError).
        """
        stacked = self._stacked()
        dtype = self._da.dtype
        if dtype.kind not in "biuf":
            what = {"c": "complex", "O": "object", "U": "string", "S": "bytes"}.get(
                dtype.kind, str(dtype)
            )
            raise MatrixError(
                f"the matrix holds {what} values (dtype {dtype}); spdgraph works on real "
                "symmetric matrices. Take the real part (da.real) only if the imaginary part "
                "is known to be zero, or convert the values to float64 first."
            )
        values = np.asarray(dense_values(self._da, what), dtype=np.float64)
        return values if stacked else values[None]

    def _pattern(self, what: str = "this method") -> tuple[np.ndarray, bool]:
        """The mask of entries that may be non-zero, and whether the rest must be zero.

        With an ``adjacency`` coordinate and structural zeros (``attrs
        ["structural_zeros"]`` 1 or absent) the non-edges must be exactly 0: a
        matrix that disagrees with its own graph is refused, not used.
        """
        p = self._da.sizes["node"]
        if "adjacency" in self._da.coords and self._structural():
            adjacency = self._adjacency_values(what)
            if adjacency.shape == (p, p):
                return adjacency, True
        return ~np.eye(p, dtype=bool), False

    def _spd_stack(self, what: str) -> np.ndarray:
        """The ``(n, p, p)`` stack, verified finite, exactly symmetric, zero on the
        non-edges of its own ``adjacency`` (structural zeros) and positive definite
        (a Cholesky) before ``what`` computes on it; else a MatrixError."""
        m = self._stack(what)
        if m.shape[0] == 0:
            return m
        pattern, structural = self._pattern(what)
        violation = find_violation(m, pattern, structural=structural)
        if violation is not None:
            if violation.problem == "nonzero":
                raise MatrixError(
                    f"{what}: the matrix disagrees with its own 'adjacency' coordinate: "
                    f"{violation.describe(self._labels())} Fix the values or the coordinate, "
                    "or set attrs['structural_zeros'] = 0 if its zeros are not the graph."
                )
            raise MatrixError(
                f"{what} needs symmetric positive definite matrices, but "
                f"{violation.describe(self._labels())} spdgraph.sample returns such matrices: "
                "check what changed this array's values."
            )
        return m

    def _inverse(self, m: np.ndarray, what: str) -> np.ndarray:
        """The Cholesky inverse of the verified stack ``m``, its accuracy checked.

        The residual ``max |M X V - V|`` of each matrix on :data:`PROBES` fixed
        unit probe vectors ``V`` (``O(p^2)`` a matrix, where the full ``M X - I``
        would cost as much as the inverse) estimates ``max |M X - I|``; above
        :data:`INVERSE_RESIDUAL` an :class:`InaccurateInverseWarning` names the
        matrix, the residual and what to do (the matrix is nearly singular).
        """
        import warnings

        from spdgraph.errors import InaccurateInverseWarning

        inverse = cholesky_inverse(m, MatrixError)
        p = m.shape[-1]
        probes = np.random.default_rng(PROBE_SEED).standard_normal((p, PROBES))
        probes /= np.max(np.abs(probes), axis=0, initial=1e-300)
        for k in range(m.shape[0]):
            residual = float(np.max(np.abs(m[k] @ (inverse[k] @ probes) - probes), initial=0.0))
            if not residual <= INVERSE_RESIDUAL:
                warnings.warn(
                    f"{what}: the inverse of matrix {k} is inaccurate (max |M X v - v| = "
                    f"{residual:.3g}, above {INVERSE_RESIDUAL:g}): the matrix is nearly "
                    "singular. Use a better conditioned matrix (sample(..., "
                    "condition_number=...) bounds it) or treat the result with care.",
                    InaccurateInverseWarning,
                    stacklevel=4,
                )
                break
        return inverse

    def _on_scale(self, what: str, wanted: str) -> tuple[np.ndarray, bool]:
        """The verified stack as a ``wanted`` (``"precision"`` or ``"covariance"``) matrix,
        inverted by a Cholesky solve when it is the other one, and whether its zeros
        are structural."""
        kind = self._require_scale(what)
        m = self._spd_stack(what)
        if (kind == "precision") == (wanted == "precision"):
            return m, self._structural()
        return self._inverse(m, what), False

    def _adjacency_values(self, what: str = "this method") -> np.ndarray:
        da = self._da
        if "adjacency" not in da.coords:
            raise MatrixError(
                "this array has no 'adjacency' coordinate, so its graph is unknown; use an "
                "array spdgraph.sample returned (or assign_coords(adjacency=(('node', "
                "'node_2'), bool_array)))."
            )
        adj = da.coords["adjacency"]
        if adj.dims != MATRIX_DIMS:
            raise MatrixError(
                f"the 'adjacency' coordinate must have dims {MATRIX_DIMS}, got {adj.dims}."
            )
        # a sparse graph is read whole only when it fits (else a TooLargeError naming what)
        values = np.asarray(dense_values(adj, what))
        if values.dtype != bool:
            raise MatrixError(
                f"the 'adjacency' coordinate must be boolean, got dtype {values.dtype}."
            )
        if values.diagonal().any() or not np.array_equal(values, values.T):
            raise MatrixError(
                "the 'adjacency' coordinate must be symmetric with a False diagonal."
            )
        return values

    def _labels(self) -> list[Any]:
        da = self._da
        if "node" not in da.dims:
            self._stacked()  # a MatrixError saying what the dims should be
        if "node" in da.coords:
            values = da["node"].values
            if values.dtype.kind in "iuf":  # numbers: one conversion (10**6 labels fast)
                return list(values.tolist())
            return [plain(x) for x in values]
        return list(range(da.sizes["node"]))

    def _graph_kind(self, kind: str) -> str:
        graph_kind = self._da.attrs.get("graph_kind")
        if graph_kind in ("covariance", "precision"):
            return str(graph_kind)
        return "precision" if kind in ("precision", "partial_correlation") else "covariance"

    def _structural(self) -> bool:
        return bool(int(self._da.attrs.get("structural_zeros", 1)))

    def _derived(
        self, values: np.ndarray, kind: str, *, structural: bool, step: str | None = None
    ) -> xr.DataArray:
        """``values`` as a new array of ``kind`` (also its name), the step (default:
        the kind) appended to ``attrs["transform"]``."""
        name, step = kind, step or kind
        source_kind = self._kind()
        stacked = self._stacked()
        out = self._da.copy(data=values if stacked else values[0])
        out.name = name
        attrs = dict(self._da.attrs)
        attrs["kind"] = kind
        attrs["graph_kind"] = self._graph_kind(source_kind)
        attrs["structural_zeros"] = int(structural)
        previous = str(attrs.get("transform", ""))
        attrs["transform"] = f"{previous},{step}" if previous else step
        out.attrs = attrs
        return out

    def _require_scale(self, what: str) -> str:
        kind = self._kind()
        if kind == "partial_correlation":
            raise MatrixError(
                f"{what} needs a covariance, correlation or precision matrix; a partial "
                "correlation matrix does not fix the variables' scales. Call it on the "
                "matrix the partial correlations came from."
            )
        return kind

    def _stream_indices(self, stacked: bool, n: int) -> list[int]:
        da = self._da
        if "sample" in da.coords:
            sample = np.atleast_1d(da["sample"].values)
            if (
                sample.shape == (n,)
                and np.issubdtype(sample.dtype, np.integer)
                and (sample >= 0).all()
            ):
                return [int(s) for s in sample]
        return list(range(n))

    def _kind_or_none(self) -> str | None:
        try:
            return self._kind()
        except MatrixError:
            return None
