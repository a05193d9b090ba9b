"""Check spdgraph's ``dag`` and ``uniform`` kernels against gmat's own R code.

gmat (0.2.2) is deterministic given R's random stream, so the check runs
gmat's ``chol_iid`` and ``mh_sphere`` in R (sourced from gmat's ``R/dag.R``,
which needs only the R package igraph), records the draws they consumed, feeds
the same draws to spdgraph's kernels and prints the largest differences.

    python contrib/gmat_conformance/check.py /path/to/gmat/R/dag.R

Exit status 0 when both differences are below 1e-12 (the CSV files R writes
carry 15 significant digits), 1 otherwise.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from spdgraph._kernels.chol_uniform import mh_hemisphere
from spdgraph._kernels.sem import sem_precision

EDGES = [(1, 3), (2, 3), (3, 4), (1, 4), (4, 5)]  # a DAG on 5 nodes, 1-based as in R

R_SCRIPT = r"""
source("{dag_r}")
out <- "{out}"
dag <- igraph::graph_from_edgelist(rbind({edges}), directed = TRUE)
set.seed(7)
R <- chol_iid(N = 1, dag = dag)
set.seed(7)  # chol_iid's draws: the edge weights (in L's column-major order), then D
w <- runif({n_edges}, 0.1, 1); d <- runif(5, 0.1, 1)
write.csv(w, file.path(out, "w.csv"), row.names = FALSE)
write.csv(d, file.path(out, "d.csv"), row.names = FALSE)
write.csv(R[, , 1], file.path(out, "chol_iid.csv"), row.names = FALSE)
k <- 6; i <- 4; h <- 200; eps <- 0.05
set.seed(11)
final <- mh_sphere(N = 1, k = k, i = i, h = h, eps = eps)
set.seed(11)  # mh_sphere's draws: the start, then per step the noise and (if drawn) a uniform
x <- rnorm(k); x[1] <- abs(x[1]); x <- x / sqrt(sum(x^2)); start <- x
noise <- matrix(0, h, k); u <- rep(0.5, h)
for (j in 1:h) {{
  noise[j, ] <- rnorm(k, 0, eps)
  prop <- x + noise[j, ]; prop <- prop / sqrt(sum(prop^2))
  if (prop[1] > 0) {{
    u[j] <- runif(1)
    if (log(u[j]) <= i * log(prop[1]) - i * log(x[1])) x <- prop
  }}
}}
stopifnot(identical(x, as.numeric(final)))  # the recording replays gmat's chain exactly
write.csv(start, file.path(out, "start.csv"), row.names = FALSE)
write.csv(noise, file.path(out, "noise.csv"), row.names = FALSE)
write.csv(u, file.path(out, "u.csv"), row.names = FALSE)
write.csv(final, file.path(out, "mh_sphere.csv"), row.names = FALSE)
"""


def _read(path: Path) -> np.ndarray:
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def run(dag_r: Path) -> tuple[float, float]:
    """``(chol_iid difference, mh_sphere difference)`` against gmat run in R."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        edges = ", ".join(f"c({i}, {j})" for i, j in EDGES)
        script = R_SCRIPT.format(
            dag_r=dag_r.as_posix(), out=out.as_posix(), edges=edges, n_edges=len(EDGES)
        )
        (out / "check.R").write_text(script)
        subprocess.run(["Rscript", str(out / "check.R")], check=True)
        dag = np.zeros((5, 5), dtype=bool)
        for i, j in EDGES:
            dag[i - 1, j - 1] = True
        omega = sem_precision(dag, _read(out / "w.csv").ravel(), _read(out / "d.csv").ravel())
        scale = np.sqrt(np.diag(omega))
        chol_iid = float(
            np.abs(omega / np.outer(scale, scale) - _read(out / "chol_iid.csv")).max()
        )
        flip = slice(None, None, -1)  # gmat's pole is the first coordinate, spdgraph's the last
        start = _read(out / "start.csv").ravel()[flip].copy()
        noise = _read(out / "noise.csv")[:, flip].copy()
        log_u = np.log(_read(out / "u.csv").ravel())
        x, _ = mh_hemisphere(start, noise, log_u, 4.0)
        mh = float(np.abs(x[flip] - _read(out / "mh_sphere.csv").ravel()).max())
    return chol_iid, mh


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dag_r", type=Path, help="gmat's R/dag.R")
    args = parser.parse_args(argv)
    chol_iid, mh = run(args.dag_r)
    print(f"chol_iid (dag, precision, cov2cor): max |spdgraph - gmat| = {chol_iid:.3g}")
    print(f"mh_sphere (uniform's MH step):      max |spdgraph - gmat| = {mh:.3g}")
    return 0 if max(chol_iid, mh) < 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
