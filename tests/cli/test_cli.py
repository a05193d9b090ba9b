"""The command line, through main(argv) on real files and once through a subprocess."""

import inspect
import os
import subprocess
import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import spdgraph
from spdgraph import cli

pytest.importorskip("netCDF4")

LABELS = ["alpha", "beta", "gamma", "delta", "eps"]
EDGES = [("alpha", "beta"), ("beta", "gamma"), ("gamma", "delta"), ("delta", "alpha")]


def _graph():
    g = nx.Graph()
    g.add_nodes_from(LABELS)
    g.add_edges_from(EDGES)
    return g


def _run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _reference_link_strength(m, adjacency):
    """The paper's R by its definition, one entry at a time."""
    best = 0.0
    for i in range(m.shape[0]):
        for j in range(i + 1, m.shape[0]):
            if adjacency[i, j]:
                best = max(best, abs(m[i, j]) / m[i, i])
    return best


def _same_graph(da, graph):
    back = da.spd.graph()
    assert list(back.nodes) == list(graph.nodes)
    assert {frozenset(e) for e in back.edges} == {frozenset(e) for e in graph.edges}


# ------------------------------------------------------------------ graph files


def _write_graph_files(tmp_path):
    g = _graph()
    files = {}
    files["edges.txt"] = (
        "# an edge list\nalpha beta\nbeta,gamma\ngamma\tdelta 0.5\n"
        "delta alpha  # weight-less\neps\n\n"
    )
    (tmp_path / "edges.txt").write_text(files["edges.txt"])
    nx.write_graphml(g, tmp_path / "g.graphml")
    nx.write_gml(g, tmp_path / "g.gml")
    adj = nx.to_numpy_array(g, nodelist=LABELS)
    np.save(tmp_path / "adj.npy", adj)
    np.savetxt(tmp_path / "plain.csv", adj, delimiter=",", fmt="%d")
    pd.DataFrame(adj.astype(int), index=LABELS, columns=LABELS).to_csv(tmp_path / "labelled.csv")
    pd.DataFrame(adj.astype(int), columns=LABELS).to_csv(tmp_path / "header.csv", index=False)
    return g


@pytest.mark.parametrize(
    "name, labelled",
    [
        ("edges.txt", True),
        ("g.graphml", True),
        ("g.gml", True),
        ("adj.npy", False),
        ("plain.csv", False),
        ("labelled.csv", True),
        ("header.csv", True),
    ],
)
def test_sample_reads_every_graph_format(tmp_path, capsys, name, labelled):
    g = _write_graph_files(tmp_path)
    out = tmp_path / "out.nc"
    code, stdout, err = _run(["sample", tmp_path / name, "--seed", "3", "-o", out], capsys)
    assert code == 0, err
    assert f"wrote 1 covariance matrix (5 nodes, method po, seed 3) to {out}" in stdout
    da = spdgraph.open(out)
    expected = g if labelled else nx.relabel_nodes(g, dict(zip(LABELS, range(5), strict=True)))
    _same_graph(da, expected)
    np.testing.assert_array_equal(da.values, spdgraph.sample(expected, seed=3).values)


def test_edge_list_with_integer_labels_and_gml_without_labels(tmp_path, capsys):
    (tmp_path / "ints.edges").write_text("3 1\n1 2\n7\n")
    code, _, err = _run(
        ["sample", tmp_path / "ints.edges", "--seed", "0", "-o", tmp_path / "i.nc"], capsys
    )
    assert code == 0, err
    da = spdgraph.open(tmp_path / "i.nc")
    assert da.node.values.tolist() == [3, 1, 2, 7] and da.node.dtype == np.int64
    (tmp_path / "nolabel.gml").write_text(
        "graph [\n node [ id 0 ]\n node [ id 1 ]\n edge [ source 0 target 1 ]\n]\n"
    )
    code, _, err = _run(["sample", tmp_path / "nolabel.gml", "-o", tmp_path / "n.nc"], capsys)
    assert code == 0, err
    assert spdgraph.open(tmp_path / "n.nc").node.values.tolist() == [0, 1]


