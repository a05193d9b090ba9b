"""Smoke test of a minimal install: ``python minimal_smoke.py EXTRA`` (``core`` for none).

Run by ``.ci/run`` (``minimal_installs``) in a fresh virtual environment holding the
spdgraph wheel alone, or with one extra (netcdf, zarr, dask, plots, validation). It
samples, saves and opens in every format whose dependency is installed, draws
data, plots and scores where installed; every feature whose optional dependency
is missing must raise a ``spdgraph.SpdgraphError`` (never a raw ``ImportError``)
naming the ``pip install "spdgraph[extra]"`` to run.
"""

import importlib.util
import sys
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np

import spdgraph
from spdgraph.validation import score

extra = sys.argv[1]
tmp = Path(tempfile.mkdtemp(prefix=f"spdgraph-minimal-{extra}-"))
g = nx.cycle_graph(8)
da = spdgraph.sample(g, size=3, seed=1)
assert np.array_equal(da.values, spdgraph.sample(g, size=3, seed=1).values)
assert np.all(np.linalg.eigvalsh(da.values) > 0)
assert spdgraph.sample(g, "dd", seed=0).shape == (8, 8)
data = da.isel(sample=0).spd.draw(50, seed=2)
assert data.shape[-1] == 8
done = ["sample", "draw"]


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def missing(name: str, call, pip_extra: str) -> None:
    """``call`` needs an absent dependency: a SpdgraphError naming the extra."""
    try:
        call()
    except spdgraph.SpdgraphError as exc:
        assert f'pip install "spdgraph[{pip_extra}]"' in str(exc), (name, str(exc))
    except ImportError as exc:  # a raw ImportError: the failure this script exists for
        raise AssertionError(f"{name}: raw {type(exc).__name__}: {exc}") from exc
    else:
        raise AssertionError(f"{name} worked without its dependency ({pip_extra})")
    done.append(f"{name} refused (needs [{pip_extra}])")


def roundtrip(suffix: str) -> None:
    path = spdgraph.save(da, tmp / f"m{suffix}")
    back = spdgraph.open(path)
    assert np.array_equal(np.asarray(back.values), da.values), suffix
    done.append(f"save/open {suffix}")


# every format: netCDF (netCDF4 or h5netcdf), Zarr, CSV folders (core)
if installed("netCDF4") or installed("h5netcdf"):
    roundtrip(".nc")
else:
    missing("save .nc", lambda: spdgraph.save(da, tmp / "m.nc"), "netcdf")
if installed("zarr"):
    roundtrip(".zarr")
else:
    missing("save .zarr", lambda: spdgraph.save(da, tmp / "m.zarr"), "zarr")
written = Path(spdgraph.io.save_csv(da, tmp / "csv"))
assert len(list(written.glob("*.csv"))) >= 3, sorted(written.iterdir())
done.append("save_csv")
if installed("dask"):
    lazy = spdgraph.sample(g, size=4, chunks=2, seed=1)
    assert np.array_equal(np.asarray(lazy.values)[:3], da.values)
    done.append("chunks")
else:
    missing("chunks", lambda: spdgraph.sample(g, size=4, chunks=2, seed=1), "dask")
if installed("matplotlib"):
    import matplotlib

    matplotlib.use("Agg")
    da.isel(sample=0).spd.plot()
    done.append("plot")
else:
    missing("plot", lambda: da.isel(sample=0).spd.plot(), "plots")
if installed("sklearn"):
    result = score(data.values, g, "lasso", seed=0)
    assert result is not None
    done.append("score")
else:
    missing("score", lambda: score(data.values, g, "lasso", seed=0), "validation")
# large graphs: sparse results (PyData sparse) and their exact draws (cvxopt's CHOLMOD)
if installed("sparse"):
    sparse_prec = spdgraph.sample(g, "dd", kind="precision", sparse=True, seed=3)
    assert np.array_equal(sparse_prec.data.todense(), sparse_prec.data.todense().T)
    done.append("sparse sample")
    if installed("cvxopt"):
        assert sparse_prec.spd.draw(20, seed=4).shape == (20, 8)
        done.append("sparse draw")
    else:
        missing("sparse draw", lambda: sparse_prec.spd.draw(20, seed=4), "large")
else:
    missing("sparse sample", lambda: spdgraph.sample(g, "dd", sparse=True, seed=3), "large")
print(f"minimal install [{extra}] ok: " + ", ".join(done))
