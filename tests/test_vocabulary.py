"""One vocabulary per argument: every entry point accepts and refuses the same spellings.

The same spellings of a kind, a graph family, a count and a probability go to
``spdgraph.sample``, ``spdgraph.simulate``, a study's configuration and the
``sample``, ``simulate`` and ``graph`` commands; each accepts the same ones
(giving the same canonical value) and refuses the same ones with the message
of :mod:`spdgraph.vocabulary`.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import spdgraph
from spdgraph import cli, vocabulary
from spdgraph.errors import InvalidOptionError
from spdgraph.graphs import FAMILIES, hub
from spdgraph.study import load_study

STUDY = {
    "seed": 1,
    "grid": {"family": ["hub"], "p": [6], "n": [8]},
    "learners": [{"name": "shrink"}],
}


def _refusal(call) -> str:
    """The message an entry point refuses with (an InvalidOptionError)."""
    with pytest.raises(InvalidOptionError) as info:
        call()
    return str(info.value)


def _cli(argv, capsys) -> tuple[int, str]:
    code = cli.main([str(a) for a in argv])
    return code, capsys.readouterr().err


def _expected(canonical, value) -> str:
    with pytest.raises(InvalidOptionError) as info:
        canonical(value)
    return str(info.value)


# ---- kind -------------------------------------------------------------------------------------

GOOD_KINDS = [
    "covariance",
    "Covariance",
    "precision",
    "PRECISION",
    "concentration",
    "Concentration",
]
BAD_KINDS = ["correlation", "precison", "", "partial_correlation"]


@pytest.mark.parametrize("spelling", GOOD_KINDS)
def test_every_entry_point_accepts_a_kind_spelling_the_same(spelling, tmp_path, capsys):
    want = vocabulary.canonical_kind(spelling)
    assert spdgraph.sample(hub(6, 2), kind=spelling, seed=1).attrs["kind"] == want
    assert spdgraph.simulate("hub", n=4, p=6, kind=spelling, seed=1).attrs["kind"] == want
    assert load_study({**STUDY, "kind": spelling}).kind == want
    parser = cli.build_parser()
    for command in (
        ["sample", "g.txt", "-o", "x.nc"],
        ["simulate", "--graph", "hub", "-o", "x.nc"],
    ):
        assert parser.parse_args([*command, "--kind", spelling]).kind == want
    code, err = _cli(
        ["sample", "--graph-family", "hub", "--graph-option", "p=6", "--kind", spelling,
         "--seed", 1, "-o", tmp_path / "m.nc"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert spdgraph.open(tmp_path / "m.nc").attrs["kind"] == want


@pytest.mark.parametrize("spelling", BAD_KINDS)
def test_every_entry_point_refuses_a_kind_spelling_with_one_message(spelling, tmp_path, capsys):
    message = _expected(vocabulary.canonical_kind, spelling)
    assert spelling.__repr__() in message and "alias 'concentration'" in message
    assert _refusal(lambda: spdgraph.sample(hub(6, 2), kind=spelling)) == message
    assert _refusal(lambda: spdgraph.simulate("hub", n=4, p=6, kind=spelling)) == message
    assert _refusal(lambda: load_study({**STUDY, "kind": spelling})) == message
    for argv in (
        ["sample", "--graph-family", "hub", "--graph-option", "p=6", "-o", tmp_path / "m.nc"],
        ["simulate", "--graph", "hub", "--p", 6, "-o", tmp_path / "s.nc"],
    ):
        code, err = _cli([*argv, "--kind", spelling], capsys)
        assert code == 2 and f"argument --kind: {message}" in err, err
    assert not list(tmp_path.iterdir())


# ---- graph family -----------------------------------------------------------------------------

GOOD_FAMILIES = ["AR(1)", "ar1", "AR(2)", "smallworld", "Small-World", "Hub", "band", "scale-free",
                 "Scale_Free", "random", "circle", "Lattice", "star"]  # fmt: skip
BAD_FAMILIES = ["wheel", "AR(3)", "hubs", "erdos"]


def _family_flags(family: str) -> list[object]:
    """What ``spdgraph graph`` needs besides p for the family (a seed for random ones)."""
    random = ("erdos_renyi", "scale_free", "small_world", "cluster")
    return ["--seed", 1] if vocabulary.canonical_family(family) in random else []


@pytest.mark.parametrize("spelling", GOOD_FAMILIES)
def test_every_entry_point_accepts_a_family_spelling_the_same(spelling, tmp_path, capsys):
    want = vocabulary.canonical_family(spelling)
    assert want in FAMILIES
    sim = spdgraph.simulate(spelling, n=4, p=9, seed=1)
    assert sim.attrs["graph_family"] == want
    assert load_study({**STUDY, "grid": {**STUDY["grid"], "family": [spelling]}}).cells()
    code, err = _cli(
        ["graph", spelling, "--p", 9, *_family_flags(spelling), "-o", tmp_path / "g.txt"], capsys
    )
    assert code == 0, err
    assert (tmp_path / "g.txt").read_text().startswith(f"# spdgraph graph {want}\n")
    code, err = _cli(["simulate", "--graph", spelling, "--p", 9, "--seed", 1,
                      "-o", tmp_path / "s.nc"], capsys)  # fmt: skip
    assert code == 0, err
    code, err = _cli(["sample", "--graph-family", spelling, "--graph-option", "p=9",
                      *(["--graph-seed", 1] if _family_flags(spelling) else []),
                      "--seed", 1, "-o", tmp_path / "m.nc"], capsys)  # fmt: skip
    assert code == 0, err


@pytest.mark.parametrize("spelling", BAD_FAMILIES)
def test_every_entry_point_refuses_a_family_spelling_with_one_message(spelling, tmp_path, capsys):
    message = _expected(vocabulary.canonical_family, spelling)
    assert "known families: ar1" in message and "'AR(1)' (ar1)" in message
    assert _refusal(lambda: spdgraph.simulate(spelling, n=4, p=6)) == message
    grid = {**STUDY["grid"], "family": [spelling]}
    assert _refusal(lambda: load_study({**STUDY, "grid": grid})) == message
    for argv in (
        ["graph", spelling, "--p", 6, "-o", tmp_path / "g.txt"],
        ["simulate", "--graph", spelling, "--p", 6, "-o", tmp_path / "s.nc"],
        ["sample", "--graph-family", spelling, "--graph-option", "p=6", "-o", tmp_path / "m.nc"],
    ):
        code, err = _cli(argv, capsys)
        assert code == 2 and message in err, err
    assert not list(tmp_path.iterdir())


# ---- counts and probabilities -----------------------------------------------------------------


@pytest.mark.parametrize("p", [0, -3, 2.5, True])
def test_every_entry_point_refuses_a_node_count_with_one_message(p, tmp_path, capsys):
    message = _expected(lambda v: vocabulary.check_count(v, "p"), p)
    assert message == f"p must be an integer >= 1, got {p!r}."
    assert _refusal(lambda: spdgraph.simulate("hub", n=4, p=p)) == message
    grid = {**STUDY["grid"], "p": [p]}
    assert _refusal(lambda: load_study({**STUDY, "grid": grid})) == message
    for argv in (
        ["graph", "hub", "--p", p, "-o", tmp_path / "g.txt"],
        ["simulate", "--graph", "hub", "--p", p, "-o", tmp_path / "s.nc"],
        ["sample", "--graph-family", "hub", "--graph-option", f"p={p}", "-o", tmp_path / "m.nc"],
    ):
        code, err = _cli(argv, capsys)
        assert code == 2 and message in err, err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("n", [-1, 1.5, False])
def test_observation_counts_are_refused_alike(n, tmp_path, capsys):
    message = _expected(lambda v: vocabulary.check_count(v, "n", low=0), n)
    assert _refusal(lambda: spdgraph.simulate("hub", n=n, p=6)) == message
    grid = {**STUDY["grid"], "n": [n]}
    assert _refusal(lambda: load_study({**STUDY, "grid": grid})) == message
    code, err = _cli(["simulate", "--graph", "hub", "--p", 6, f"--n={n}", "-o", tmp_path / "s.nc"],
                     capsys)  # fmt: skip
    assert code == 2 and f"argument --n: {message}" in err, err


@pytest.mark.parametrize("repeats", [0, 1.0, "2"])
def test_study_counts_use_the_same_check(repeats):
    message = _expected(lambda v: vocabulary.check_count(v, "repeats"), repeats)
    assert _refusal(lambda: load_study({**STUDY, "repeats": repeats})) == message


@pytest.mark.parametrize("d", [1.5, -0.1])
def test_probabilities_are_refused_alike(d, tmp_path, capsys):
    message = _expected(lambda v: vocabulary.check_probability(v, "d"), d)
    assert _refusal(lambda: spdgraph.graphs.erdos_renyi(6, d, seed=1)) == message
    assert _refusal(lambda: spdgraph.simulate("random", n=4, p=6, prob=d, seed=1)) == message
    code, err = _cli(["graph", "random", "--p", 6, f"--d={d}", "--seed", 1,
                      "-o", tmp_path / "g.txt"], capsys)  # fmt: skip
    assert code == 2 and message in err, err


# ---- generator method -------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ["nosuch", "P O", ""])
def test_every_entry_point_refuses_a_method_with_one_message(spelling, tmp_path, capsys):
    with pytest.raises(spdgraph.UnknownMethodError) as info:
        spdgraph.plugins.find_generator(spelling)
    message = str(info.value)
    for call in (
        lambda: spdgraph.sample(hub(6, 2), spelling),
        lambda: spdgraph.simulate("hub", n=4, p=6, method=spelling),
        lambda: load_study({**STUDY, "grid": {**STUDY["grid"], "method": [spelling]}}),
    ):
        with pytest.raises(spdgraph.UnknownMethodError) as info:
            call()
        assert str(info.value) == message
    argv = ["sample", "--graph-family", "hub", "--graph-option", "p=6", "-m", spelling]
    code, err = _cli([*argv, "-o", tmp_path / "m.nc"], capsys)
    assert code == 2 and message in err, err


def test_method_names_are_case_insensitive_everywhere():
    assert spdgraph.sample(hub(6, 2), "PO", seed=1).attrs["method"] == "po"
    assert spdgraph.simulate("hub", n=4, p=6, method="Po", seed=1).attrs["method"] == "po"
    assert load_study({**STUDY, "grid": {**STUDY["grid"], "method": ["PO"]}}).cells()


# ---- the module itself ------------------------------------------------------------------------


def test_the_family_table_names_every_graph_family():
    assert set(vocabulary.FAMILY_NAMES) == set(FAMILIES)
    assert set(vocabulary.FAMILY_ALIASES.values()) <= set(FAMILIES)


def test_vocabulary_is_on_the_ground_floor():
    tree = ast.parse(Path(vocabulary.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("spdgraph")
    }
    imported |= {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.startswith("spdgraph")
    }
    assert imported == {"spdgraph.errors"}


def test_counts_beyond_any_machine_are_too_large_not_wrong(tmp_path, capsys):
    with pytest.raises(spdgraph.TooLargeError, match="beyond what any machine") as info:
        vocabulary.check_count(10**30, "p")
    message = str(info.value)
    with pytest.raises(spdgraph.TooLargeError) as info:
        spdgraph.simulate("hub", n=4, p=10**30)
    assert str(info.value) == message
    for argv in (
        ["graph", "hub", "--p", 10**30, "-o", tmp_path / "g.txt"],
        ["simulate", "--graph", "hub", "--p", 10**30, "-o", tmp_path / "s.nc"],
    ):
        assert _cli(argv, capsys) == (2, f"spdgraph: error: {message}\n")


@pytest.mark.parametrize(
    ("raw", "kind", "matrix_kind"),
    [("covariance", "covariance", "covariance"), ("PRECISION", "precision", "precision"),
     ("concentration", "precision", "precision"), ("correlation", None, "correlation"),
     ("Partial_Correlation", None, "partial_correlation"), ("banana", None, None),
     (3, None, None)],
)  # fmt: skip
def test_one_kind_lookup_refusing_or_not(raw, kind, matrix_kind):
    assert vocabulary.known_kind(raw) == kind
    assert vocabulary.known_kind(raw, vocabulary.MATRIX_KIND_ALIASES) == matrix_kind
    if kind is None:
        with pytest.raises(InvalidOptionError, match="must be 'covariance' or 'precision'"):
            vocabulary.canonical_kind(raw)
    else:
        assert vocabulary.canonical_kind(raw) == kind


# ---- one family table, one builder ------------------------------------------------------------

#: (family as a user spells it, its parameters as a user names them: R's names too)
FAMILY_GRAPHS = [
    ("erdos_renyi", {}),  # huge's default density min(1, 3/p) everywhere
    ("random", {"prob": 0.2}),
    ("hub", {"g": 3}),
    ("Hub", {"n_hubs": 2, "mode": "bdgraph"}),
    ("cluster", {"n_groups": 2, "prob": 0.5}),
    ("smallworld", {"nei": 1, "rewire": 0.3}),
    ("band", {"g": 2}),
    ("AR(1)", {}),
    ("scale-free", {}),
]


def _edges(adjacency) -> set[tuple[int, int]]:
    """The edges ``i < j`` of a networkx graph or of a boolean adjacency array."""
    import networkx as nx
    import numpy as np

    if isinstance(adjacency, nx.Graph):
        return {(min(u, v), max(u, v)) for u, v in adjacency.edges}
    rows, cols = np.nonzero(np.triu(np.asarray(adjacency, dtype=bool), 1))
    return set(zip(rows.tolist(), cols.tolist(), strict=True))


def _sim_graph(family, options, seed, p=20):
    """The graph simulate builds: the one builder on simulate's graph stream of ``seed``."""
    from spdgraph.graphs import family_graph
    from spdgraph.seeds import seed_sequence
    from spdgraph.simulation import stream_seed

    return family_graph(family, p, seed=stream_seed(seed_sequence(seed), "graph"), **options)