# ------------------------------------------------------------------ sample options


def test_every_sample_option_matches_the_library(tmp_path, capsys):
    _write_graph_files(tmp_path)
    out = tmp_path / "out.zarr"
    argv = [
        "sample",
        tmp_path / "edges.txt",
        "--method",
        "po",
        "--size",
        "4",
        "--seed",
        "9",
        "--kind",
        "precision",
        "--no-normalize",
        "--entries",
        "uniform",
        "--option",
        "residual_tolerance=1e-6",
        "-o",
        out,
    ]
    code, stdout, err = _run(argv, capsys)
    assert code == 0, err
    assert "wrote 4 precision matrices" in stdout
    da = spdgraph.open(out)
    ref = spdgraph.sample(
        _graph(),
        "po",
        size=4,
        seed=9,
        kind="precision",
        normalize=False,
        entries="uniform",
        residual_tolerance=1e-6,
    )
    assert da.identical(ref)


def test_factor_file(tmp_path, capsys):
    _write_graph_files(tmp_path)
    factors = np.random.default_rng(0).standard_normal((2, 5, 5))
    np.save(tmp_path / "factor.npy", factors)
    code, _, err = _run(
        [
            "sample",
            tmp_path / "edges.txt",
            "--factor",
            tmp_path / "factor.npy",
            "-o",
            tmp_path / "f.nc",
        ],
        capsys,
    )
    assert code == 0, err
    assert spdgraph.open(tmp_path / "f.nc").identical(spdgraph.sample(_graph(), factor=factors))


def test_in_memory_and_chunked_runs(tmp_path, capsys, monkeypatch):
    pytest.importorskip("dask.array")
    _write_graph_files(tmp_path)
    ref = spdgraph.sample(_graph(), size=120, seed=4)
    calls = []
    real = spdgraph.sample

    def spy(*args, **kwargs):
        calls.append(kwargs.get("chunks"))
        return real(*args, **kwargs)

    monkeypatch.setattr(spdgraph, "sample", spy)
    base = ["sample", tmp_path / "edges.txt", "--size", "120", "--seed", "4"]
    code, _, err = _run([*base, "-o", tmp_path / "eager.nc"], capsys)
    assert code == 0 and err == ""  # stderr is not a terminal: no bar, no hint
    assert spdgraph.open(tmp_path / "eager.nc").identical(ref)  # exactly the library's result
    code, _, err = _run([*base, "--chunks", "7", "-o", tmp_path / "lazy.nc"], capsys)
    assert code == 0 and err == ""
    lazy = spdgraph.open(tmp_path / "lazy.nc")
    np.testing.assert_array_equal(lazy.values, ref.values)
    assert {k: v for k, v in ref.attrs.items() if k in lazy.attrs} == lazy.attrs
    assert calls == [None, 7]


def test_large_in_memory_run_on_a_terminal_suggests_chunks(tmp_path, capsys, monkeypatch):
    _write_graph_files(tmp_path)
    monkeypatch.setattr(cli._sample, "_stderr_is_tty", lambda: True)
    monkeypatch.setattr(cli._sample, "LARGE_RUN", 10)
    argv = ["sample", tmp_path / "edges.txt", "--size", "10", "-o", tmp_path / "o.nc"]
    code, _, err = _run(argv, capsys)
    assert code == 0 and "pass --chunks N for bounded memory" in err


