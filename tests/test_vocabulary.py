"""One vocabulary per argument: every entry point accepts and refuses the same spellings.

The same spellings of a kind, a graph family, a count and a probability go to
``spdgraph.sample``, ``spdgraph.simulate``, a study's configuration and the
``sample``, ``simulate`` and ``graph`` commands; each accepts the same ones
(giving the same canonical value) and refuses the same ones with the message
of :mod:`spdgraph.vocabulary`.
"""

from __future__ import annotations

import ast
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