@pytest.mark.parametrize(("family", "options"), FAMILY_GRAPHS)
def test_one_family_and_seed_give_one_graph_through_every_entry_point(
    family, options, tmp_path, capsys
):
    import numpy as np

    from spdgraph.graphs import family_graph
    from spdgraph.study._cell import simulate_cell

    p, seed = 20, 5
    spec = FAMILIES[vocabulary.canonical_family(family)]
    parameters = spec.arguments(options)  # R's names translated
    drawn = spec.draws(parameters)
    graph_seed = seed if drawn else None
    want = _edges(family_graph(family, p, seed=graph_seed, **options))
    assert want  # every case has edges, so equal sets say something
    # the family's own function, under spdgraph's names
    assert _edges(spec(p, **parameters, **({"seed": seed} if drawn else {}))) == want
    # spdgraph graph FAMILY, its options under spdgraph's names
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in parameters.items()]
    seed_flags = ["--seed", seed] if drawn else []
    code, err = _cli(["graph", family, "--p", p, *flags, *seed_flags, "-o", tmp_path / "g.txt"],
                     capsys)  # fmt: skip
    assert code == 0, err
    assert _edges(spdgraph.read_graph(tmp_path / "g.txt")) == want
    # spdgraph sample --graph-family, its options under the user's names (R's too)
    graph_options = [a for k, v in options.items() for a in ("--graph-option", f"{k}={v!r}")]
    code, err = _cli(["sample", "--graph-family", family, "--graph-option", f"p={p}",
                      *graph_options, *(["--graph-seed", seed] if drawn else []),
                      "--seed", 1, "-o", tmp_path / "m.nc"], capsys)  # fmt: skip
    assert code == 0, err
    assert _edges(spdgraph.open(tmp_path / "m.nc")["adjacency"].values) == want
    # simulate and spdgraph simulate: the same builder on the graph stream of the seed
    want_sim = _edges(_sim_graph(family, options, seed, p))
    sim = spdgraph.simulate(family, n=0, p=p, seed=seed, **options)
    assert _edges(sim["adjacency"].values) == want_sim
    sim_options = [a for k, v in options.items() for a in ("--option", f"{k}={v!r}")]
    code, err = _cli(["simulate", "--graph", family, "--p", p, "--seed", seed, *sim_options,
                      "-o", tmp_path / "s.nc"], capsys)  # fmt: skip
    assert code == 0, err
    assert _edges(spdgraph.open(tmp_path / "s.nc")["adjacency"].values) == want_sim
    # a study's TOML: the family's options under [families.NAME]
    toml = tmp_path / "study.toml"
    table = "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in options.items())
    toml.write_text(
        f'seed = 1\n[grid]\nfamily = ["{family}"]\np = [{p}]\nn = [4]\n'
        f'[families."{family}"]\n{table}[[learners]]\nname = "shrink"\n',
        encoding="utf-8",
    )
    study = load_study(toml)
    (cell,) = study.cells()
    studied = simulate_cell(study, cell, np.random.SeedSequence(seed))
    assert _edges(studied["adjacency"].values) == want_sim