@pytest.mark.parametrize("tqdm_installed", [True, False])
def test_progress_bar_on_a_terminal(tmp_path, capsys, monkeypatch, tqdm_installed):
    pytest.importorskip("dask.array")
    if tqdm_installed:
        pytest.importorskip("tqdm")
    else:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    _write_graph_files(tmp_path)
    monkeypatch.setattr(cli._sample, "_stderr_is_tty", lambda: True)
    monkeypatch.setattr(spdgraph.sampling, "PROGRESS_DELAY", 0.0)  # read by the command
    argv = [
        "sample",
        tmp_path / "edges.txt",
        "--size",
        "20",
        "--seed",
        "1",
        "--chunks",
        "2",
        "-o",
        tmp_path / "p.nc",
    ]
    code, _, err = _run(argv, capsys)
    assert code == 0
    assert "writing" in err and "100%" in err
    code, _, err = _run([*argv, "--no-progress"], capsys)
    assert code == 2 and "--overwrite" in err  # an existing output is never replaced silently
    code, _, err = _run([*argv, "--no-progress", "--overwrite"], capsys)
    assert code == 0 and err == ""


def test_new_sample_parameters_get_an_option_automatically(tmp_path, capsys, monkeypatch):
    """A keyword-only parameter added to spdgraph.sample becomes --its-name."""
    _write_graph_files(tmp_path)
    seen = {}
    real = spdgraph.sample

    def sample(
        graph,
        method="po",
        *,
        size=None,
        seed=None,
        kind="covariance",
        normalize=True,
        entries="normal",
        factor=None,
        chunks=None,
        min_eigenvalue=None,
        **method_options,
    ):
        seen["min_eigenvalue"] = min_eigenvalue
        return real(
            graph,
            method,
            size=size,
            seed=seed,
            kind=kind,
            normalize=normalize,
            entries=entries,
            factor=factor,
            chunks=chunks,
            **method_options,
        )

    monkeypatch.setattr(spdgraph, "sample", sample)
    assert "min_eigenvalue" in inspect.signature(spdgraph.sample).parameters
    code, _, err = _run(
        ["sample", tmp_path / "edges.txt", "--min-eigenvalue", "0.25", "-o", tmp_path / "m.nc"],
        capsys,
    )
    assert code == 0, err
    assert seen == {"min_eigenvalue": 0.25}


def test_subcommands_are_registered_by_small_functions(capsys, monkeypatch):
    def _add_hello_parser(sub):
        hello = sub.add_parser("hello")
        hello.set_defaults(func=lambda args: print("hi") or 0)

    monkeypatch.setattr(cli, "SUBCOMMANDS", [*cli.SUBCOMMANDS, _add_hello_parser])
    assert _run(["hello"], capsys)[:2] == (0, "hi\n")


# ------------------------------------------------------------------ plugin subcommands


class _HelloPlugin:
    """A plugin adding `spdgraph hello` through the spdgraph_add_cli_commands hook."""

    @spdgraph.hookimpl
    def spdgraph_add_cli_commands(self, subparsers):
        hello = subparsers.add_parser("hello", help="say hello (a test plugin)")
        hello.add_argument("--name", default="world")
        hello.set_defaults(func=self.run)

    @staticmethod
    def run(args):
        if args.name == "bad":
            raise spdgraph.InvalidOptionError("bad name; pass another --name.")
        print(f"hello {args.name}")
        return 0


@pytest.fixture
def hello_plugin():
    pm = spdgraph.get_plugin_manager()
    plugin = _HelloPlugin()
    pm.register(plugin, name="hello-test")
    try:
        yield plugin
    finally:
        pm.unregister(plugin)


def test_a_plugin_adds_a_subcommand_through_the_hook(capsys, hello_plugin):
    assert _run(["hello", "--name", "you"], capsys)[:2] == (0, "hello you\n")
    code, out, _ = _run(["--help"], capsys)
    assert code == 0 and "say hello (a test plugin)" in out
    code, _, err = _run(["hello", "--name", "bad"], capsys)
    assert code == 2 and err == "spdgraph: error: bad name; pass another --name.\n"


