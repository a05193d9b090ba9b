"""pytest configuration of the spdgraph-ppl plugin.

The repository's test run collects doctests of every plugin module and
Markdown file: skip this plugin when it is not installed, and its PyMC or
NumPyro front end when that library is missing. JAX computes in float64 here.
"""

from importlib.util import find_spec

collect_ignore: list[str] = []

if find_spec("spdgraph_ppl") is None:
    collect_ignore += ["src", "tests", "README.md"]
else:
    if find_spec("pymc") is None:
        collect_ignore += ["src/spdgraph_ppl/pymc.py", "tests/test_pymc.py"]
    if find_spec("numpyro") is None:
        collect_ignore += ["src/spdgraph_ppl/numpyro.py", "tests/test_numpyro.py"]
    if find_spec("pymc") is None or find_spec("numpyro") is None:
        collect_ignore += ["README.md"]
    if find_spec("jax") is not None:
        import jax

        jax.config.update("jax_enable_x64", True)