def test_erdos_renyi_takes_huges_default_density_under_every_name():
    from spdgraph.graphs import erdos_renyi, family_graph

    for name in ("erdos_renyi", "random", "Erdos-Renyi"):
        g = family_graph(name, 60, seed=3)
        assert g.graph["parameters"]["d"] == pytest.approx(3 / 60)
        assert _edges(g) == _edges(erdos_renyi(60, seed=3))
    assert family_graph("random", 2, seed=3).graph["parameters"]["d"] == 1.0  # min(1, 3/p)
    sim = spdgraph.simulate("erdos_renyi", n=0, p=60, seed=3)
    assert _edges(sim["adjacency"].values) == _edges(_sim_graph("erdos_renyi", {}, 3, 60))


def test_the_family_table_knows_each_familys_parameters_and_r_names():
    from spdgraph.graphs import family_graph

    assert FAMILIES["hub"].parameters == {"n_hubs": None, "mode": "huge"}
    assert FAMILIES["erdos_renyi"].parameters == {"d": None}
    assert FAMILIES["erdos_renyi"].aliases == ("random",)
    assert FAMILIES["ar1"].aliases == ("AR(1)",) and FAMILIES["ar1"].parameters == {}
    assert not FAMILIES["hub"].draws({}) and FAMILIES["hub"].draws({"mode": "bdgraph"})
    assert not FAMILIES["band"].draws({}) and FAMILIES["scale_free"].draws({})
    assert inspect.signature(FAMILIES["band"]) == inspect.signature(spdgraph.graphs.band)
    for name, family in FAMILIES.items():
        assert family.name == name and set(family.r_arguments.values()) <= set(family.parameters)
    message = _refusal(lambda: family_graph("band", 6, n_hubs=2))
    assert message == "graph family 'band' takes no 'n_hubs'; its parameters: bandwidth."
    message = _refusal(lambda: family_graph("hub", 6, g=2, n_hubs=2))
    assert "given twice" in message
    assert _refusal(lambda: spdgraph.simulate("hub", n=0, p=6, g=2, n_hubs=2)) == message


