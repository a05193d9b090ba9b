"""portable=True: identical bits on every machine, values within rounding of the default."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import random_adjacency

import spdgraph
from spdgraph._kernels import portable
from spdgraph._kernels.po import fast as po_fast
from spdgraph.errors import InvalidOptionError

PORTABLE_METHODS = ("po", "dd", "huge", "dag", "uniform", "port_chol")


def _dag_of(graph):
    dag = nx.DiGraph([(i, j) for i, j in graph.edges if i < j])
    dag.add_nodes_from(graph)
    return dag


def _both(graph, method, **kw):
    a = spdgraph.sample(graph, method, portable=True, **kw).values
    b = spdgraph.sample(graph, method, **kw).values
    return a, b


def _close(a, b, tolerance=1e-12):
    scale = np.abs(np.diagonal(b, axis1=-2, axis2=-1)).max()
    assert np.abs(a - b).max() <= tolerance * scale


@settings(max_examples=25, deadline=None)
@given(p=st.integers(1, 40), d=st.floats(0.0, 1.0), seed=st.integers(0, 2**31))
def test_po_and_dd_portable_values_agree_with_the_default(p, d, seed):
    adjacency = random_adjacency(p, d, np.random.default_rng(seed))
    for method in ("po", "dd"):
        a, b = _both(adjacency, method, seed=seed, size=2, normalize=bool(seed % 2))
        _close(a, b)
        outside = ~adjacency & ~np.eye(p, dtype=bool)
        assert np.all(a[:, outside] == 0) and not np.signbit(a[:, outside]).any()
        assert np.array_equal(a, a.swapaxes(-1, -2))


@pytest.mark.parametrize("p", [300])  # the blocked kernels' range in the default mode
def test_po_portable_agrees_with_the_blocked_kernels(p):
    g = spdgraph.graphs.erdos_renyi(p, 0.05, seed=3)
    a, b = _both(g, "po", seed=2, normalize=False)
    _close(a, b)


@pytest.mark.parametrize("kind", ["precision", "covariance"])
def test_dag_and_huge_portable_agree_with_the_default(kind):
    g = spdgraph.graphs.erdos_renyi(50, 0.1, seed=5)
    a, b = _both(_dag_of(g), "dag", seed=1, size=2, kind=kind)
    _close(a, b)
    a, b = _both(g, "huge", seed=1, kind=kind, normalize=False)
    _close(a, b)


def test_portable_bits_do_not_depend_on_size_chunks_or_threads():
    pytest.importorskip("dask")
    g = spdgraph.graphs.erdos_renyi(40, 0.2, seed=1)
    stack = spdgraph.sample(g, "po", seed=4, size=5, portable=True).values
    one = spdgraph.sample(g, "po", seed=4, portable=True).values
    assert stack[0].tobytes() == one.tobytes()
    lazy = spdgraph.sample(g, "po", seed=4, size=5, portable=True, chunks=2).values
    assert lazy.tobytes() == stack.tobytes()


def test_portable_is_refused_where_it_cannot_be_kept():
    g = nx.cycle_graph(5)
    gen = spdgraph.Generator("toy-not-portable", lambda a, **kw: np.eye(len(a)), "test")
    module = types.ModuleType("toy_not_portable")
    module.spdgraph_register_generators = spdgraph.hookimpl(lambda: [gen])
    pm = spdgraph.get_plugin_manager()
    pm.register(module, name="toy-not-portable-plugin")
    try:
        with pytest.raises(InvalidOptionError, match="does not declare portable") as refused:
            spdgraph.sample(g, "toy-not-portable", seed=1, portable=True)
    finally:
        pm.unregister(name="toy-not-portable-plugin")
    assert all(f"'{m}'" in str(refused.value) for m in PORTABLE_METHODS)  # the ones that do
    with pytest.raises(InvalidOptionError, match="LAPACK"):
        spdgraph.sample(g, seed=1, portable=True, condition_number=10.0)
    with pytest.raises(InvalidOptionError, match="portable must be True or False"):
        spdgraph.sample(g, seed=1, portable="yes")


def test_portable_is_recorded_in_the_attrs():
    g = nx.cycle_graph(5)
    assert spdgraph.sample(g, seed=1, portable=True).attrs["portable"] == 1
    assert spdgraph.sample(g, seed=1).attrs["portable"] == 0


def test_the_row_kernel_is_recompiled_without_fastmath():
    clone = portable.portable_version(po_fast.process_rows)
    assert portable.portable_version(po_fast.process_rows) is clone  # memoized
    assert not clone.targetoptions.get("fastmath")
    recompiled = {k.py_func.__name__ for k in portable._PORTABLE}
    assert {"process_rows", "_direct", "_complement", "small_cholesky"} <= recompiled


@pytest.mark.parametrize("p", [1, 2, 5, 33])
def test_portable_kernels_against_numpy(p):
    rng = np.random.default_rng(p)
    f = rng.standard_normal((p, p))
    low = portable.lower_coordinates(f)
    assert np.all(np.triu(low, 1) == 0)
    np.testing.assert_allclose(portable.lower_gram(low), f @ f.T, rtol=1e-12, atol=1e-12)
    sym = (f + f.T) / 2
    lmin = np.linalg.eigvalsh(sym)[0]
    assert abs(portable.smallest_eigenvalue(sym) - lmin) <= 1e-13 * np.abs(sym).sum()
    spd = f @ f.T + np.eye(p)
    np.testing.assert_allclose(
        portable.inverse_diagonal_sqrt(spd), np.sqrt(np.diag(np.linalg.inv(spd))), rtol=1e-12
    )
    unit = np.tril(rng.uniform(-0.5, 0.5, (p, p)), -1) + np.eye(p)
    np.testing.assert_allclose(
        portable.unit_lower_inverse(unit), np.linalg.inv(unit), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(portable.matmul_at_b(f, spd), f.T @ spd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(portable.row_abs_sums(f), np.abs(f).sum(axis=1), rtol=1e-14)


_HASH_SCRIPT = textwrap.dedent(
    """
    import hashlib, json
    import networkx as nx
    import spdgraph

    def dag_of(g):
        d = nx.DiGraph([(i, j) for i, j in g.edges if i < j])
        d.add_nodes_from(g)
        return d

    def small(rng, shape):
        return rng.uniform(-0.2, 0.2, shape)

    out = {}
    for name, (p, d) in {"sparse": (120, 0.05), "dense": (80, 0.5)}.items():
        g = spdgraph.graphs.erdos_renyi(p, d, seed=7)
        chordal = nx.complete_to_chordal_graph(g)[0]
        calls = {
            "uniform": (chordal, {"size": 2}),
            "uniform-exact": (chordal, {"sampler": "exact"}),
            "uniform-onion": (nx.complete_graph(p // 4), {"sampler": "onion", "size": 2}),
            "port_chol": (g, {"size": 2}),
            "port_chol-exact": (g, {"sampler": "exact", "normalize": False}),
            "po": (g, {"size": 2}),
            "po-raw-precision": (g, {"normalize": False, "kind": "precision"}),
            "dd": (g, {"size": 2}),
            "huge": (g, {"kind": "precision"}),
            "dag": (dag_of(g), {"kind": "precision", "size": 2, "entries": small}),
            "dag-covariance": (dag_of(g), {"kind": "covariance", "entries": small}),
        }
        for key, (graph, kw) in calls.items():
            method = key.split("-")[0]
            values = spdgraph.sample(graph, method, seed=3, portable=True, **kw).values
            out[f"{name}-{key}"] = hashlib.sha256(values.tobytes()).hexdigest()
    print(json.dumps(out))
    """
)


def _cpu_flags() -> set[str]:
    """The CPU's feature flags (Linux); empty where /proc/cpuinfo cannot be read."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return set()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    return set(line.partition(":")[2].split())


_FLAGS = _cpu_flags()
#: OpenBLAS kernels this CPU can run: SkylakeX's AVX-512 kernels die with an illegal
#: instruction on a CPU without AVX-512 (e.g. an AMD EPYC before Zen 4), so that machine
#: is emulated only where the CPU has the instructions (or the flags cannot be read).
_MACHINES = [
    {},  # this machine as it is
    {"OPENBLAS_CORETYPE": "Haswell", "NUMBA_CPU_NAME": "generic"},
    *([{"OPENBLAS_CORETYPE": "SkylakeX"}] if not _FLAGS or "avx512f" in _FLAGS else []),
    {"OPENBLAS_CORETYPE": "Sandybridge", "NUMBA_CPU_NAME": "generic"},
]


@pytest.mark.integration
@pytest.mark.skipif(
    platform.machine().lower() not in {"x86_64", "amd64"},
    reason="the emulated machines are x86-64 OpenBLAS kernels",
)
def test_portable_bits_are_the_same_on_emulated_machines(tmp_path):
    """SHA-256 of portable results under other BLAS kernels and Numba CPU targets."""
    hashes = []
    for k, machine in enumerate(_MACHINES):
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"OPENBLAS_CORETYPE", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES"}
        }
        env.update(machine, NUMBA_CACHE_DIR=str(tmp_path / f"cache{k}"))
        run = subprocess.run(
            [sys.executable, "-c", _HASH_SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        hashes.append(json.loads(run.stdout.strip().splitlines()[-1]))
    for machine, found in zip(_MACHINES[1:], hashes[1:], strict=True):
        assert found == hashes[0], f"different bits as {machine}"
    # and the default mode's values stay within rounding of the portable ones
    g = spdgraph.graphs.erdos_renyi(80, 0.5, seed=7)
    a, b = _both(g, "po", seed=3, size=2)
    _close(a, b)
    assert hashlib.sha256(a.tobytes()).hexdigest() == hashes[0]["dense-po"]


def test_cli_portable_flag(tmp_path, capsys):
    pytest.importorskip("netCDF4")
    from spdgraph.cli import main

    (tmp_path / "g.txt").write_text("a b\nb c\nc d\n")
    out = tmp_path / "m.nc"
    assert (
        main(["sample", str(tmp_path / "g.txt"), "--seed", "2", "--portable", "-o", str(out)]) == 0
    )
    da = spdgraph.open(out)
    assert da.attrs["portable"] == 1
    ref = spdgraph.sample(nx.path_graph(["a", "b", "c", "d"]), seed=2, portable=True)
    np.testing.assert_array_equal(da.values, ref.values)
