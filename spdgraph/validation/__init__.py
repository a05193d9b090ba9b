"""Score structure learners against a known graph (the Krämer et al. 2009 protocol).

The learners of the study (node-wise lasso, adaptive lasso, ridge and PLS with
K-fold cross-validation, Schäfer–Strimmer shrinkage) plus a certified
graphical lasso (:func:`graphical_lasso`, penalty by :func:`select_glasso`),
the local-fdr edge selection under a fitted correlation null, and
:func:`score`, which turns data and a true graph into TPR and TDR.
scikit-learn is needed by the node-wise learners and the CV folds (``pip install
"spdgraph[validation]"``); it is imported only when used.

>>> import spdgraph
>>> import spdgraph.validation as sv
>>> from spdgraph.graphs import erdos_renyi
>>> g = erdos_renyi(10, 0.3, seed=3)
>>> prec = spdgraph.sample(g, "po", seed=3, kind="precision")
>>> x = sv.draw_gaussian(prec.values, 300, seed=4)
>>> sv.score(x, g, "shrink", seed=0).n_true == g.number_of_edges()
True
"""

from spdgraph.validation._curves import (
    METRICS,
    confusion,
    curve_areas,
    edge_metrics,
    learner_path,
    path_table,
)
from spdgraph.validation._data import draw_gaussian
from spdgraph.validation._glasso import (
    GlassoFit,
    glasso_kkt,
    graphical_lasso,
    graphical_lasso_path,
)
from spdgraph.validation._glasso_select import (
    CRITERIA,
    GlassoSelection,
    check_criterion,
    glasso_penalties,
    select_glasso,
)
from spdgraph.validation._learners import (
    BUILTIN_LEARNERS,
    LEARNER_GRAPHS,
    SELECTION_RULES,
    coefficients_to_pcor,
    fit_learners,
    kfold,
    lasso_path,
    pls_coefficients,
)
from spdgraph.validation._lfdr import LocalFdr, correlation_null_pdf, grenander, local_fdr
from spdgraph.validation._mb import (
    MB_CRITERIA,
    MB_RULES,
    NeighbourhoodSelection,
    neighbourhood_selection,
)
from spdgraph.validation._metrics import (
    HIGHER_IS_BETTER,
    Metric,
    metric_names,
    register_metric,
    resolve_metric,
)
from spdgraph.validation._posterior import PosteriorScores, posterior_scores
from spdgraph.validation._score import Score, score, score_selection, select_edges
from spdgraph.validation._scorer import estimated_graph, graph_scorer
from spdgraph.validation._shrink import (
    precision_to_pcor,
    shrink_pcor,
    shrinkage_intensity,
    standardize,
)
from spdgraph.validation._tables import score_table
from spdgraph.validation._tables import truth_for as truth_for  # for the CLI
from spdgraph.validation._warmup import validation_warmup_steps

__all__ = [
    "BUILTIN_LEARNERS",
    "CRITERIA",
    "HIGHER_IS_BETTER",
    "LEARNER_GRAPHS",
    "MB_CRITERIA",
    "MB_RULES",
    "METRICS",
    "SELECTION_RULES",
    "GlassoFit",
    "GlassoSelection",
    "LocalFdr",
    "Metric",
    "NeighbourhoodSelection",
    "PosteriorScores",
    "Score",
    "check_criterion",
    "coefficients_to_pcor",
    "confusion",
    "correlation_null_pdf",
    "curve_areas",
    "draw_gaussian",
    "edge_metrics",
    "estimated_graph",
    "fit_learners",
    "glasso_kkt",
    "glasso_penalties",
    "graph_scorer",
    "graphical_lasso",
    "graphical_lasso_path",
    "grenander",
    "kfold",
    "lasso_path",
    "learner_path",
    "local_fdr",
    "metric_names",
    "neighbourhood_selection",
    "path_table",
    "pls_coefficients",
    "posterior_scores",
    "precision_to_pcor",
    "register_metric",
    "resolve_metric",
    "score",
    "score_selection",
    "score_table",
    "select_edges",
    "select_glasso",
    "shrink_pcor",
    "shrinkage_intensity",
    "standardize",
    "validation_warmup_steps",
]