# ---- one marginal parser ----------------------------------------------------------------------

GOOD_MARGINALS = ["t(df=5)", "poisson(3)", "ordinal(n_categories=3)", "binary", "standardized",
                  "normal"]  # fmt: skip
BAD_MARGINALS = ["weibull", "t(df=x)", "nosuch(1)", "t(", "ordinal(n_categories=10**9)",
                 "ordinal(n_categories=1)", "t(df=-1)", "x" * 2000]  # fmt: skip


def _saved_matrix(tmp_path, capsys):
    path = tmp_path / "m.nc"
    code, err = _cli(["sample", "--graph-family", "hub", "--graph-option", "p=6", "--seed", 1,
                      "-o", path], capsys)  # fmt: skip
    assert code == 0, err
    return path


@pytest.mark.parametrize("spec", GOOD_MARGINALS)
def test_a_marginal_is_read_alike_by_draw_and_simulate(spec, tmp_path, capsys):
    from spdgraph.marginals import parse_marginal

    marginal = parse_marginal(spec)
    matrix = spdgraph.open(_saved_matrix(tmp_path, capsys))
    code, err = _cli(["draw", tmp_path / "m.nc", "--n-obs", 30, "--seed", 2, "--marginals", spec,
                      "-o", tmp_path / "x.nc"], capsys)  # fmt: skip
    assert code == 0, err
    want = matrix.spd.draw(30, seed=2, marginals=marginal)
    assert spdgraph.open(tmp_path / "x.nc").values.tolist() == want.values.tolist()
    sim = spdgraph.simulate("hub", n=30, p=6, seed=2, data=spec)
    parsed = spdgraph.simulate("hub", n=30, p=6, seed=2, data=marginal)
    assert sim["data"].values.tolist() == parsed["data"].values.tolist()