def test_the_subcommand_is_gone_once_the_plugin_is_unregistered(capsys, hello_plugin):
    spdgraph.get_plugin_manager().unregister(hello_plugin)
    code, _, err = _run(["hello"], capsys)
    assert code == 2 and "invalid choice: 'hello'" in err
    spdgraph.get_plugin_manager().register(hello_plugin, name="hello-test")


def test_a_clashing_subcommand_names_the_plugin(capsys, hello_plugin):
    class Clash:
        @spdgraph.hookimpl
        def spdgraph_add_cli_commands(self, subparsers):
            subparsers.add_parser("info")

    pm = spdgraph.get_plugin_manager()
    clash = Clash()
    pm.register(clash, name="clash-test")
    try:
        with pytest.warns(spdgraph.PluginWarning, match="clash-test.*'info'.*built-in"):
            code, out, _ = _run(["methods"], capsys)
        parser = spdgraph.cli.build_parser()  # the built-in `info` stays the built-in
    finally:
        pm.unregister(clash)
        spdgraph.plugins._manager._load_failures.clear()
    assert code == 0 and "broken plugin 'clash-test'" in out and "'info'" in out
    info = parser._subparsers._group_actions[0].choices["info"]
    assert info.get_default("func").__module__ == "spdgraph.cli._info"


def _code_without_docstrings(path):
    import ast

    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return ast.unparse(tree)


def test_the_core_cli_names_no_plugin_command(monkeypatch):
    from pathlib import Path

    code = "".join(_code_without_docstrings(p) for p in Path(cli.__file__).parent.glob("*.py"))
    assert "reproduce" not in code and "experiments" not in code
    monkeypatch.setenv(spdgraph.plugins.AUTOLOAD_ENV, "1")
    spdgraph.reset_plugin_manager()
    try:
        assert "reproduce" not in cli.build_parser().format_help()
    finally:
        monkeypatch.delenv(spdgraph.plugins.AUTOLOAD_ENV)
        spdgraph.reset_plugin_manager()
    names = [f.__name__ for f in cli.SUBCOMMANDS]
    assert names == [
        "_add_demo_parser",
        "_add_methods_parser",
        "_add_sample_parser",
        "_add_draw_parser",
        "_add_info_parser",
        "_add_related_parser",
        "_add_score_parser",
        "_add_graph_parser",
        "_add_warmup_parser",
        "_add_simulate_parser",
        "_add_study_parser",
    ]


# ------------------------------------------------------------------ draw, info


def test_sample_draw_info_round_trip(tmp_path, capsys):
    _write_graph_files(tmp_path)
    out, data = tmp_path / "out.nc", tmp_path / "data.nc"
    assert (
        _run(
            [
                "sample",
                tmp_path / "g.graphml",
                "--size",
                "3",
                "--seed",
                "1",
                "--kind",
                "precision",
                "-o",
                out,
            ],
            capsys,
        )[0]
        == 0
    )
    code, stdout, err = _run(["draw", out, "--n-obs", "200", "--seed", "5", "-o", data], capsys)
    assert code == 0, err
    assert "wrote 200 observations x 5 nodes for 3 matrices (seed 5)" in stdout
    x = spdgraph.open(data)
    assert x.dims == ("sample", "obs", "node") and x.shape == (3, 200, 5)
    np.testing.assert_array_equal(x.values, spdgraph.open(out).spd.draw(200, seed=5).values)

    code, stdout, err = _run(["info", out], capsys)
    assert code == 0, err
    m = spdgraph.open(out)
    for expected in (
        "sample: 3, node: 5, node_2: 5",
        "alpha, beta, gamma",
        "kind:",
        "precision",
        "method:",
        "po",
        "seed:",
        "4 edges, density 0.4",
        "diagnostics over 3 matrices",
        "diagnostics over 3 matrices (min / median / max per matrix)",
        "max |non-edge|:      min 0, median 0, max 0 (must be 0)",
        "check: ok",
    ):
        assert expected in stdout, expected
    r = [_reference_link_strength(v, m["adjacency"].values) for v in m.values]
    assert f"|m_ij|/m_ii: min {min(r):.4g}, median {np.median(r):.4g}, max {max(r):.4g}" in stdout
    min_eig = np.linalg.eigvalsh(m.values)[:, 0]
    assert (
        f"smallest eigenvalue: min {min_eig.min():.4g}, median {np.median(min_eig):.4g}, "
        f"max {min_eig.max():.4g}"
    ) in stdout

    code, stdout, _ = _run(["info", data], capsys)
    assert code == 0 and "obs: 200" in stdout and "matrix_method" in stdout


