"""``python -m spdgraph``: the same as the ``spdgraph`` command."""

import sys

from spdgraph.cli import main

sys.exit(main())