@pytest.mark.parametrize("spec", BAD_MARGINALS)
def test_a_bad_marginal_is_refused_alike_by_draw_and_simulate(spec, tmp_path, capsys):
    from spdgraph.marginals import parse_marginal

    message = _expected(parse_marginal, spec)
    path = _saved_matrix(tmp_path, capsys)
    code, err = _cli(["draw", path, "--n-obs", 5, "--marginals", spec, "-o", tmp_path / "x.nc"],
                     capsys)  # fmt: skip
    assert code == 2 and message in err, err
    refused = _refusal(lambda: spdgraph.simulate("hub", n=5, p=6, seed=1, data=spec))
    assert refused.startswith(message.rstrip("."))  # simulate adds its data types
    assert not (tmp_path / "x.nc").exists()


# ---- one criterion check ----------------------------------------------------------------------


@pytest.mark.parametrize("criterion", ["aic", "STARS", ""])
def test_every_entry_point_refuses_a_criterion_with_one_message(criterion, tmp_path, capsys):
    import numpy as np

    from spdgraph import validation

    message = _expected(lambda v: vocabulary.check_choice(v, "criterion", validation.CRITERIA),
                        criterion)  # fmt: skip
    x = np.random.default_rng(0).standard_normal((20, 4))
    assert _refusal(lambda: validation.select_glasso(x, criterion=criterion)) == message
    assert _refusal(lambda: validation.fit_learners(x, ["glasso"], criterion=criterion)) == message
    truth = spdgraph.sample(hub(4, 1), kind="precision", seed=1)
    assert _refusal(lambda: validation.score(x, truth, "glasso", criterion=criterion)) == message
    code, err = _cli(["score", "d.nc", "m.nc", f"--criterion={criterion}"], capsys)
    assert code == 2 and f"argument --criterion: {message}" in err, err
