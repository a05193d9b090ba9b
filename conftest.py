"""Repository-wide pytest configuration."""

import os

from hypothesis import settings

# ``python -m spdgraph`` (and ``python -m spdgraph.cli``) run the CLI on import: never
# import them for doctests.
collect_ignore = ["spdgraph/__main__.py", "spdgraph/cli/__main__.py"]

# Hypothesis runs derandomized by default (README's command and .ci/run, with CI set or
# not): every machine runs the same examples, so a test red for one is red for all and
# never turns red on a change that touched nothing near it. Looking for new failing
# examples is its own run, SPDGRAPH_HYPOTHESIS=explore (or pytest's
# --hypothesis-profile explore); each one found is kept as an @example of its test.
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=30, deadline=None, derandomize=True)
settings.register_profile("explore", max_examples=300, deadline=None, derandomize=False)
settings.load_profile(
    os.environ.get("SPDGRAPH_HYPOTHESIS") or ("ci" if os.environ.get("CI") else "dev")
)
