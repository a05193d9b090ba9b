"""``python -m spdgraph.cli``: the ``spdgraph`` command."""

import sys

from spdgraph.cli import main

sys.exit(main())
