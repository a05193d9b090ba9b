"""Simulation studies: a grid of graph family x p x n x generator, learners, scores, repeats.

A study is described in a TOML file (the schema is in ``docs/study.md`` and
:mod:`spdgraph.study._config`) and run by :func:`run` (``spdgraph study run
STUDY.toml -o DIR``). Each cell (one point of the grid) simulates its repeats
with :func:`spdgraph.simulate`, fits every learner and scores it with
:mod:`spdgraph.validation`; its seed comes from the study seed and its
coordinates only (:func:`cell_seed`), so a cell gives the same bits whichever
other cells run, in whatever order, on local processes or a dask cluster.
Finished cells are stored atomically as they finish and skipped on a rerun.
:func:`run_cells` runs any other grid (a custom cell function) the same way.
:func:`scheduler_client` (with :func:`check_scheduler`) is the one way a run gets a
checked dask client, for a study's cells and the command line's ``--scheduler``.
Learners may be Python (built in, a class, a function), R snippets (``r =``:
one R process per worker), any command line (``command =``) or a kind a
plugin registers (:func:`learner_kinds`, the ``spdgraph_learner_kinds``
hook); every fit is timed (metric ``seconds``). A failing learner fails its
own (cell, learner, repeat) entries only, and a rerun computes only what
failed or is missing. :func:`cell_data` gives a stored cell's truth and the
exact data its learners saw. :func:`report` rebuilds ``DIR/report.html``.
"""

from spdgraph.study._cell import cell_key, cell_seed, compute_cell
from spdgraph.study._celldata import cell_data, r_script
from spdgraph.study._config import Study, import_object, load_study
from spdgraph.study._custom import CellsResult, run_cells
from spdgraph.study._guard import (
    SchedulerError,
    StudyLockedError,
    check_scheduler,
    scheduler_client,
)
from spdgraph.study._kinds import learner_kinds
from spdgraph.study._rebuild import report
from spdgraph.study._report import summary_table
from spdgraph.study._results import plot_curves, plot_metrics
from spdgraph.study._run import StudyError, StudyResult, run

__all__ = [
    "CellsResult",
    "SchedulerError",
    "Study",
    "StudyError",
    "StudyLockedError",
    "StudyResult",
    "cell_data",
    "cell_key",
    "cell_seed",
    "check_scheduler",
    "compute_cell",
    "import_object",
    "learner_kinds",
    "load_study",
    "plot_curves",
    "plot_metrics",
    "r_script",
    "report",
    "run",
    "run_cells",
    "scheduler_client",
    "summary_table",
]
