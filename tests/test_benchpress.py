"""The benchpress parameters module in contrib/benchpress/spdgraph_po, on benchpress's formats."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from types import SimpleNamespace

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import spdgraph

MODULE = Path(__file__).resolve().parents[1] / "contrib" / "benchpress" / "spdgraph_po"

pytestmark = pytest.mark.skipif(not MODULE.is_dir(), reason="contrib/ not shipped here")


def write_adjmat(path: Path, g: nx.Graph, labels: list[str]) -> None:
    """An adjacency CSV as benchpress writes it: the labels, then the 0/1 matrix."""
    a = nx.to_numpy_array(g, nodelist=list(g.nodes), weight=None).astype(int)
    pd.DataFrame(a, columns=labels).to_csv(path, index=False)


def run(script: str, **namespace: dict) -> None:
    runpy.run_path(str(MODULE / script), init_globals={"snakemake": SimpleNamespace(**namespace)})


@pytest.fixture()
def adjmat(tmp_path):
    g = nx.gnp_random_graph(9, 0.4, seed=2)
    labels = [f"X{i}" for i in range(1, 10)]
    path = tmp_path / "adjmat.csv"
    write_adjmat(path, g, labels)
    return path, g, labels


@pytest.mark.parametrize("kind", ["precision", "covariance"])
def test_script_turns_an_adjmat_into_a_labelled_covariance_csv(adjmat, tmp_path, kind):
    path, g, labels = adjmat
    out = tmp_path / "params.csv"
    wildcards = {
        "seed": "7",
        "method": "po",
        "kind": kind,
        "entries": "normal",
        "normalize": "True",
        "id": "po",
    }
    run("script.py", input={"adjmat": str(path)}, output={"params": str(out)}, wildcards=wildcards)
    lines = out.read_text().splitlines()
    assert lines[0] == ",".join(labels) and len(lines) == 10
    cov = pd.read_csv(out)
    assert list(cov.columns) == labels
    sigma = cov.to_numpy()
    frame = pd.DataFrame(nx.to_numpy_array(g, weight=None) != 0, index=labels, columns=labels)
    expected = spdgraph.sample(frame, "po", seed=7, kind=kind)
    if kind == "precision":
        expected = expected.spd.inverse()
    else:  # the graph's zeros are in the covariance itself
        nonedge = ~frame.to_numpy() & ~np.eye(9, dtype=bool)
        assert (sigma[nonedge] == 0).all()
    np.testing.assert_array_equal(sigma, expected.values)
    np.linalg.cholesky(sigma)


def test_data_rule_script_draws_labelled_gaussian_data(adjmat, tmp_path):
    path, _, labels = adjmat
    params = tmp_path / "params.csv"
    wildcards = {
        "seed": "1",
        "method": "po",
        "kind": "precision",
        "entries": "normal",
        "normalize": "False",
    }
    run(
        "script.py",
        input={"adjmat": str(path)},
        output={"params": str(params)},
        wildcards=wildcards,
    )
    data = tmp_path / "seed=3.csv"
    run(
        "data.py",
        input={"cov": str(params)},
        output={"data": str(data)},
        wildcards={"n": "4000", "seed": "3"},
    )
    x = pd.read_csv(data)
    assert list(x.columns) == labels and x.shape == (4000, 9)
    sigma = pd.read_csv(params).to_numpy()
    np.testing.assert_allclose(np.cov(x.to_numpy().T), sigma, atol=0.15 * np.abs(sigma).max())
    again = tmp_path / "again.csv"
    run(
        "data.py",
        input={"cov": str(params)},
        output={"data": str(again)},
        wildcards={"n": "4000", "seed": "3"},
    )
    assert again.read_text() == data.read_text()


def test_module_files_follow_the_benchpress_contract():
    schema = json.loads((MODULE / "schema.json").read_text())
    item = schema["items"]
    assert schema["type"] == "array" and "id" in item["required"]
    assert set(item["required"]) == set(item["properties"])
    example = item["examples"][0]
    assert set(example) == set(item["properties"])
    info = json.loads((MODULE / "info.json").read_text())
    assert info["graph_types"] == ["UG"] and info["language"] == "Python"
    rule = (MODULE / "rule.smk").read_text()
    assert '"{output_dir}/adjmat/{adjmat}.csv"' in rule and '"script.py"' in rule
    assert '"adjmat=/{adjmat}.csv"' in rule and "pattern_strings[module_name]" in rule
    data_rule = (MODULE / "data_rule.smk").read_text()
    assert "parameters/spdgraph_po/{bn}/adjmat=/{adjmat}.csv" in data_rule
    for name in ("docs.rst", "bibtex.bib", "spdgraph.yml"):
        assert (MODULE / name).read_text().strip()


def test_script_refuses_a_bad_flag(adjmat, tmp_path):
    path, _, _ = adjmat
    wildcards = {
        "seed": "1",
        "method": "po",
        "kind": "precision",
        "entries": "normal",
        "normalize": "maybe",
    }
    with pytest.raises(ValueError, match="normalize"):
        run(
            "script.py",
            input={"adjmat": str(path)},
            output={"params": str(tmp_path / "p.csv")},
            wildcards=wildcards,
        )