def test_info_reports_broken_matrices(tmp_path, capsys):
    da = spdgraph.sample(_graph(), seed=1)
    bad = da.copy(data=da.values + 0.001 * (1 - np.eye(5)))
    spdgraph.save(bad, tmp_path / "bad.nc")
    code, stdout, _ = _run(["info", tmp_path / "bad.nc"], capsys)
    assert code == 1
    assert "check: FAILED (non-zero entries on non-edges; first: matrix 0 has a non-zero" in stdout
    spdgraph.save(da.spd.inverse(), tmp_path / "inv.nc")  # declared non-structural
    code, stdout, _ = _run(["info", tmp_path / "inv.nc"], capsys)
    assert code == 0 and "zeros not structural" in stdout


def test_info_on_one_matrix_and_long_attrs(tmp_path, capsys):
    da = spdgraph.sample(_graph(), seed=1, kind="precision")
    da.attrs["weights"] = [float(k) for k in range(10)]
    da.attrs["note"] = "; ".join(f"t({k})" for k in range(100))  # e.g. one marginal per node
    spdgraph.save(da, tmp_path / "one.nc")
    code, stdout, err = _run(["info", tmp_path / "one.nc"], capsys)
    assert code == 0, err
    r = _reference_link_strength(da.values, da["adjacency"].values)
    assert "diagnostics over 1 matrix:" in stdout
    assert f"|m_ij|/m_ii: {r:.4g}\n" in stdout
    assert "max |non-edge|:      0 (must be 0)" in stdout
    assert "weights:" in stdout and "10 values: min 0, median 4.5, max 9" in stdout
    note_line = next(line for line in stdout.splitlines() if line.startswith("note:"))
    assert note_line.endswith(f"... ({len(da.attrs['note'])} characters)")
    assert len(note_line) < 160


def test_info_exits_quietly_on_a_broken_pipe(tmp_path):
    spdgraph.save(spdgraph.sample(_graph(), seed=1, size=3), tmp_path / "m.nc")
    proc = subprocess.Popen(
        [sys.executable, "-m", "spdgraph", "info", str(tmp_path / "m.nc")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # `| head` that has already exited: every write fails
    _, err = proc.communicate()
    assert proc.returncode == 141 and err == b""


def test_broken_pipe_in_process(tmp_path, capsys, monkeypatch):
    spdgraph.save(spdgraph.sample(_graph(), seed=1), tmp_path / "m.nc")

    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert cli.main(["info", str(tmp_path / "m.nc")]) == 141
    assert capsys.readouterr().err == ""


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "argv, match",
    [
        (["sample", "{d}/missing.txt", "-o", "{d}/o.nc"], "no such file"),
        (["sample", "{d}/broken.graphml", "-o", "{d}/o.nc"], "cannot read graph file"),
        (["sample", "{d}/binary.npy", "-o", "{d}/o.nc"], "cannot read graph file"),
        (["sample", "{d}/empty.txt", "-o", "{d}/o.nc"], "no nodes found"),
        (["sample", "{d}/nonsym.csv", "-o", "{d}/o.nc"], "symmetric"),
        (["sample", "{d}/edges.txt", "--method", "nope", "-o", "{d}/o.nc"], "unknown method"),
        (["sample", "{d}/edges.txt", "--option", "tol=3", "-o", "{d}/o.nc"], "does not accept"),
        (["sample", "{d}/edges.txt", "--option", "seed=3", "-o", "{d}/o.nc"], "its own flag"),
        (
            [
                "sample",
                "{d}/edges.txt",
                "--method",
                "dd",
                "--factor",
                "{d}/adj.npy",
                "-o",
                "{d}/o.nc",
            ],
            "only for 'po'",
        ),
        (["sample", "{d}/edges.txt", "--factor", "{d}/edges.txt", "-o", "{d}/o.nc"], ".npy"),
        (["sample", "{d}/edges.txt", "-o", "{d}/o.h5"], "suffix '.h5'"),
        (["sample", "{d}/edges.txt", "-o", "{d}/nowhere/o.nc"], "does not exist"),
        (["draw", "{d}/missing.nc", "--n-obs", "3", "-o", "{d}/o.nc"], "no such file"),
        (["draw", "{d}/edges.txt", "--n-obs", "3", "-o", "{d}/o.nc"], "no registered format"),
        (["info", "{d}/garbage.nc"], "cannot read"),
    ],
)
def test_errors_exit_2_and_write_nothing(tmp_path, capsys, argv, match):
    _write_graph_files(tmp_path)
    (tmp_path / "broken.graphml").write_text("<graphml><graph><node id=")
    (tmp_path / "binary.npy").write_bytes(b"\x93NUMPY garbage")
    (tmp_path / "empty.txt").write_text("# nothing\n")
    (tmp_path / "nonsym.csv").write_text("0,1\n0,0\n")
    (tmp_path / "garbage.nc").write_text("not a netCDF file")
    before = sorted(os.listdir(tmp_path))
    code, _, err = _run([a.format(d=tmp_path) for a in argv], capsys)
    assert code == 2
    assert err.startswith("spdgraph: error: ") and match in err
    assert err.count("\n") == 1  # one line, no traceback
    assert sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize(
    "argv",
    [
        ["sample", "g.txt"],  # no -o
        ["sample", "g.txt", "-o", "o.nc", "--size", "-1"],
        ["sample", "g.txt", "-o", "o.nc", "--chunks", "0"],
        ["sample", "g.txt", "-o", "o.nc", "--option", "novalue"],
        ["sample", "g.txt", "-o", "o.nc", "--kind", "correlation"],
        ["draw", "o.nc", "-o", "d.nc"],  # no --n-obs
        ["bogus"],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = _run(argv, capsys)
    assert code == 2 and "usage: spdgraph" in err


def test_help_and_version(capsys):
    assert _run(["--version"], capsys)[:2] == (0, f"spdgraph {spdgraph.__version__}\n")
    code, out, _ = _run(["sample", "--help"], capsys)
    assert code == 0 and "--scheduler" in out and "--option KEY=VALUE" in out


def test_failure_while_writing_leaves_nothing(tmp_path, capsys, monkeypatch):
    _write_graph_files(tmp_path)
    from spdgraph import io

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(io._atomic, "_rename", full_disk)
    before = sorted(os.listdir(tmp_path))
    code, _, err = _run(["sample", tmp_path / "edges.txt", "-o", tmp_path / "o.nc"], capsys)
    assert code == 2 and "no space left" in err and err.count("\n") == 1  # issue 33
    assert sorted(os.listdir(tmp_path)) == before


def test_console_entry_point_in_a_subprocess(tmp_path):
    _write_graph_files(tmp_path)
    out = tmp_path / "out.nc"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "spdgraph",
            "sample",
            str(tmp_path / "edges.txt"),
            "--size",
            "2",
            "--seed",
            "1",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""  # not a terminal: no progress bar
    assert spdgraph.open(out).identical(spdgraph.sample(_graph(), size=2, seed=1))
